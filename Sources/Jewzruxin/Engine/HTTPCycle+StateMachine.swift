import Foundation
import JewzruxinPrimitives

extension HTTPCycle {
    /// Where a cycle is in its life.
    public enum State: Sendable, Hashable {
        /// Created, not started yet.
        case idle
        /// Preparing or sending the request, or receiving the response.
        case running
        /// The transfer is over; the outcome is being judged and response processors are running.
        case processing
        /// The last try failed; the cycle waits before resending.
        case waitingToRetry
        /// The completion handler has been (or is being) called.
        case finished
        /// Cancelled; the completion handler ran with ``HTTPError/cancelled`` or, if the cancel was
        /// explicit, not at all.
        case cancelled
    }

    /// The cycle's lifecycle: its states own what they have going (a transfer, a content feed, the
    /// activity count of the run), and each event returns what to do about it, carried out by the
    /// cycle after its lock is released.
    ///
    /// A *run* is what one start (or restart) does, from sending to the completion handler; it may
    /// send the request several times (retries, authentication, redirects), each send being an
    /// *attempt* with a new number. Transport callbacks and timers carry the number they were made
    /// for and are ignored once it is stale. Only an event that returns an ``Actions`` with a
    /// completion leads to the completion handler of a run, which is what makes "completion exactly
    /// once" hold when cancel, restart, retries, the deadline and completion race. Nothing here calls
    /// out: the machine is a plain value, tested without a socket.
    struct StateMachine: Sendable {
        /// What a state has going.
        enum Phase: Sendable {
            case idle
            /// Sending the request of the current attempt and receiving its response.
            case running(InFlight)
            /// The transfer of the current attempt is over; its feed is kept until the run moves on,
            /// so that a cancel or restart during the parse waits for it.
            case processing(ContentFeed)
            /// The attempt failed and the interceptors decide, in their task, whether it is sent
            /// again (still ``State/processing`` to the caller).
            case askingRetriers(ContentFeed, InterceptionTask)
            case waitingToRetry
            case finished
            case cancelled
        }

        /// The resources of the attempt in progress.
        ///
        /// Immutable, and a class: every event of the attempt matches the phase, and a match of an
        /// enum's payload copies it, here one reference rather than a request and a transfer.
        final class InFlight: Sendable {
            /// The transfer, once the transport has made it (`nil` while request processors run).
            let transfer: (any HTTPTransfer)?
            /// Feeds the body to the content handler.
            let feed: ContentFeed?
            /// The request of the attempt as it went: its own fields as the engine made them, those
            /// its transport completed kept beside (`HTTPTransport.completeHeaderFields(of:upload:)`).
            /// What a redirect or a challenge's answer starts from; its transport completes the
            /// fields again.
            let sentRequest: HTTPRequest?
            /// Why the content handler stopped the transfer, reported instead of the cancellation it
            /// causes.
            let consumerError: (any Error)?
            /// The task in which the interceptors adapt the request, before the transfer is made.
            let interception: InterceptionTask?

            init(
                transfer: (any HTTPTransfer)?, feed: ContentFeed?, sentRequest: HTTPRequest?,
                consumerError: (any Error)? = nil, interception: InterceptionTask? = nil
            ) {
                self.transfer = transfer
                self.feed = feed
                self.sentRequest = sentRequest
                self.consumerError = consumerError
                self.interception = interception
            }

            /// An attempt whose transfer the transport hasn't made yet.
            static let preparing = InFlight(transfer: nil, feed: nil, sentRequest: nil)
        }

        /// What the run has counted so far.
        struct Counters: Sendable, Equatable {
            var retried = 0
            var authenticationFailures = 0
            var redirects = 0
            /// Resent for a resumable download's whole body after a `416` (once at most).
            var restarts = 0
        }

        /// Side effects decided under the lock and carried out after it is released, so no transport
        /// call, timer, activity observer or handler ever runs while the cycle is locked.
        struct Actions: Sendable {
            var transferToCancel: (any HTTPTransfer)?
            var feedToAbandon: ContentFeed?
            var interceptionToCancel: InterceptionTask?
            var activityToBegin: (any RunActivity)?
            var activityToEnd: (any RunActivity)?
            /// The run ended so, and went by this plan: for its event monitors, and for the
            /// completion, if any.
            var ended: (outcome: Outcome, plan: Plan)?
            /// The progress sequences of the run that ended, to finish.
            var observersToFinish: [ProgressObserver] = []
            /// The completion handler to give ``ended`` to: `nil` after an explicit cancel, which
            /// nobody hears of unless a task awaits the run.
            var completion: Completion?
        }

        enum StartAction: Sendable {
            /// Send the request of this attempt, after carrying out the actions.
            case send(attempt: Int, Actions)
            /// The cycle is running; the new start is refused.
            case rejectAlreadyRunning
        }

        private(set) var phase = Phase.idle
        private(set) var attempt = 0
        private(set) var run = 0
        private(set) var counters = Counters()
        /// The handler of the last start; restarts keep it.
        private(set) var completion: Completion?
        /// What the current (or last) run goes by.
        private(set) var plan: Plan
        /// The response of the current or last run, as the cycle shows it (its head, then its
        /// outcome); the caller may change it until the next run begins.
        var response = HTTPResponse()
        /// Whether the last cancel was explicit.
        private(set) var explicitlyCanceling = false
        /// The progress sequences to feed until the run ends; those added before a run are kept for
        /// it.
        var progressObservers: [ProgressObserver] = []

        /// A machine whose cycle has not run, configured as `plan` says.
        init(plan: Plan) {
            self.plan = plan
        }
        /// The activity the run in progress counts in, ended with the run.
        private var activity: (any RunActivity)?

        // MARK: Reading

        var state: State {
            switch phase {
            case .idle: return .idle
            case .running: return .running
            case .processing, .askingRetriers: return .processing
            case .waitingToRetry: return .waitingToRetry
            case .finished: return .finished
            case .cancelled: return .cancelled
            }
        }

        /// Whether a run is under way (its completion handler not reached yet).
        var isActive: Bool {
            switch phase {
            case .running, .processing, .askingRetriers, .waitingToRetry: return true
            case .idle, .finished, .cancelled: return false
            }
        }

        /// Whether a transport callback of `attempt` belongs to the attempt in progress.
        func isCurrent(_ attempt: Int) -> Bool {
            guard case .running = phase else { return false }
            return attempt == self.attempt
        }

        /// The feed of `attempt`, if it is the attempt in progress and its transfer has begun.
        func feed(of attempt: Int) -> ContentFeed? {
            guard case .running(let inFlight) = phase, attempt == self.attempt else { return nil }
            return inFlight.feed
        }

        // MARK: Starting, cancelling, restarting

        /// A start: refused while a run is active; otherwise a new run whose first attempt is sent.
        mutating func start(_ completion: Completion, plan: Plan, activity: (any RunActivity)?) -> StartAction {
            guard !isActive else { return .rejectAlreadyRunning }
            self.completion = completion
            var actions = Actions()
            beginRun(plan, activity: activity, &actions)
            return .send(attempt: attempt, actions)
        }

        /// Starts a new run whatever the state, with the last start's handler: what the current run
        /// has going is stopped and its attempts become stale.
        mutating func restart(plan: Plan, activity: (any RunActivity)?) -> (attempt: Int, Actions) {
            var actions = Actions()
            release(&actions)
            beginRun(plan, activity: activity, &actions)
            return (attempt, actions)
        }

        /// A cancel: `nil` if nothing was running; otherwise what stops the run, with its completion
        /// handler when the cancel is not explicit or the caller awaits it.
        mutating func cancel(explicitly: Bool) -> Actions? {
            guard isActive else { return nil }
            var actions = Actions()
            explicitlyCanceling = explicitly
            end(.cancelled, Outcome(error: HTTPError.cancelled), &actions)
            if let completion, !explicitly || completion.delivery == .awaited { actions.completion = completion }
            return actions
        }

        // MARK: The attempt in progress

        /// The transport made the transfer of `attempt`: `false` if the attempt went stale meanwhile
        /// (then the transfer must never start).
        mutating func transferCreated(
            attempt: Int, transfer: any HTTPTransfer, feed: ContentFeed, request: HTTPRequest
        ) -> Bool {
            guard isCurrent(attempt) else { return false }
            phase = .running(InFlight(transfer: transfer, feed: feed, sentRequest: request))
            return true
        }

        /// The interceptors adapt the request of `attempt` in `task`: `false` if the attempt went stale
        /// meanwhile or its transfer was made already (then the task must not run).
        mutating func adaptationBegan(attempt: Int, task: InterceptionTask) -> Bool {
            guard case .running(let inFlight) = phase, attempt == self.attempt, inFlight.transfer == nil else { return false }
            phase = .running(InFlight(transfer: nil, feed: nil, sentRequest: nil, interception: task))
            return true
        }

        /// The content handler failed during `attempt`: the transfer to stop, or `nil` if the attempt
        /// is stale or failed already.
        mutating func consumerFailed(attempt: Int, error: any Error) -> (any HTTPTransfer)? {
            guard case .running(let inFlight) = phase, attempt == self.attempt, inFlight.consumerError == nil else { return nil }
            phase = .running(InFlight(
                transfer: inFlight.transfer, feed: inFlight.feed, sentRequest: inFlight.sentRequest, consumerError: error))
            return inFlight.transfer
        }

        /// The transfer of `attempt` is over: go on to processing if it is still current, with the
        /// attempt's feed and how it ended, as of `now`: the content handler's error, else the
        /// transport's (as the cycle reports it); the response so far, without its body, which the
        /// feed has.
        mutating func transportCompleted(
            attempt: Int, error: (any Error)?, at now: MonotonicTime = .now
        ) -> (feed: ContentFeed, outcome: AttemptOutcome)? {
            guard case .running(let inFlight) = phase, attempt == self.attempt else { return nil }
            let feed = inFlight.feed ?? .implicit()
            phase = .processing(feed)
            let outcome = AttemptOutcome(
                response: response, sent: inFlight.sentRequest ?? plan.settings.request,
                error: (inFlight.consumerError ?? error).map(HTTPCycle.mapTransportError), counters: counters,
                solicited: plan.settings.solicited, retryableMethods: plan.settings.retryableMethods,
                elapsed: Double(now.nanoseconds &- plan.began.nanoseconds) / 1e9)
            return (feed, outcome)
        }

        /// Why a resend is counted.
        enum ResendReason: Sendable {
            case authentication
            case redirect
            /// A resumable download starts again from the first byte.
            case restart
        }

        /// The outcome of `attempt` calls for sending again at once (an authentication answer, a
        /// redirect): the number of the new attempt, or `nil` if `attempt` is stale. The caller has
        /// done with the feed of `attempt`.
        mutating func resend(after attempt: Int, reason: ResendReason) -> Int? {
            guard case .processing = phase, attempt == self.attempt else { return nil }
            switch reason {
            case .authentication: counters.authenticationFailures += 1
            case .redirect: counters.redirects += 1
            case .restart: counters.restarts += 1
            }
            return beginAttempt()
        }

        /// `attempt` failed and the interceptors decide in `task` whether to send again: `false` if
        /// `attempt` is stale (then the task must not run).
        mutating func retryDecisionBegan(after attempt: Int, task: InterceptionTask) -> Bool {
            guard case .processing(let feed) = phase, attempt == self.attempt else { return false }
            phase = .askingRetriers(feed, task)
            return true
        }

        /// `attempt` failed and will be retried after a wait: the feed to abandon, or `nil` if
        /// `attempt` is stale.
        mutating func waitToRetry(after attempt: Int) -> ContentFeed? {
            guard let feed = judgedFeed(of: attempt) else { return nil }
            counters.retried += 1
            phase = .waitingToRetry
            return feed
        }

        /// The wait after `attempt` is over: the number of the retry attempt, or `nil` if the cycle
        /// was cancelled or restarted meanwhile.
        mutating func retry(after attempt: Int) -> Int? {
            guard case .waitingToRetry = phase, attempt == self.attempt else { return nil }
            return beginAttempt()
        }

        // MARK: Ending a run

        /// The run of `attempt` is over after processing: finish if it is still current.
        mutating func processingCompleted(attempt: Int, error: (any Error)?, download: URL? = nil) -> Actions? {
            guard judgedFeed(of: attempt) != nil else { return nil }
            return finish(error: error, download: download)
        }

        /// The run of `attempt` failed before or while sending: finish if it is still current.
        mutating func failed(attempt: Int, error: any Error) -> Actions? {
            guard isCurrent(attempt) else { return nil }
            return finish(error: error, download: nil)
        }

        /// The deadline of `run` passed: finish it, whatever it was doing, if it is still active.
        mutating func deadlinePassed(run: Int, error: any Error) -> Actions? {
            guard isActive, run == self.run else { return nil }
            return finish(error: error, download: nil)
        }

        // MARK: Helpers

        /// The feed of `attempt` while its outcome is judged (by the engine or the interceptors).
        private func judgedFeed(of attempt: Int) -> ContentFeed? {
            guard attempt == self.attempt else { return nil }
            switch phase {
            case .processing(let feed), .askingRetriers(let feed, _): return feed
            case .idle, .running, .waitingToRetry, .finished, .cancelled: return nil
            }
        }

        private mutating func finish(error: (any Error)?, download: URL?) -> Actions {
            var actions = Actions()
            end(.finished, Outcome(error: error, download: download), &actions)
            actions.completion = completion
            return actions
        }

        private mutating func beginRun(_ plan: Plan, activity: (any RunActivity)?, _ actions: inout Actions) {
            run += 1
            self.plan = plan
            response = HTTPResponse()
            explicitlyCanceling = false
            counters = Counters()
            // A restart of an active run keeps counting in the activity it began.
            if self.activity == nil, let activity {
                self.activity = activity
                actions.activityToBegin = activity
            }
            _ = beginAttempt()
        }

        private mutating func beginAttempt() -> Int {
            attempt += 1
            phase = .running(.preparing)
            return attempt
        }

        /// Stops what the current state has going.
        private mutating func release(_ actions: inout Actions) {
            switch phase {
            case .running(let inFlight):
                actions.transferToCancel = inFlight.transfer
                actions.feedToAbandon = inFlight.feed
                actions.interceptionToCancel = inFlight.interception
            case .processing(let feed):
                actions.feedToAbandon = feed
            case .askingRetriers(let feed, let task):
                actions.feedToAbandon = feed
                actions.interceptionToCancel = task
            case .idle, .waitingToRetry, .finished, .cancelled:
                break
            }
        }

        /// Stops the run and enters `phase`, the run having ended so.
        private mutating func end(_ phase: Phase, _ outcome: Outcome, _ actions: inout Actions) {
            release(&actions)
            self.phase = phase
            actions.ended = (outcome, plan)
            swap(&actions.observersToFinish, &progressObservers)
            actions.activityToEnd = activity
            activity = nil
        }
    }
}
