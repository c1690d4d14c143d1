extension NativeExchange {
    /// The lifecycle of one transfer: made, resumed (queued in its pool, or handed to an idle
    /// worker), run by a worker, finished. Each state owns what a cancel has to reach (the doorbell of
    /// the idle worker it was handed to, the waker of the worker running it), and each event returns
    /// what to do about it, carried out by the exchange after its lock is released: no socket, pool,
    /// waker or transfer event is touched under the lock.
    ///
    /// The end is reported once, by whoever moves the machine to ``State/finished``: the cancel of a
    /// transfer never resumed, the pool that ends one it never ran (refused, withdrawn by a cancel,
    /// dropped at shutdown, no worker could be made), or the worker that ran it.
    ///
    /// Generic over the waker so that the transitions are tested without a pipe; the exchange uses
    /// `JewzruxinPrimitives.Waker`.
    struct StateMachine<Waker> {
        enum State {
            /// Made, not resumed.
            case initial
            /// Resumed: waiting in the pool's queue, or handed to an idle worker, whose doorbell a
            /// cancel rings so that it takes the transfer and ends it.
            case submitted(doorbell: Waker?, cancelled: Bool)
            /// A worker runs it; the worker's waker interrupts its socket waits.
            case running(waker: Waker, cancelled: Bool)
            /// The end is reported (or being reported).
            case finished
        }

        enum ResumeAction: Equatable {
            /// Give the transfer to its pool.
            case submit
            /// Resumed or cancelled already.
            case none
        }

        enum CancelAction {
            case none
            /// It was never resumed: report the cancellation, nothing else knows of the transfer.
            case report
            /// It was resumed and no worker runs it: take it out of the pool's queue, and if it was
            /// there report the cancellation; ring the doorbell, if any, of the worker it was handed
            /// to, which then ends it (``StartAction/finishCancelled``).
            case withdraw(ringing: Waker?)
            /// A worker runs it: wake its waker, which ends the worker's wait with a cancellation.
            case interrupt(Waker)
        }

        enum StartAction: Equatable {
            /// Run the exchange.
            case run
            /// It was cancelled while it waited: report the cancellation (and don't use a connection
            /// the request was sent on).
            case finishCancelled
            /// It has ended already: the worker moves on.
            case skip
        }

        private(set) var state = State.initial

        /// Whether the exchange was cancelled.
        var isCancelled: Bool {
            switch state {
            case .submitted(_, cancelled: true), .running(_, cancelled: true): true
            case .initial, .submitted, .running, .finished: false
            }
        }

        /// `resume()`: the first submits the transfer.
        mutating func resume() -> ResumeAction {
            guard case .initial = state else { return .none }
            state = .submitted(doorbell: nil, cancelled: false)
            return .submit
        }

        /// `cancel()`, from any thread, at any time; only the first counts.
        mutating func cancel() -> CancelAction {
            switch state {
            case .initial:
                state = .finished
                return .report
            case .submitted(let doorbell, cancelled: false):
                state = .submitted(doorbell: doorbell, cancelled: true)
                return .withdraw(ringing: doorbell)
            case .running(let waker, cancelled: false):
                state = .running(waker: waker, cancelled: true)
                return .interrupt(waker)
            case .submitted(_, cancelled: true), .running(_, cancelled: true), .finished:
                return .none
            }
        }

        /// The pool handed the transfer to an idle worker whose doorbell is `doorbell`.
        ///
        /// - Returns: Whether the submitting thread may send the request on the worker's connection:
        ///   not once it is cancelled (the worker then ends it without a word on the wire).
        mutating func handedOff(to doorbell: Waker) -> Bool {
            guard case .submitted(_, let cancelled) = state else { return false }
            state = .submitted(doorbell: doorbell, cancelled: cancelled)
            return !cancelled
        }

        /// A worker takes the transfer, with `waker` to interrupt it.
        mutating func start(with waker: Waker) -> StartAction {
            switch state {
            case .submitted(_, cancelled: false):
                state = .running(waker: waker, cancelled: false)
                return .run
            case .submitted(_, cancelled: true):
                state = .finished
                return .finishCancelled
            case .initial, .running, .finished:
                return .skip
            }
        }

        /// The pool ends the transfer without running it.
        ///
        /// - Returns: Whether to report the end: not when it was reported already, or a worker runs it.
        mutating func finishUnstarted() -> Bool {
            switch state {
            case .initial, .submitted:
                state = .finished
                return true
            case .running, .finished:
                return false
            }
        }

        /// The worker is done with the transfer; it reports the end next.
        ///
        /// - Returns: Whether a cancel saw the transfer running. Its wake-up of the worker's waker is
        ///   then on its way (it is carried out after the lock), and the worker must collect it before
        ///   the waker serves another transfer, or it would stop that one.
        mutating func finishRunning() -> Bool {
            guard case .running(_, let cancelled) = state else { return false }
            state = .finished
            return cancelled
        }
    }
}
