import Foundation

/// Waits until `condition` holds, for a change nothing announces (a socket closed on the other
/// side, a run ended by a cancel from another thread), checking every few milliseconds (at most
/// `timeout`).
public func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
