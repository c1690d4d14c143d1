extension HTTPCycle {
    /// Where a cycle is in its life.
    public enum State: Sendable, Hashable {
        /// Created, not started yet.
        case idle
        /// Preparing or sending the request, or receiving the response.
        case running
        /// The transfer is over; response processors are running.
        case processing
        /// The completion handler has been (or is being) called.
        case finished
        /// Cancelled; the completion handler ran with ``HTTPError/cancelled`` or, if the cancel was
        /// explicit, not at all.
        case cancelled
    }

    /// The cycle's lifecycle as plain transitions, run under the cycle's lock.
    ///
    /// Each run of the cycle (a start or a restart) gets a new `attempt` number; callbacks carrying an
    /// older number are ignored. A transition that returns `true` (or an action that notifies) is the
    /// only one that can lead to the completion handler for that run, which is what makes "completion
    /// exactly once" hold when cancel, restart and completion race.
    struct StateMachine: Sendable {
        private(set) var state: State = .idle
        private(set) var attempt = 0

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

        mutating func start() -> StartAction {
            switch state {
            case .running, .processing:
                return .rejectAlreadyRunning
            case .idle, .finished, .cancelled:
                return .send(attempt: beginAttempt())
            }
        }

        /// Starts a new attempt whatever the state: the current one, if any, becomes stale.
        mutating func restart() -> Int {
            beginAttempt()
        }

        mutating func cancel(explicitly: Bool) -> CancelAction {
            switch state {
            case .running, .processing:
                state = .cancelled
                return .cancel(notify: !explicitly)
            case .idle, .finished, .cancelled:
                return .none
            }
        }

        /// Whether a transport callback of `attempt` belongs to the run in progress.
        func isCurrent(_ attempt: Int) -> Bool {
            state == .running && attempt == self.attempt
        }

        /// The transfer of `attempt` is over: go on to processing if it is still current.
        mutating func transportCompleted(attempt: Int) -> Bool {
            guard isCurrent(attempt) else { return false }
            state = .processing
            return true
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

        private mutating func beginAttempt() -> Int {
            attempt += 1
            state = .running
            return attempt
        }
    }
}
