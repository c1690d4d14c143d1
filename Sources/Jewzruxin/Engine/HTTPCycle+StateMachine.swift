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

    /// The cycle's lifecycle as plain transitions, run under the cycle's lock.
    ///
    /// A *run* is what one start (or restart) does, from sending to the completion handler; it may
    /// send the request several times (retries, authentication, 307/308 redirects), each send being
    /// an *attempt* with a new number. Transport callbacks and timers carry the number they were
    /// made for and are ignored once it is stale. Only a transition that returns `true` (or a cancel
    /// action that notifies) leads to the completion handler of a run, which is what makes
    /// "completion exactly once" hold when cancel, restart, retries, the deadline and completion race.
    struct StateMachine: Sendable {
        private(set) var state: State = .idle
        private(set) var attempt = 0
        private(set) var run = 0

        enum StartAction: Equatable {
            /// Send the request of this attempt.
            case send(attempt: Int)
            /// The cycle is running; the new start is refused.
            case rejectAlreadyRunning
        }

        enum CancelAction: Equatable {
            /// Nothing was running: nothing to do.
            case none
            /// Stop the run; `notify` says whether its completion handler gets a cancellation error.
            case cancel(notify: Bool)
        }

        /// Whether a run is under way (its completion handler not reached yet).
        var isActive: Bool {
            switch state {
            case .running, .processing, .waitingToRetry: return true
            case .idle, .finished, .cancelled: return false
            }
        }

        mutating func start() -> StartAction {
            guard !isActive else { return .rejectAlreadyRunning }
            run += 1
            return .send(attempt: beginAttempt())
        }

        /// Starts a new run whatever the state: the current attempt, if any, becomes stale.
        mutating func restart() -> Int {
            run += 1
            return beginAttempt()
        }

        mutating func cancel(explicitly: Bool) -> CancelAction {
            guard isActive else { return .none }
            state = .cancelled
            return .cancel(notify: !explicitly)
        }

        /// Whether a transport callback of `attempt` belongs to the attempt in progress.
        func isCurrent(_ attempt: Int) -> Bool {
            state == .running && attempt == self.attempt
        }

        /// The transfer of `attempt` is over: go on to processing if it is still current.
        mutating func transportCompleted(attempt: Int) -> Bool {
            guard isCurrent(attempt) else { return false }
            state = .processing
            return true
        }

        /// The outcome of `attempt` calls for sending again at once (an authentication answer, a
        /// 307/308 redirect): the number of the new attempt, or `nil` if `attempt` is stale.
        mutating func resend(after attempt: Int) -> Int? {
            guard state == .processing, attempt == self.attempt else { return nil }
            return beginAttempt()
        }

        /// `attempt` failed and will be retried after a wait.
        mutating func waitToRetry(after attempt: Int) -> Bool {
            guard state == .processing, attempt == self.attempt else { return false }
            state = .waitingToRetry
            return true
        }

        /// The wait after `attempt` is over: the number of the retry attempt, or `nil` if the cycle
        /// was cancelled or restarted meanwhile.
        mutating func retry(after attempt: Int) -> Int? {
            guard state == .waitingToRetry, attempt == self.attempt else { return nil }
            return beginAttempt()
        }

        /// The run of `attempt` is over: finish if it is still current.
        mutating func processingCompleted(attempt: Int) -> Bool {
            guard state == .processing, attempt == self.attempt else { return false }
            state = .finished
            return true
        }

        /// The run of `attempt` failed before or while sending: finish if it is still current.
        mutating func failed(attempt: Int) -> Bool {
            guard isCurrent(attempt) else { return false }
            state = .finished
            return true
        }

        /// The deadline of `run` passed: finish it, whatever it was doing, if it is still active.
        mutating func deadlinePassed(run: Int) -> Bool {
            guard isActive, run == self.run else { return false }
            state = .finished
            return true
        }

        private mutating func beginAttempt() -> Int {
            attempt += 1
            state = .running
            return attempt
        }
    }
}
