import Foundation

/// Hands the engine's handler calls to a handler queue (``HandlerQueue``), in the order they come.
///
/// On a serial operation queue (any with `maxConcurrentOperationCount` 1) and on the main queue, a
/// call that comes while an earlier one waits for its turn joins it in the same operation rather
/// than becoming an operation of its own. The calls run in the same order on the same queue as with
/// one operation each; what is saved is an `OperationQueue` operation and, often, a thread wake-up
/// per call: with many requests in flight they finish faster than the queue runs their handlers.
///
/// An operation runs the calls that were waiting when it started; those that come meanwhile go to
/// the next operation, so other work of the queue gets its turn in between. On a concurrent
/// operation queue each call is an operation, as before, and on a dispatch queue a block. On the
/// main queue the calls run in a block of the main dispatch queue, which the main `OperationQueue`
/// runs its operations on, at a tenth of an operation's cost. Inline, each call runs at once, on
/// the calling thread.
///
/// The fluent layer hands its handlers to the same line, so that they keep their order with
/// the engine's calls and share its operations.
package final class HandlerLine: Sendable {
    private struct Line {
        var calls: [@Sendable () -> Void] = []
        /// The storage of the calls run last, emptied: the next calls go into it rather than into
        /// a new array.
        var spare: [@Sendable () -> Void] = []
        /// Whether an operation that will run the calls is on the queue.
        var isScheduled = false
    }

    private enum Target {
        case inline
        case main
        case dispatch(DispatchQueue)
        case operation(OperationQueue)
    }

    private let target: Target
    private let line = Locked(Line())

    /// Calls to the main queue, whichever kind names it.
    package static let main = HandlerLine(target: .main)
    /// Calls run at once, where they are made.
    package static let inline = HandlerLine(target: .inline)

    private init(target: Target) {
        self.target = target
    }

    /// Calls to `queue`.
    package convenience init(queue: OperationQueue) {
        self.init(target: queue === OperationQueue.main ? .main : .operation(queue))
    }

    /// Calls to `queue`.
    package convenience init(queue: DispatchQueue) {
        self.init(target: Self.isMain(queue) ? .main : .dispatch(queue))
    }

    /// Whether `queue` is the main dispatch queue, which has more than one `DispatchQueue` object
    /// on Linux: told by its label.
    package static func isMain(_ queue: DispatchQueue) -> Bool {
        queue === DispatchQueue.main || queue.label == DispatchQueue.main.label
    }

    /// Whether calls run at once, where they are made.
    package var isInline: Bool {
        if case .inline = target { return true }
        return false
    }

    /// Whether calls go to the main queue.
    package var isMain: Bool {
        if case .main = target { return true }
        return false
    }

    /// Whether this line's calls run on the same queue as `other`'s: a call of one may then run
    /// in the other's turn, without a hop. Two inline deliveries run on no queue.
    package func runs(on other: HandlerLine) -> Bool {
        switch (target, other.target) {
        case (.main, .main): true
        case let (.dispatch(a), .dispatch(b)): a === b
        case let (.operation(a), .operation(b)): a === b
        default: false
        }
    }

    /// Runs `call` on the queue after the calls enqueued before it; inline, runs it now.
    package func enqueue(_ call: @escaping @Sendable () -> Void) {
        switch target {
        case .inline:
            call()
            return
        case .dispatch(let queue):
            queue.async(execute: call)
            return
        case .operation(let queue) where queue.maxConcurrentOperationCount != 1:
            queue.addOperation(call)
            return
        case .main, .operation:
            break
        }
        let schedules = line.withLock { line -> Bool in
            line.calls.append(call)
            guard !line.isScheduled else { return false }
            line.isScheduled = true
            return true
        }
        if schedules { scheduleWaitingCalls() }
    }

    private func scheduleWaitingCalls() {
        switch target {
        case .operation(let queue): queue.addOperation(RunWaitingCalls(self))
        default: DispatchQueue.main.async { self.runWaitingCalls() }
        }
    }

    /// The operation that runs the waiting calls: an `Operation` of its own rather than a
    /// `BlockOperation`, which copies its array of blocks to run them and holds the closure that
    /// calls back here, two more allocations per operation.
    private final class RunWaitingCalls: Operation, @unchecked Sendable {
        // Set once, before the operation is queued.
        private let line: HandlerLine

        init(_ line: HandlerLine) {
            self.line = line
        }

        override func main() {
            line.runWaitingCalls()
        }
    }

    /// Runs the calls waiting now; schedules another operation for those that come meanwhile.
    private func runWaitingCalls() {
        var calls = line.withLock { line -> [@Sendable () -> Void] in
            var taken = line.spare
            line.spare = []
            swap(&taken, &line.calls)
            return taken
        }
        for call in calls { call() }
        calls.removeAll(keepingCapacity: true)
        let more = line.withLock { [calls] line -> Bool in
            line.spare = calls
            line.isScheduled = !line.calls.isEmpty
            return line.isScheduled
        }
        if more { scheduleWaitingCalls() }
    }
}
