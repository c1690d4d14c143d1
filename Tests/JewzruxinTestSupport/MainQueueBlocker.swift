import Dispatch
import Foundation
import Synchronization

/// Holds the main queue until released, or for `limit` seconds at most: a program whose main
/// queue nobody services (a server, a command-line tool blocked in a semaphore).
///
/// The limit only keeps a failing test from holding the queue for ever: a test proves that its
/// work needed no main queue by finishing it while the blocker still holds (``isHolding``). Such a
/// test runs with ``Trait/usesMainQueue``, so that no other test waits for the queue meanwhile.
public final class MainQueueBlocker: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let released = Mutex(false)

    /// Blocks the main queue and returns once it is blocked.
    public static func block(limit: TimeInterval = 60) async -> MainQueueBlocker {
        let blocker = MainQueueBlocker()
        await withHandover { (blocked: Handover<Void, Never>) in
            DispatchQueue.main.async {
                blocked.resume()
                _ = blocker.gate.wait(timeout: .now() + limit)
                blocker.released.withLock { $0 = true }
            }
        }
        return blocker
    }

    /// Whether the main queue is still held (the limit hasn't run out).
    public var isHolding: Bool { !released.withLock { $0 } }

    public func release() { gate.signal() }
}

