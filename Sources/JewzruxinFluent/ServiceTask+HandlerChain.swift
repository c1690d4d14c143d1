import Foundation
import Jewzruxin

extension ServiceTask {
    /// What the request ended with, as the handlers see it.
    ///
    /// A class, not a struct: the chain hands it to each handler's step and plan, and a response
    /// is a few hundred bytes with a dozen references to copy each time, this one reference.
    final class Outcome: Sendable {
        /// The response, `nil` when none arrived (a transport error, an invalid URL, a cancel).
        let response: HTTPResponse?
        /// Why the task failed: the request's error, or the first one a handler threw.
        let error: (any Error)?

        init(response: HTTPResponse?, error: (any Error)?) {
            self.response = response
            self.error = error
        }

        /// This outcome failed with `error`, unless it has an error already: the first one stands.
        func failing(with error: (any Error)?) -> Outcome {
            guard self.error == nil, let error else { return self }
            return Outcome(response: response, error: error)
        }
    }

    /// Where a handler runs.
    enum Place: Sendable {
        /// Where this line puts it: a handler queue, or inline, on whatever thread moves the
        /// chain on (a user's inline handler, or the task's own quick bookkeeping, such as the
        /// async twins resuming their caller).
        case handlers(HandlerLine)
        /// On the session's worker queue: where a handler's reading of the response (parsing,
        /// decoding) runs before the handler itself, never a handler. A small body is read where
        /// the request ended instead, when the chain is moved on from there.
        case workerQueue
    }

    /// What a handler does with an outcome, in at most two stages.
    ///
    /// A handler's plan is made from the outcome wherever the chain happens to be, so making it
    /// must be quick: a look at the response, never a parse.
    enum Plan: Sendable {
        /// Nothing: the handler doesn't apply after all (a typed error handler whose error has no
        /// body). The chain moves on at once.
        case skip
        /// Runs this at the handler's place.
        case run(@Sendable () throws -> Void)
        /// Runs this off the handler queues (``Place/workerQueue``), then what it returns, if anything, at the
        /// handler's place: the decoding stays off the handler queue, and nothing reaches that
        /// queue when the reading finds nothing to give.
        case read(@Sendable () throws -> (@Sendable () throws -> Void)?)
    }

    /// A handler in the chain.
    struct Handler: Sendable {
        /// Which outcomes a handler runs for.
        enum Kind: Sendable {
            /// Only while the task has no error.
            case success
            /// Only once the task has an error.
            case failure
            /// Whatever the outcome.
            case always
        }

        let kind: Kind
        let place: Place
        /// The work for an outcome; an error either of its stages throws becomes the task's error,
        /// if it has none yet.
        let plan: @Sendable (Outcome) -> Plan

        /// A handler that reads the response as `plan` says.
        init(kind: Kind, place: Place, plan: @escaping @Sendable (Outcome) -> Plan) {
            self.kind = kind
            self.place = place
            self.plan = plan
        }

        /// A handler with nothing to read first: `body` runs at `place`.
        init(kind: Kind, place: Place, body: @escaping @Sendable (Outcome) throws -> Void) {
            self.init(kind: kind, place: place) { outcome in .run { try body(outcome) } }
        }

        func runs(for outcome: Outcome) -> Bool {
            switch kind {
            case .success: return outcome.error == nil
            case .failure: return outcome.error != nil
            case .always: return true
            }
        }
    }

    /// A handler to run now, with the outcome to give it.
    struct Step: Sendable {
        let handler: Handler
        let outcome: Outcome
    }

    /// The order in which handlers run, as plain transitions run under the task's lock.
    ///
    /// Handlers wait in the order they were added until the outcome is known; then they run one
    /// at a time, each only once the one before has returned, those that don't apply to the outcome
    /// being skipped. Every transition returns the next step to run, if any: since at most one step is
    /// out at a time, handlers never overlap, whatever queues they run on, and handlers added after
    /// the outcome join the end of the line.
    struct HandlerChain: Sendable {
        /// The outcome, once the request has ended.
        private(set) var outcome: Outcome?
        /// Handlers not run or skipped yet, in the order they were added.
        private var pending: [Handler] = []
        /// Whether a step is out: a handler is running or about to.
        private(set) var isRunning = false
        /// An error recorded before the outcome was known.
        private var earlyError: (any Error)?

        /// How many handlers wait.
        var pendingCount: Int { pending.count }

        /// Adds a handler at the end of the line.
        mutating func append(_ handler: Handler) -> Step? {
            // A chain has a success and an error handler at least: room for a few at once, not
            // one array and then a bigger one.
            if pending.capacity == 0 { pending.reserveCapacity(4) }
            pending.append(handler)
            return next()
        }

        /// The request ended; later calls change nothing.
        ///
        /// An error recorded before (``record(_:)``) fails a request that succeeded.
        mutating func finish(_ outcome: Outcome) -> Step? {
            guard self.outcome == nil else { return nil }
            self.outcome = outcome.failing(with: earlyError)
            return next()
        }

        /// Fails the task with `error`, unless it has an error already: the first error stands.
        mutating func record(_ error: any Error) {
            if let outcome {
                self.outcome = outcome.failing(with: error)
            } else if earlyError == nil {
                earlyError = error
            }
        }

        /// The running handler returned, or threw `error`.
        mutating func handlerEnded(throwing error: (any Error)?) -> Step? {
            isRunning = false
            if let error { record(error) }
            return next()
        }

        /// The next handler that applies, unless one is running or the outcome isn't known yet.
        private mutating func next() -> Step? {
            guard !isRunning, let outcome else { return nil }
            while !pending.isEmpty {
                let handler = pending.removeFirst()
                if handler.runs(for: outcome) {
                    isRunning = true
                    return Step(handler: handler, outcome: outcome)
                }
            }
            return nil
        }
    }
}
