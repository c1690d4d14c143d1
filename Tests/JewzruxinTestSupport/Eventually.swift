import Foundation

/// Waits until `condition` holds, for a change nothing announces (a socket closed on the other
/// side, a run ended by a cancel from another thread), checking every few milliseconds (at most
/// `timeout`).
/// Runs on the caller's actor (a `@MainActor` test reads its model's state in `condition`).
public func eventually(
    isolation: isolated (any Actor)? = #isolation, timeout: TimeInterval = 10, _ condition: () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Whether the calling code runs on the main dispatch queue, told by a value only that queue
/// holds. (Under `swift test` on Linux the main queue isn't serviced by the process's first
/// thread, so `Thread.isMainThread` can't tell.)
public var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
