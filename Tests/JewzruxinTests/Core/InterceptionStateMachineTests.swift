import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transitions the interceptors add, on their own, no network: an attempt whose request is
/// being adapted, and a failed attempt the interceptors decide about, each owning its task so that
/// a cancel, a restart or the deadline stops it and ends the run once.
@Suite("Cycle state machine: interceptors")
struct InterceptionStateMachineTests {
    typealias Machine = HTTPCycle.StateMachine

    static let completion = HTTPCycle.Completion(delivery: .queue) { _, _ in }
    static let request = HTTPRequest(url: URL(fileURLWithPath: "/"), method: .get)

    /// A machine whose first attempt is running, not sent yet.
    private func started() -> Machine {
        var machine = Machine(plan: .test())
        _ = machine.start(Self.completion, plan: .test(), activity: nil)
        return machine
    }

    /// A machine whose first attempt has failed and is being judged, with its feed.
    private func judging() -> (Machine, ContentFeed) {
        var machine = started()
        let feed = ContentFeed(handler: nil)
        _ = machine.transferCreated(attempt: 1, transfer: NullTransfer(), feed: feed, request: Self.request)
        _ = machine.transportCompleted(attempt: 1, error: URLError(.timedOut))
        return (machine, feed)
    }

    @Test("adapting: the attempt stays running and current; its transfer is made after")
    func adaptingThenTransfer() {
        var machine = started()
        let task = InterceptionTask()
        let began = machine.adaptationBegan(attempt: 1, task: task)
        #expect(began)
        #expect(machine.state == .running)
        #expect(machine.isCurrent(1))
        let created = machine.transferCreated(attempt: 1, transfer: NullTransfer(), feed: .implicit(), request: Self.request)
        #expect(created)
        // Once the transfer is made, the attempt has no adaptation to begin any more.
        let late = machine.adaptationBegan(attempt: 1, task: InterceptionTask())
        #expect(!late)
    }

    @Test("adapting a stale attempt is refused")
    func staleAdaptation() {
        var machine = started()
        _ = machine.cancel(explicitly: true)
        let began = machine.adaptationBegan(attempt: 1, task: InterceptionTask())
        #expect(!began)
        _ = machine.start(Self.completion, plan: .test(), activity: nil)
        let old = machine.adaptationBegan(attempt: 1, task: InterceptionTask())
        #expect(!old)
        let current = machine.adaptationBegan(attempt: 2, task: InterceptionTask())
        #expect(current)
    }

    @Test("a cancel, a restart or the deadline while adapting hands the task back and ends the run once",
          arguments: ["cancel", "restart", "deadline"])
    func stopWhileAdapting(stop: String) {
        var machine = started()
        let task = InterceptionTask()
        _ = machine.adaptationBegan(attempt: 1, task: task)
        let actions: Machine.Actions?
        switch stop {
        case "cancel": actions = machine.cancel(explicitly: false)
        case "restart": actions = machine.restart(plan: .test(), activity: nil).1
        default: actions = machine.deadlinePassed(run: 1, error: HTTPError.deadlineExceeded(1))
        }
        #expect(actions?.interceptionToCancel === task)
        #expect((actions?.completion != nil) == (stop != "restart"))
        // What the adapter's task reports afterwards belongs to a stale attempt.
        #expect(!machine.isCurrent(1))
        #expect(machine.failed(attempt: 1, error: HTTPError.cancelled) == nil)
        #expect(machine.cancel(explicitly: false) == nil || stop == "restart")
    }

    @Test("an adapter's failure ends the run with its error, once")
    func adapterFails() {
        var machine = started()
        _ = machine.adaptationBegan(attempt: 1, task: InterceptionTask())
        let failed = machine.failed(attempt: 1, error: HTTPError.alreadyRunning)
        #expect(failed?.completion != nil)
        #expect(machine.state == .finished)
        #expect(machine.failed(attempt: 1, error: HTTPError.alreadyRunning) == nil)
    }

    @Test("asking the retriers: still processing; a retry waits and sends the next attempt")
    func retriersRetry() {
        var (machine, feed) = judging()
        let task = InterceptionTask()
        let began = machine.retryDecisionBegan(after: 1, task: task)
        #expect(began)
        #expect(machine.state == .processing)
        #expect(machine.isActive)
        #expect(machine.waitToRetry(after: 1) === feed)
        #expect(machine.counters.retried == 1)
        #expect(machine.retry(after: 1) == 2)
    }

    @Test("asking the retriers: a decision not to retry finishes the run once")
    func retriersGiveUp() {
        var (machine, _) = judging()
        _ = machine.retryDecisionBegan(after: 1, task: InterceptionTask())
        let done = machine.processingCompleted(attempt: 1, error: HTTPError.alreadyRunning)
        #expect(done?.completion != nil)
        #expect(machine.state == .finished)
        #expect(machine.processingCompleted(attempt: 1, error: nil) == nil)
        #expect(machine.waitToRetry(after: 1) == nil)
    }

    @Test("a cancel, a restart or the deadline while the retriers decide hands back their task and the feed",
          arguments: ["cancel", "restart", "deadline"])
    func stopWhileAskingRetriers(stop: String) {
        var (machine, feed) = judging()
        let task = InterceptionTask()
        _ = machine.retryDecisionBegan(after: 1, task: task)
        let actions: Machine.Actions?
        switch stop {
        case "cancel": actions = machine.cancel(explicitly: false)
        case "restart": actions = machine.restart(plan: .test(), activity: nil).1
        default: actions = machine.deadlinePassed(run: 1, error: HTTPError.deadlineExceeded(1))
        }
        #expect(actions?.interceptionToCancel === task)
        #expect(actions?.feedToAbandon === feed)
        #expect((actions?.completion != nil) == (stop != "restart"))
        // The retriers' late answer finds nothing to act on.
        #expect(machine.waitToRetry(after: 1) == nil)
        #expect(machine.processingCompleted(attempt: 1, error: nil) == nil)
    }

    @Test("the retriers are asked only about the attempt being judged")
    func staleRetryDecision() {
        var machine = started()
        let early = machine.retryDecisionBegan(after: 1, task: InterceptionTask())
        #expect(!early, "not while running")
        var (judged, _) = judging()
        let wrong = judged.retryDecisionBegan(after: 2, task: InterceptionTask())
        #expect(!wrong)
        let once = judged.retryDecisionBegan(after: 1, task: InterceptionTask())
        #expect(once)
        let twice = judged.retryDecisionBegan(after: 1, task: InterceptionTask())
        #expect(!twice)
    }

    @Test("an interception task cancelled before it runs is cancelled as it starts")
    func cancelBeforeRun() async {
        let task = InterceptionTask()
        task.cancel()
        let sawCancel = await withHandover { (continuation: Handover<Bool, Never>) in
            task.run {
                // Ends at once when the task is cancelled (as it should be), else after 10 s.
                try? await Task.sleep(for: .seconds(10))
                continuation.resume(returning: Task.isCancelled)
            }
        }
        #expect(sawCancel)
        #expect(task.isCancelled)
    }
}

/// A transfer that does nothing.
private final class NullTransfer: HTTPTransfer {
    func resume() {}
    func cancel() {}
}
