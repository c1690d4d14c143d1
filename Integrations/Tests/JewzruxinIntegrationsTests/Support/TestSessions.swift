import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import JewzruxinSandbox

/// What the suites share: a session of their own per test, quick to retry.
enum TestSessions {
    /// A new ephemeral session on the default transport, whose retry policy waits 10 ms rather
    /// than a second, so that a retried request costs the suite no time.
    static func make() -> HTTPSession {
        let session = HTTPSession(configuration: .ephemeral)
        var policy = RetryPolicy()
        policy.retryDelay = 0.01
        session.retryPolicy = policy
        return session
    }

    /// A key no other test uses, for the sandbox's per-key counters (`/flaky/`).
    static func uniqueKey(_ name: String = #function) -> String {
        name.filter(\.isLetter) + "-" + UUID().uuidString
    }
}

/// Lets a sandbox route that runs on a server thread tell the test it was reached, and wait for the
/// test to let it answer, without sleeping on either side.
final class Gate: Sendable {
    private let reached = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    /// Called by the server: says it was reached, then waits for ``open()`` (at most `timeout`).
    func pass(timeout: TimeInterval = 10) {
        reached.signal()
        _ = opened.wait(timeout: .now() + timeout)
    }

    /// Waits, off the cooperative pool, until the server reached the gate (at most `timeout`).
    func waitUntilReached(timeout: TimeInterval = 10) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.reached.wait(timeout: .now() + timeout) == .success)
            }
        }
    }

    /// Lets the server answer.
    func open() { opened.signal() }
}
