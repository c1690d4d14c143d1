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
/// delegate queue each call is an operation, as before. On the main queue the calls run in a
/// block of the main dispatch queue, which the main `OperationQueue` runs its operations on, at a
/// tenth of an operation's cost.
///
/// The fluent layer hands its handlers to the same delivery, so that they keep their order with
/// the engine's calls and share its operations.
package final class DelegateDelivery: Sendable {
    private struct Line {
        var calls: [@Sendable () -> Void] = []
        /// Whether an operation that will run the calls is on the queue.
        var isScheduled = false
    }

    private let queue: OperationQueue
    private let isMain: Bool
    private let line = Locked(Line())

    init(queue: OperationQueue) {
        self.queue = queue
        self.isMain = queue === OperationQueue.main
    }

    /// Runs `call` on the delegate queue after the calls enqueued before it.
    package func enqueue(_ call: @escaping @Sendable () -> Void) {
        guard isMain || queue.maxConcurrentOperationCount == 1 else {
            queue.addOperation(call)
            return
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
        if isMain {
            DispatchQueue.main.async { self.runWaitingCalls() }
        } else {
            queue.addOperation { self.runWaitingCalls() }
        }
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
        if more { scheduleWaitingCalls() }
    }
}

/// Work a session runs on its delegate queue once a delay has passed, unless it has become
/// needless by then (``PostponedCalls``).
package protocol PostponedCall: AnyObject, Sendable {
    /// Whether the call still has something to do; asked on the timer's thread, so it must be quick.
    var isPending: Bool { get }
    /// Does the work, on the delegate queue.
    func runPostponed()
}

/// Calls to run on a session's delegate queue once a delay has passed since each was posted, with
/// one timer for all the calls waiting rather than one each.
///
/// The timer is armed when a call is posted to an empty line, and again, when it fires, for the
/// calls not due yet, at most once per ``period``: a call runs from its delay to its delay plus the
/// period after it was posted, in the delegate queue's first turn after that. The calls due that
/// are still pending go to the delegate queue together, through its ``DelegateDelivery``; those
/// that are not are dropped without a hop. A call is held until then.
package final class PostponedCalls: Sendable {
    private struct Line {
        var waiting: [(due: DispatchTime, call: any PostponedCall)] = []
        /// Whether a timer will look at the line.
        var isArmed = false
    }

    /// The shortest time between two looks at the line: with many calls posted, one look serves
    /// many of them rather than one timer firing per call.
    static let period = DispatchTimeInterval.milliseconds(10)

    private let delivery: DelegateDelivery
    private let line = Locked(Line())

    init(delivery: DelegateDelivery) {
        self.delivery = delivery
    }

    /// Runs `call` on the delegate queue once `delay` has passed, unless it is no longer pending.
    package func post(after delay: DispatchTimeInterval, _ call: any PostponedCall) {
        let due = DispatchTime.now() + delay
        let arms = line.withLock { line -> Bool in
            line.waiting.append((due, call))
            guard !line.isArmed else { return false }
            line.isArmed = true
            return true
        }
        if arms { arm(at: due) }
    }

    private func arm(at deadline: DispatchTime) {
        DispatchQueue.global().asyncAfter(deadline: deadline) { self.timerFired() }
    }

    /// Hands the calls due and pending to the delegate queue and arms the timer for the others.
    private func timerFired() {
        let now = DispatchTime.now()
        let (due, next) = line.withLock { line -> ([any PostponedCall], DispatchTime?) in
            var due: [any PostponedCall] = []
            var next: DispatchTime?
            line.waiting.removeAll { entry in
                if entry.due <= now {
                    due.append(entry.call)
                    return true
                }
                next = min(next ?? entry.due, entry.due)
                return false
            }
            line.isArmed = next != nil
            return (due, next)
        }
        let pending = due.filter(\.isPending)
        if !pending.isEmpty { delivery.enqueue { for call in pending { call.runPostponed() } } }
        if let next { arm(at: max(next, now + Self.period)) }
    }
}
