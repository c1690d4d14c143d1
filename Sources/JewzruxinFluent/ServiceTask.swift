import Foundation
import Jewzruxin

/// One request of a ``WebService`` and the handlers chained to process its response.
///
/// A task wraps one `HTTPCycle` (``cycle``) and sends it once. Handlers run after the response
/// has arrived, one at a time, in the order they were added, each on its queue: the one given as
/// the first argument (a `HandlerQueue`: `.main`, `.queue(someQueue)`, `.inline`…), else the
/// cycle's `HTTPCycle.handlerQueue`, else the session's `HTTPSession.handlerQueue`, which is its
/// delegate queue (the main queue by default) unless changed:
///
/// ```swift
/// WebService(baseURLString: "https://storelocator/")
///     .GET("/stores", parameters: ["zip": "15217"])
///     .response { (response: HTTPResponse, data: Data) in
///         // process the raw response
///     }
///     .responseJSON { json in
///         // process the response as JSON
///     }
///     .responseError { error in
///         // I am error
///     }
/// ```
///
/// - Success handlers (``response(_:_:)-(HandlerQueue?,_)``, ``responseJSON(_:_:)-(_,(JSON)->Void)``,
///   ``responseString(_:_:)-(_,(String)->Void)``…) run
///   while the task has no error. They may throw, or call ``throwError(_:)``: the task then fails
///   with that error, the success handlers after them are skipped and the error handlers run.
/// - Error handlers (``responseError(_:_:)-(_,(Error)->Void)`` and the others) run only when
///   the task failed: a transport error, a status the session treats as a failure (400 or more by
///   default), an invalid URL, a cancel, a response a validation refused (``validate()``), or an
///   error from a success handler.
/// - Handlers added after the response arrived run too, in order, after those already added.
/// - What a handler reads from the body — the `JSON` value, a `Decodable`, the text, an API's error
///   document — is parsed or decoded in the handler's turn, never on a handler queue: a body of up
///   to 16 KiB where the request ended (on the transport's thread, which costs less than a hop), a
///   larger one, or one read after a handler has run, on the session's `workerQueue`. Only the
///   handler's closure runs on its queue, so a large body doesn't hold the main queue up.
///
/// An inline handler (`HandlerQueue.inline`) costs no hop: it runs on the thread that moves the chain on,
/// where the request ended (a transport's thread), on the worker queue after a large body was read,
/// or, added once the task has finished with nothing to read, at once, inside the call that adds it.
/// Keep it short and never block in it.
///
/// The task starts when its first response handler is added, when ``resume()`` is called, or, with
/// neither, when the last reference to it goes, so that `service.POST("/x", parameters: p)` alone
/// sends the request, at the end of the statement. A chain written across statements is complete
/// when the request goes, wherever and however slowly it is written; a task kept with no handler
/// waits for one (or for ``resume()``).
/// The content handler shortcuts (``asJSON()``, ``downloadToFile(_:)``…) configure the cycle and
/// must come before the response handlers, right after the request method.
///
/// Every handler has an `async` twin: ``response()``, ``data()``, ``json()``, ``string()``,
/// ``decode(_:decoder:)``, ``image()``, and for the handlers that get the response too,
/// ``jsonWithResponse()``, ``stringWithResponse()``, ``decodeWithResponse(_:decoder:)`` and
/// ``imageWithResponse()``.
///
/// ## Topics
///
/// ### Processing a successful response
///
/// - ``response(_:_:)-(HandlerQueue?,_)``
/// - ``responseJSON(_:_:)-(_,(JSON)->Void)``
/// - ``responseJSON(_:decoder:_:)-(_,_,(T)->Void)``
/// - ``responseJSON(_:_:decoder:_:)-(_,_,_,(T)->Void)``
/// - ``responseString(_:_:)-(_,(String)->Void)``
/// - ``responseImage(_:_:)-(_,(ImageContent)->Void)``
///
/// ### Processing a successful response with the response too
///
/// A handler that gets the value with the `HTTPResponse` it was read from, to read a status or a
/// header beside it: write a closure of two parameters.
///
/// - ``responseJSON(_:_:)-(_,(JSON,HTTPResponse)->Void)``
/// - ``responseJSON(_:decoder:_:)-(_,_,(T,HTTPResponse)->Void)``
/// - ``responseJSON(_:_:decoder:_:)-(_,_,_,(T,HTTPResponse)->Void)``
/// - ``responseString(_:_:)-(_,(String,HTTPResponse)->Void)``
/// - ``responseImage(_:_:)-(_,(ImageContent,HTTPResponse)->Void)``
///
/// ### Validating the response
///
/// - ``validate()``
/// - ``validate(statusCode:)``
/// - ``validate(contentType:)``
/// - ``ResponseValidationError``
///
/// ### Handling errors
///
/// - ``responseError(_:_:)-(_,(Error)->Void)``
/// - ``responseError(_:_:)-(_,(HTTPResponse?,Error)->Void)``
/// - ``responseError(_:decoder:_:)``
/// - ``responseError(_:_:decoder:_:)``
/// - ``throwError(_:)``
///
/// ### Configuring the content handler
///
/// Call these before adding response handlers: they configure the cycle, which starts when the first
/// handler is added.
///
/// - ``asData()``
/// - ``asString()``
/// - ``asJSON()``
/// - ``asImage()``
/// - ``downloadToFile(_:)``
/// - ``downloadToStream(_:)``
/// - ``discardResponseContent()``
/// - ``contentHandler(_:)``
/// - ``configure(_:)``
/// - ``interceptors(_:)``
///
/// ### Awaiting the response
///
/// - ``response()``
/// - ``data()``
/// - ``json()``
/// - ``string()``
/// - ``decode(_:decoder:)``
/// - ``jsonWithResponse()``
/// - ``stringWithResponse()``
/// - ``decodeWithResponse(_:decoder:)``
/// - ``image()``
/// - ``imageWithResponse()``
/// - ``stream()``
/// - ``bytes``
/// - ``downloadProgress``
/// - ``uploadProgress``
///
/// ### Controlling the request
///
/// - ``cancel()``
/// - ``cycle``
/// - ``Option``
public final class ServiceTask: Sendable {
    /// The cycle that sends the request, for inspection (request, response, state); `nil` when the
    /// request could not be made (an invalid URL), the task then being failed from the start.
    ///
    /// Change it with ``configure(_:)``, which applies only while the request hasn't gone (until
    /// the first handler, ``resume()``, or the task's release). Cancel with ``cancel()`` rather than the cycle's own
    /// `cancel(explicitly: true)`, after which the handlers would never run.
    public let cycle: HTTPCycle?

    /// Where handlers without a queue run, unless the cycle says otherwise: the session's handler
    /// queue.
    let session: HTTPSession

    private let state: Locked<State>

    /// Orders, for ThreadSanitizer, a task resumed by a handler with what the handler's thread did
    /// before (`Locked.fence()`): the handler passes it before resuming, the
    /// task after its `await`.
    func fence() { state.fence() }

    private struct State {
        var lifecycle: Lifecycle
        var chain = HandlerChain()
        /// ``cancel()`` was called once the task had started.
        var cancelRequested = false
        /// Changes to the cycle running now (``configureCycle(_:)``, outside the lock): the task
        /// starts when the last one is done.
        var configuring = 0
        /// ``start()`` came while the cycle was being changed.
        var startsAfterConfiguring = false
        /// A Swift task awaits the outcome (an async twin was the first to ask for it): the cycle's
        /// progress handlers then don't wait for the main queue unless asked.
        var isAwaited = false
        /// The Swift task running the cycle in place of its own run (``start(driving:)``).
        var driver: Task<Void, Never>?
    }

    private enum Lifecycle {
        /// Not sent yet: the cycle may still be configured.
        case idle
        /// The cycle is running.
        case started
        /// The outcome is known.
        case finished
    }

    /// Makes the task of a cycle that is not started yet.
    init(cycle: HTTPCycle) {
        self.cycle = cycle
        self.session = cycle.session
        self.state = Locked(State(lifecycle: .idle))
    }

    /// A task released with no handler and not cancelled sends its request then: its chain, content
    /// shortcuts included, is complete, and nothing is left to wait for its outcome.
    deinit {
        guard state.withLock({ $0.lifecycle == .idle }), let cycle else { return }
        cycle.startInline { _, _ in }
    }

    /// Sends the request now, if it hasn't gone, without a handler: for a task kept (in a property,
    /// say) whose handlers come later, or never.
    ///
    /// A task starts on its own when its first handler is added, or when it is released with none;
    /// call this to start it before either.
    /// - Returns: This task, to chain handlers on.
    @discardableResult
    public func resume() -> Self {
        start()
        return self
    }

    /// Makes a task failed from the start with `error`: only its error handlers will run.
    init(failure error: any Error, session: HTTPSession) {
        self.cycle = nil
        self.session = session
        var state = State(lifecycle: .finished)
        _ = state.chain.finish(Outcome(response: nil, error: error))
        self.state = Locked(state)
    }

    // MARK: Controlling the task

    /// Cancels the request; error handlers get `HTTPError.cancelled`.
    ///
    /// A task not started yet never sends its request. Cancelling a task whose outcome is known
    /// changes nothing.
    public func cancel() {
        let (step, cancelsCycle) = state.withLock { s -> (Step?, Bool) in
            switch s.lifecycle {
            case .idle:
                s.lifecycle = .finished
                return (s.chain.finish(Outcome(response: nil, error: HTTPError.cancelled)), false)
            case .started:
                s.cancelRequested = true
                return (nil, true)
            case .finished:
                return (nil, false)
            }
        }
        if cancelsCycle {
            cycle?.cancel(explicitly: false)
            state.withLock { $0.driver }?.cancel()
        }
        // Called by the user, from anywhere: the handlers go to their queues.
        run(stage(of: step), on: nil)
    }

    /// Fails the task with `error`: the success handlers still to run are skipped and the error
    /// handlers run with it.
    ///
    /// Call it from a success handler that can't process the response, as a custom handler does
    /// when a model can't be made from the JSON:
    ///
    /// ```swift
    /// extension ServiceTask {
    ///     func responseAsStoresModels(_ handler: @escaping @Sendable ([StoreModel]) -> Void) -> Self {
    ///         responseJSON { json in
    ///             if let models = StoreModel.models(from: json) {
    ///                 handler(models)
    ///             } else {
    ///                 self.throwError(StoreError.modelSerializationFailure)
    ///             }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The first error stands: when the task has failed already, this changes nothing.
    /// - Parameter error: Why the response can't be processed.
    public func throwError(_ error: any Error) {
        state.withLock { $0.chain.record(error) }
    }

    // MARK: The chain

    /// Sends the request, unless it was sent, cancelled or could not be made.
    func start(awaited: Bool = false) {
        let starts = state.withLock { s -> Bool in
            if awaited { s.isAwaited = true }
            guard s.lifecycle == .idle else { return false }
            guard s.configuring == 0 else {
                // The change being made goes with the request: the last one to end starts it.
                s.startsAfterConfiguring = true
                return false
            }
            s.lifecycle = .started
            return true
        }
        guard starts, let cycle else { return }
        // The cycle keeps its completion handler after it ran: holding the task through a box
        // emptied then lets a finished task go.
        let box = Locked<ServiceTask?>(self)
        // The handlers are moved to their queues by the task, from the thread the run ends on: one
        // hop to the handler queue, not one to the delegate queue then another.
        cycle.startInline(awaited: state.withLock { $0.isAwaited }) { cycle, error in
            // A resumable download's failure carries what to resume from.
            box.withLock { $0.take() }?.finish(response: cycle.response, error: error.map(cycle.interrupted))
        }
        // A cancel that came between the change of state and the start found nothing to cancel.
        if state.withLock({ $0.cancelRequested }) { cycle.cancel(explicitly: false) }
    }

    /// Sends the request by running `drive` in a Swift task of its own, in place of the cycle's own
    /// run: the outcome is the error `drive` returns, `nil` for none, with the cycle's response.
    /// For a run made of several of the cycle's (an event stream that reconnects). A ``cancel()``
    /// cancels the cycle's run and the Swift task; the outcome is then `HTTPError.cancelled`.
    func start(driving drive: @escaping @Sendable (HTTPCycle) async -> (any Error)?) {
        let starts = state.withLock { s -> Bool in
            guard s.lifecycle == .idle else { return false }
            s.lifecycle = .started
            return true
        }
        guard starts, let cycle else { return }
        let box = Locked<ServiceTask?>(self)
        let driver = Task {
            var error = await drive(cycle)
            if Task.isCancelled || error is CancellationError { error = HTTPError.cancelled }
            box.withLock { $0.take() }?.finish(response: cycle.response, error: error)
        }
        let cancelled = state.withLock { s -> Bool in
            s.driver = driver
            return s.cancelRequested
        }
        if cancelled { driver.cancel() }
    }

    /// Changes the cycle before the request goes: its timeouts, content handler, processors…
    ///
    /// ```swift
    /// service.GET("/report")
    ///     .configure { $0.timeoutIntervalForResource = 30 }
    ///     .responseJSON { json in }
    /// ```
    ///
    /// Call it before adding response handlers; once the task has started it changes nothing.
    /// `change` runs at once, on the calling thread, with the task locked: it must not call the
    /// task's own methods.
    /// - Parameter change: What to do to the cycle.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func configure(_ change: (HTTPCycle) -> Void) -> Self {
        configureCycle(change)
        return self
    }

    /// Gives this request its own interceptors, in place of the service's or the session's; like
    /// ``configure(_:)``, only before the request goes.
    ///
    /// ```swift
    /// service.GET("/report").interceptors(service.session.interceptors + [signing]).responseJSON { … }
    /// ```
    ///
    /// - Parameter interceptors: The request's interceptors (see `HTTPInterceptor`); `nil` goes back
    ///   to the session's.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func interceptors(_ interceptors: [any HTTPInterceptor]?) -> Self {
        configureCycle { $0.interceptors = interceptors }
        return self
    }

    /// Changes the cycle before it starts; after that, does nothing.
    ///
    /// `change` runs without the task's lock, as user code must (it may use the task, even
    /// configure it again); a start that comes meanwhile, from another thread, waits for it.
    func configureCycle(_ change: (HTTPCycle) -> Void) {
        let configures = state.withLock { s -> Bool in
            guard s.lifecycle == .idle, cycle != nil else { return false }
            s.configuring += 1
            return true
        }
        guard configures, let cycle else { return }
        change(cycle)
        let starts = state.withLock { s -> Bool in
            s.configuring -= 1
            guard s.configuring == 0, s.startsAfterConfiguring else { return false }
            s.startsAfterConfiguring = false
            return true
        }
        if starts { start() }
    }

    /// Adds a handler and, when `starting`, starts the task if it isn't started; `awaited` when a
    /// Swift task awaits the handler (an async twin).
    ///
    /// A validation (``validate()``) is added without starting: it may come before the content
    /// handler shortcuts, which configure the cycle until the first handler starts it.
    @discardableResult
    func add(_ handler: Handler, starting: Bool = true, awaited: Bool = false) -> Self {
        let step = state.withLock { $0.chain.append(handler) }
        // Called by the user, from anywhere: a handler never runs before `add` returns.
        run(stage(of: step), on: nil)
        if starting { start(awaited: awaited) }
        return self
    }

    /// Adds a handler with nothing to read first, run on `queue`, or on the cycle's handler queue
    /// when `queue` is `nil`.
    @discardableResult
    func add(_ kind: Handler.Kind, _ queue: HandlerQueue?, _ body: @escaping @Sendable (Outcome) throws -> Void) -> Self {
        add(Handler(kind: kind, place: place(queue), body: body))
    }

    /// Adds a handler that reads the response as `plan` says before its closure runs on `queue`,
    /// or on the cycle's handler queue when `queue` is `nil`.
    @discardableResult
    func addReader(_ kind: Handler.Kind, _ queue: HandlerQueue?, _ plan: @escaping @Sendable (Outcome) -> Plan) -> Self {
        add(Handler(kind: kind, place: place(queue), plan: plan))
    }

    /// Where a handler added with `queue` runs: there, else where the cycle's handlers run (its
    /// handler queue, else the session's), as they are now.
    private func place(_ queue: HandlerQueue?) -> Place {
        .handlers(line(queue))
    }

    /// How calls reach `queue`, or the cycle's handler queue when `queue` is `nil`.
    func line(_ queue: HandlerQueue?) -> HandlerLine {
        session.handlerLine(for: queue ?? cycle?.handlerQueue ?? session.handlerQueue)
    }

    private func finish(response: HTTPResponse, error: (any Error)?) {
        let outcome = Outcome(response: response.hasHead ? response : nil, error: error)
        let step = state.withLock { s -> Step? in
            s.lifecycle = .finished
            return s.chain.finish(outcome)
        }
        run(stage(of: step), on: .runEnd)
    }

    /// A piece of the chain's work and where it runs: a handler's closure, or the reading of the
    /// response for one.
    private struct Stage: Sendable {
        let place: Place
        /// For a reading: the size of the body it reads.
        var bytes = 0
        /// Does the work; returns the stage after it, if any.
        let work: @Sendable () -> Stage?
    }

    /// What the thread moving the chain on is known to be running.
    private enum Here {
        /// An operation or block of a handler queue, which this line puts calls on.
        case handlers(HandlerLine)
        /// An operation of the session's worker queue.
        case workerQueue
        /// The end of the cycle's run: a transport's thread or the worker queue; or, after the
        /// run's progress calls or download handler, the cycle's handler queue, not known as such
        /// here (a handler of the chain then goes through it once more).
        case runEnd
    }

    /// The largest body read where the cycle's run ended rather than on the worker queue: parsing
    /// this much JSON takes less time than handing the work to another thread (measured with
    /// `benchmarks throughput-instructions` and `benchmarks json`), and holds a transport's thread
    /// for a few tens of microseconds at most.
    package static let inlineReadLimit = 16 * 1024

    /// The first stage of `first`, the step the chain handed out, or of the steps after it when a
    /// handler's plan is to do nothing; `nil` when the chain has nothing to run now.
    private func stage(of first: Step?) -> Stage? {
        var step = first
        while let current = step {
            switch current.handler.plan(current.outcome) {
            case .skip:
                step = state.withLock { $0.chain.handlerEnded(throwing: nil) }
            case .run(let body):
                return Stage(place: current.handler.place) { self.end(running: body) }
            case .read(let read):
                return Stage(place: .workerQueue, bytes: current.outcome.response?.data.count ?? 0) {
                    let deliver: (@Sendable () throws -> Void)?
                    do {
                        deliver = try read()
                    } catch {
                        return self.ended(throwing: error)
                    }
                    guard let deliver else { return self.ended(throwing: nil) }
                    return Stage(place: current.handler.place) { self.end(running: deliver) }
                }
            }
        }
        return nil
    }

    /// Runs a handler's closure, here and now, and returns the stage after it.
    private func end(running body: () throws -> Void) -> Stage? {
        var thrown: (any Error)?
        do {
            try body()
        } catch {
            thrown = error
        }
        return ended(throwing: thrown)
    }

    /// The running handler is done, having thrown `error`: the stage of the next one.
    private func ended(throwing error: (any Error)?) -> Stage? {
        stage(of: state.withLock { $0.chain.handlerEnded(throwing: error) })
    }

    /// Runs `first` and the stages after it, each on its queue: here and now when that is `here`,
    /// what the calling thread is known to be running (`nil` when unknown), otherwise in a new
    /// operation or block of that queue. A small body is read here at the end of the run, off
    /// every handler queue, rather than on the worker queue (see ``inlineReadLimit``).
    ///
    /// Running the next stage in the operation or block that ran the one before keeps the order:
    /// the chain hands out one step at a time, and a step's stages follow one another, whatever
    /// queues they run on.
    private func run(_ first: Stage?, on here: Here?) {
        var stage = first
        while let current = stage {
            switch current.place {
            case .handlers(let line):
                if line.isInline {
                    stage = current.work()
                } else if case .handlers(let running)? = here, running.runs(on: line) {
                    stage = current.work()
                } else {
                    line.enqueue { self.run(current.work(), on: .handlers(line)) }
                    return
                }
            case .workerQueue:
                switch here {
                case .workerQueue?:
                    stage = current.work()
                case .runEnd? where current.bytes <= Self.inlineReadLimit:
                    stage = current.work()
                default:
                    session.workerQueue.addOperation { self.run(current.work(), on: .workerQueue) }
                    return
                }
            }
        }
    }
}
