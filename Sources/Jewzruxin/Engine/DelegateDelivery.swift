import Foundation

/// Hands the engine's handler calls to a session's delegate queue, in the order they come.
///
/// On a serial delegate queue (the main queue, or any with `maxConcurrentOperationCount` 1), a call
/// that comes while an earlier one waits for its turn joins it in the same operation rather than
/// becoming an operation of its own. The calls run in the same order on the same queue as with one
/// operation each; what is saved is an `OperationQueue` operation and, often, a thread wake-up per
/// call: with many requests in flight they finish faster than the queue runs their handlers.
///
/// An operation runs the calls that were waiting when it started; those that come meanwhile go to
/// the next operation, so other work of the queue gets its turn in between. On a concurrent
/// delegate queue each call is an operation, as before.
final class DelegateDelivery: Sendable {
    private struct Line {
        var calls: [@Sendable () -> Void] = []
        /// Whether an operation that will run the calls is on the queue.
        var isScheduled = false
    }

    private let queue: OperationQueue
    private let line = Locked(Line())

    init(queue: OperationQueue) {
        self.queue = queue
    }

    /// Runs `call` on the delegate queue after the calls enqueued before it.
    func enqueue(_ call: @escaping @Sendable () -> Void) {
        guard queue.maxConcurrentOperationCount == 1 else {
            queue.addOperation(call)
            return
        }
        let schedules = line.withLock { line -> Bool in
            line.calls.append(call)
            guard !line.isScheduled else { return false }
            line.isScheduled = true
            return true
        }
        if schedules { queue.addOperation { self.runWaitingCalls() } }
    }

    /// Runs the calls waiting now; schedules another operation for those that come meanwhile.
    private func runWaitingCalls() {
        let calls = line.withLock { line -> [@Sendable () -> Void] in
            defer { line.calls = [] }
            return line.calls
        }
        for call in calls { call() }
        let more = line.withLock { line -> Bool in
            line.isScheduled = !line.calls.isEmpty
            return line.isScheduled
        }
        if more { queue.addOperation { self.runWaitingCalls() } }
    }
}
