import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Where the interceptors sit in a run: adapting the request of an attempt between the request
// processors and the transport, and deciding about a failed attempt before the retry strategy does.
// Both happen in a task of their own (`InterceptionTask`), registered with the state machine before
// it runs: no interceptor is called under the cycle's lock or on a transport's thread, and a cancel,
// a restart or the deadline ends the run at once and cancels the task, whose answer is then stale.
extension HTTPCycle {
    /// A failed attempt, with what deciding about it needs.
    struct Failure: Sendable {
        var response: HTTPResponse
        var sent: HTTPRequest
        var error: any Error
        var counters: StateMachine.Counters
        var solicited: Bool
        var retryableMethods: Set<HTTPMethod>?
        /// How long the run had taken when the attempt failed, in seconds.
        var elapsed: TimeInterval

        /// The failure as an interceptor and the retry strategy see it.
        var attemptFailure: HTTPAttemptFailure {
            HTTPAttemptFailure(
                request: sent, response: response.hasHead ? response : nil, error: error, retriedCount: counters.retried,
                solicited: solicited, elapsed: elapsed, retryableMethods: retryableMethods)
        }
    }

    /// Sends `request` as `attempt` of the run of `plan`, adapted by `interceptors` first when there
    /// are any.
    func adaptAndTransmit(_ request: HTTPRequest, attempt: Int, plan: Plan, interceptors: [any HTTPInterceptor]) {
        guard !interceptors.isEmpty else {
            transmit(request, attempt: attempt, plan: plan)
            return
        }
        let task = InterceptionTask()
        guard locked.withLock({ $0.adaptationBegan(attempt: attempt, task: task) }) else { return }
        task.run(in: plan.taskContext) {
            var adapted = request
            do {
                for interceptor in interceptors {
                    adapted = try await interceptor.adapt(adapted, for: self)
                }
            } catch {
                // Ignored by the machine when the attempt went stale (a cancel, the deadline).
                self.fail(attempt: attempt, error: error)
                return
            }
            guard self.locked.withLock({ $0.isCurrent(attempt) }) else { return }
            self.transmit(adapted, attempt: attempt, plan: plan)
        }
    }

    /// Asks `interceptors`, in order, whether the failed `attempt` is sent again; when none decides,
    /// the session's retry strategy does.
    func askInterceptors(_ interceptors: [any HTTPInterceptor], about failure: Failure, attempt: Int) {
        let task = InterceptionTask()
        let began: TaskContext?? = locked.withLock { s in
            s.retryDecisionBegan(after: attempt, task: task) ? .some(s.plan.taskContext) : .none
        }
        guard let context = began else { return }
        let attemptFailure = failure.attemptFailure
        task.run(in: context) {
            var decision = HTTPRetryDecision.doNotRetry
            for interceptor in interceptors {
                decision = await interceptor.retry(self, after: attemptFailure)
                if case .doNotRetry = decision { continue }
                break
            }
            self.carryOut(Self.next(after: decision, about: failure), attempt: attempt, feed: nil)
        }
    }

    static func isCancelled(_ error: any Error) -> Bool {
        if case HTTPError.cancelled = error { return true }
        return false
    }
}

extension HTTPCycle.Failure {
    /// The failure of the attempt that ended as `outcome`, with `error`.
    init(_ outcome: HTTPCycle.AttemptOutcome, error: any Error) {
        self.init(
            response: outcome.response, sent: outcome.sent, error: error, counters: outcome.counters,
            solicited: outcome.solicited, retryableMethods: outcome.retryableMethods, elapsed: outcome.elapsed)
    }
}
