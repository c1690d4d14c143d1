import Foundation
import Synchronization
import Testing
import JewzruxinPrimitives
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transfer that only records what is asked of it.
private final class RecordingTransfer: HTTPTransfer {
    let calls = Mutex<[String]>([])
    func resume() { calls.withLock { $0.append("resume") } }
    func cancel() { calls.withLock { $0.append("cancel") } }
}

/// An activity that counts its runs.
private final class Activity: RunActivity {
    let count = Mutex(0)
    func runBegan() { count.withLock { $0 += 1 } }
    func runEnded() { count.withLock { $0 -= 1 } }
}

/// The lifecycle transitions on their own, no network: each event's answer and the resources it
/// hands back to stop (transfers to cancel, feeds to abandon, activity to end, the completion).
@Suite("Cycle state machine")
struct StateMachineTests {
    typealias Machine = HTTPCycle.StateMachine

    static let completion = HTTPCycle.Completion(delivery: .queue) { _, _ in }
    static let awaited = HTTPCycle.Completion(delivery: .awaited) { _, _ in }
    static let request = HTTPRequest(url: URL(fileURLWithPath: "/"), method: .get)

    /// Starts `machine`: the attempt number it sends, or `nil` if the start was refused.
    @discardableResult
    private func start(_ machine: inout Machine, activity: (any RunActivity)? = nil) -> Int? {
        guard case .send(let attempt, _) = machine.start(Self.completion, plan: .test(), activity: activity) else { return nil }
        return attempt
    }

    /// `value`, or a recorded issue and a thrown error when it is `nil`.
    private func required<T>(_ value: T?, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        guard let value else {
            Issue.record("expected a value \(what)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return value
    }

    private func completed(_ machine: inout Machine, _ attempt: Int) -> Bool {
        machine.transportCompleted(attempt: attempt, error: nil) != nil
    }

    @Test("a run goes idle → running → processing → finished")
    func happyPath() {
        var machine = Machine(plan: .test())
        #expect(machine.state == .idle)
        let r1 = start(&machine)
        #expect(r1 == 1)
        #expect(machine.state == .running)
        #expect(machine.isCurrent(1))
        let r2 = completed(&machine, 1)
        #expect(r2)
        #expect(machine.state == .processing)
        let r3 = machine.processingCompleted(attempt: 1, error: nil)
        #expect(r3 != nil)
        #expect(machine.state == .finished)
    }

    @Test("completion happens once: a second completion of the same run is refused")
    func completesOnce() {
        var machine = Machine(plan: .test())
        start(&machine)
        let r4 = completed(&machine, 1)
        #expect(r4)
        let r5 = completed(&machine, 1)
        #expect(!r5)
        let r6 = machine.processingCompleted(attempt: 1, error: nil)
        #expect(r6?.completion != nil)
        let r7 = machine.processingCompleted(attempt: 1, error: nil)
        #expect(r7 == nil)
        let r8 = machine.failed(attempt: 1, error: HTTPError.cancelled)
        #expect(r8 == nil)
    }

    @Test("start while running or processing is refused")
    func startWhileRunning() {
        var machine = Machine(plan: .test())
        start(&machine)
        let r9 = machine.start(Self.completion, plan: .test(), activity: nil)
        guard case .rejectAlreadyRunning = r9 else {
            Issue.record("expected a refusal, got \(r9)")
            return
        }
        _ = completed(&machine, 1)
        let r10 = start(&machine)
        #expect(r10 == nil)
        _ = machine.processingCompleted(attempt: 1, error: nil)
        let r11 = start(&machine)
        #expect(r11 == 2)
    }

    @Test("cancel: explicit doesn't notify, implicit does; only a running cycle can be cancelled")
    func cancel() {
        var machine = Machine(plan: .test())
        let r12 = machine.cancel(explicitly: false)
        #expect(r12 == nil)
        start(&machine)
        let r13 = machine.cancel(explicitly: true)
        #expect(r13 != nil && r13?.completion == nil)
        #expect(machine.state == .cancelled)
        let r14 = machine.cancel(explicitly: false)
        #expect(r14 == nil)

        var processing = Machine(plan: .test())
        start(&processing)
        _ = completed(&processing, 1)
        let r15 = processing.cancel(explicitly: false)
        #expect(r15?.completion != nil)
        let r16 = processing.processingCompleted(attempt: 1, error: nil)
        #expect(r16 == nil)

        // An awaiting caller hears of an explicit cancel too, so it never waits forever.
        var awaited = Machine(plan: .test())
        _ = awaited.start(Self.awaited, plan: .test(), activity: nil)
        let r16b = awaited.cancel(explicitly: true)
        guard case HTTPError.cancelled? = r16b?.ended?.outcome.error else {
            Issue.record("expected a cancellation delivered to the awaiting caller")
            return
        }
    }

    @Test("after a cancel, late transport callbacks of that run are ignored")
    func lateCallbacksIgnored() {
        var machine = Machine(plan: .test())
        start(&machine)
        _ = machine.cancel(explicitly: true)
        #expect(!machine.isCurrent(1))
        let r17 = completed(&machine, 1)
        #expect(!r17)
        let r18 = machine.failed(attempt: 1, error: HTTPError.cancelled)
        #expect(r18 == nil)
        #expect(machine.state == .cancelled)
    }

    @Test("restart makes the running attempt stale")
    func restart() {
        var machine = Machine(plan: .test())
        start(&machine)
        let r19 = machine.restart(plan: .test(), activity: nil).attempt
        #expect(r19 == 2)
        let r20 = completed(&machine, 1)
        #expect(!r20)
        let r21 = completed(&machine, 2)
        #expect(r21)
        let r22 = machine.restart(plan: .test(), activity: nil).attempt
        #expect(r22 == 3)
        let r23 = machine.processingCompleted(attempt: 2, error: nil)
        #expect(r23 == nil)
        #expect(machine.state == .running)
    }

    @Test("a finished or cancelled cycle can start again")
    func startAgain() {
        var machine = Machine(plan: .test())
        start(&machine)
        _ = machine.failed(attempt: 1, error: HTTPError.cancelled)
        let r24 = start(&machine)
        #expect(r24 == 2)
        _ = machine.cancel(explicitly: false)
        let r25 = start(&machine)
        #expect(r25 == 3)
    }

    @Test("a retry waits, then sends a new attempt; a cancel during the wait wins")
    func retryWait() {
        var machine = Machine(plan: .test())
        start(&machine)
        _ = completed(&machine, 1)
        let waiting = machine.waitToRetry(after: 1)
        #expect(waiting != nil)
        #expect(machine.state == .waitingToRetry)
        #expect(machine.isActive)
        #expect(machine.counters.retried == 1)
        let next = machine.retry(after: 1)
        #expect(next == 2)
        #expect(machine.state == .running)

        _ = completed(&machine, 2)
        _ = machine.waitToRetry(after: 2)
        let cancel = machine.cancel(explicitly: false)
        #expect(cancel?.completion != nil)
        let late = machine.retry(after: 2)
        #expect(late == nil)
        #expect(machine.state == .cancelled)
    }

    @Test("a resend (authentication, 307) starts the next attempt of the same run, and is counted")
    func resend() {
        var machine = Machine(plan: .test())
        start(&machine)
        let run = machine.run
        _ = completed(&machine, 1)
        let next = machine.resend(after: 1, reason: .authentication)
        #expect(next == 2)
        #expect(machine.run == run)
        let stale = machine.resend(after: 1, reason: .redirect)
        #expect(stale == nil)
        _ = completed(&machine, 2)
        _ = machine.resend(after: 2, reason: .redirect)
        #expect(machine.counters == .init(retried: 0, authenticationFailures: 1, redirects: 1))
        // A new run counts from zero.
        _ = machine.restart(plan: .test(), activity: nil)
        #expect(machine.counters == .init())
    }

    @Test("the deadline ends only the run it was armed for")
    func deadline() {
        var machine = Machine(plan: .test())
        start(&machine)
        _ = machine.restart(plan: .test(), activity: nil)
        let old = machine.deadlinePassed(run: 1, error: HTTPError.deadlineExceeded(1))
        #expect(old == nil)
        let current = machine.deadlinePassed(run: 2, error: HTTPError.deadlineExceeded(1))
        #expect(current != nil)
        #expect(machine.state == .finished)
        let again = machine.deadlinePassed(run: 2, error: HTTPError.deadlineExceeded(1))
        #expect(again == nil)
    }

    // MARK: Resources

    @Test("the running state owns its transfer and feed: cancel, restart and the deadline hand them back")
    func runningOwnsItsResources() throws {
        for stop in ["cancel", "restart", "deadline"] {
            var machine = Machine(plan: .test())
            start(&machine)
            let transfer = RecordingTransfer()
            let feed = ContentFeed(handler: nil)
            let created1 = machine.transferCreated(attempt: 1, transfer: transfer, feed: feed, request: Self.request)
            #expect(created1)
            #expect(machine.feed(of: 1) === feed)
            #expect(machine.feed(of: 2) == nil)
            let actions: Machine.Actions?
            switch stop {
            case "cancel": actions = machine.cancel(explicitly: false)
            case "restart": actions = machine.restart(plan: .test(), activity: nil).1
            default: actions = machine.deadlinePassed(run: 1, error: HTTPError.deadlineExceeded(1))
            }
            let handedBack = try required(actions, stop)
            #expect(handedBack.transferToCancel as? RecordingTransfer === transfer, "\(stop)")
            #expect(handedBack.feedToAbandon === feed, "\(stop)")
            #expect(machine.feed(of: 1) == nil, "\(stop)")
        }
    }

    @Test("a transfer made for a stale attempt is refused, so it never starts")
    func staleTransferRefused() {
        var machine = Machine(plan: .test())
        start(&machine)
        _ = machine.cancel(explicitly: true)
        let created2 = machine.transferCreated(attempt: 1, transfer: RecordingTransfer(), feed: .implicit(), request: Self.request)
        #expect(!created2)
        start(&machine)
        let created3 = machine.transferCreated(attempt: 1, transfer: RecordingTransfer(), feed: .implicit(), request: Self.request)
        #expect(!created3)
        let created4 = machine.transferCreated(attempt: 2, transfer: RecordingTransfer(), feed: .implicit(), request: Self.request)
        #expect(created4)
    }

    @Test("processing keeps the feed until the run moves on; the content handler's error wins over the transport's")
    func processingOwnsTheFeed() throws {
        var machine = Machine(plan: .test())
        start(&machine)
        let transfer = RecordingTransfer()
        let feed = ContentFeed(handler: nil)
        _ = machine.transferCreated(attempt: 1, transfer: transfer, feed: feed, request: Self.request)
        let stopped = machine.consumerFailed(attempt: 1, error: HTTPError.alreadyRunning)
        #expect(stopped as? RecordingTransfer === transfer)
        #expect(machine.consumerFailed(attempt: 1, error: HTTPError.cancelled) == nil, "once")
        let completed = try required(machine.transportCompleted(attempt: 1, error: URLError(.cancelled)))
        #expect(completed.feed === feed)
        guard case HTTPError.alreadyRunning? = completed.outcome.error else {
            Issue.record("expected the content handler's error, got \(String(describing: completed.outcome.error))")
            return
        }
        // The wait for a retry hands the feed back; a cancel during processing would too.
        #expect(machine.waitToRetry(after: 1) === feed)
        var other = Machine(plan: .test())
        start(&other)
        _ = other.transferCreated(attempt: 1, transfer: transfer, feed: feed, request: Self.request)
        _ = other.transportCompleted(attempt: 1, error: nil)
        let cancel = try required(other.cancel(explicitly: true))
        #expect(cancel.feedToAbandon === feed && cancel.transferToCancel == nil)
    }

    @Test("a run counts in its activity once: begun at start, kept across a restart, ended with the run")
    func activity() throws {
        let activity = Activity()
        var machine = Machine(plan: .test())
        guard case .send(_, let begun) = machine.start(Self.completion, plan: .test(), activity: activity) else {
            Issue.record("start refused")
            return
        }
        #expect(begun.activityToBegin != nil)
        let restarted = machine.restart(plan: .test(), activity: activity).1
        #expect(restarted.activityToBegin == nil && restarted.activityToEnd == nil, "a restart keeps the run's count")
        let ended = try required(machine.cancel(explicitly: true))
        #expect(ended.activityToEnd as? Activity === activity)
        let again = machine.restart(plan: .test(), activity: activity).1
        #expect(again.activityToBegin as? Activity === activity, "a restart after the end counts again")
        _ = completed(&machine, machine.attempt)
        let finished = try required(machine.processingCompleted(attempt: machine.attempt, error: nil))
        #expect(finished.activityToEnd as? Activity === activity)
    }

    @Test("a restart keeps the last start's completion handler")
    func restartKeepsCompletion() throws {
        var machine = Machine(plan: .test())
        _ = machine.start(Self.awaited, plan: .test(), activity: nil)
        _ = machine.failed(attempt: 1, error: HTTPError.cancelled)
        let (attempt, _) = machine.restart(plan: .test(), activity: nil)
        _ = completed(&machine, attempt)
        let finished = try required(machine.processingCompleted(attempt: attempt, error: nil))
        #expect(finished.completion?.delivery == .awaited)
        #expect(finished.ended?.outcome.error == nil)
    }

    @Test("a run ends with the plan it began with: a restart's, not the start's; a refused start changes neither")
    func runEndsWithItsPlan() throws {
        let first = HTTPCycle.Plan.test(.main)
        let second = HTTPCycle.Plan.test(.inline)
        var machine = Machine(plan: .test())
        _ = machine.start(Self.completion, plan: first, activity: nil)
        guard case .rejectAlreadyRunning = machine.start(Self.awaited, plan: second, activity: nil) else {
            Issue.record("a second start while running was not refused")
            return
        }
        #expect(machine.plan.handlers === first.handlers)
        let cancelled = try required(machine.cancel(explicitly: false))
        #expect(cancelled.ended?.plan.handlers === first.handlers)
        #expect(cancelled.completion?.delivery == .queue)
        let (attempt, restarted) = machine.restart(plan: second, activity: nil)
        #expect(restarted.ended == nil, "a restart ends no run for the monitors: the cycle tells them")
        _ = completed(&machine, attempt)
        let finished = try required(machine.processingCompleted(attempt: attempt, error: nil))
        #expect(finished.ended?.plan.handlers === second.handlers)
    }

    @Test("a transfer's end hands out the attempt's outcome: the request as it went, the run's counters and time, the mapped error")
    func attemptOutcome() throws {
        let plan = HTTPCycle.Plan.test()
        var machine = Machine(plan: plan)
        var settings = plan.settings
        settings.solicited = true
        settings.retryableMethods = [.post]
        _ = machine.start(Self.completion, plan: HTTPCycle.Plan(settings: settings, handlers: .inline, began: plan.began), activity: nil)
        _ = machine.transportCompleted(attempt: 1, error: nil)
        let next = try required(machine.resend(after: 1, reason: .redirect))
        var redirected = Self.request
        redirected.setValue("1", forHTTPHeaderField: "X-Hop")
        _ = machine.transferCreated(attempt: next, transfer: RecordingTransfer(), feed: ContentFeed(handler: nil), request: redirected)
        let later = MonotonicTime(nanoseconds: plan.began.nanoseconds &+ 2_500_000_000)
        let ended = try required(machine.transportCompleted(attempt: next, error: URLError(.timedOut), at: later))
        #expect(ended.outcome.sent.value(forHTTPHeaderField: "X-Hop") == "1")
        #expect(ended.outcome.counters.redirects == 1)
        #expect(ended.outcome.solicited && ended.outcome.retryableMethods == [.post])
        #expect(ended.outcome.elapsed == 2.5)
        guard case HTTPError.transport(let error)? = ended.outcome.error else {
            Issue.record("expected the transport's error as HTTPError.transport, got \(String(describing: ended.outcome.error))")
            return
        }
        #expect(error.code == .timedOut)
        #expect(machine.transportCompleted(attempt: next, error: nil) == nil, "once")
    }
}


extension HTTPCycle.Plan {
    /// The plan of a run of a cycle that requests `/` and hands its calls to `handlers`, for the
    /// tests of the state machine.
    static func test(_ handlers: HandlerLine = .inline) -> HTTPCycle.Plan {
        HTTPCycle.Plan(settings: HTTPCycle.Settings(request: HTTPRequest(url: URL(fileURLWithPath: "/"))), handlers: handlers)
    }
}
