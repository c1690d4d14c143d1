import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinPrimitives

/// One HTTP request and its response, sent over an ``HTTPSession``.
///
/// Create a cycle, configure its ``request``, then ``start(_:)`` it; or let a convenience method such
/// as ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``
/// do both. The completion handler runs exactly once per start, on the cycle's ``handlerQueue``
/// (the session's delegate queue by default), unless the cycle is cancelled explicitly. In between, the cycle may send the request more than
/// once: to retry after a timeout, a 408 or a 503 (``RetryPolicy``), to answer an authentication
/// challenge (``authentications``), or to follow a 307/308 redirect with its body. A finished or
/// cancelled cycle can be started again, and ``restart()`` resends the same request at any time.
public final class HTTPCycle: Sendable {
    /// Called when a run of the cycle ends: `error` is `nil` on success.
    public typealias CompletionHandler = @Sendable (HTTPCycle, (any Error)?) -> Void

    /// The session that runs this cycle.
    public let session: HTTPSession

    let locked: Locked<Guarded>

    /// The handler of a start, and where it runs.
    struct Completion: Sendable {
        let delivery: Delivery
        let handler: CompletionHandler
    }

    /// Where a run's completion handler runs, as the start that began the run asked: the one value
    /// that decides it (``HTTPCycle/deliver(_:to:plan:)`` carries it out).
    enum Delivery: Sendable, Equatable {
        /// On the run's handler queue (the cycle's ``handlerQueue``, else the session's): ``start(_:)``.
        case queue
        /// On the main queue, for a handler isolated to the main actor: ``start(_:_:)``.
        case mainActor
        /// Where the run ends, without a hop: for a layer that moves its own handlers to their
        /// queues (the fluent layer).
        case inline
        /// A task awaits the run (``start()``, ``stream()``): it resumes where the run ends. It is
        /// told of an explicit cancel too, so that it never waits forever, and the run's progress and
        /// download handlers don't go to the main queue unless asked to (see ``Plan/handlers``).
        case awaited
    }

    /// What a run goes by, fixed when it begins (a start or a restart), kept by the state machine.
    struct Plan: Sendable {
        /// Where the run's handler calls go: its progress and download handlers, and its completion
        /// when ``Delivery/queue``.
        var handlers: HandlerDelivery
        /// What hears the run's events: the session's monitors when it began.
        var monitors: [any HTTPEventMonitor] = []
        /// When the run began, for the retry strategy's time limit.
        var began = MonotonicTime(nanoseconds: 0)
        /// The task-local values of the run's caller, for its interceptors; `nil` when it has none
        /// or began outside a task.
        var taskContext: TaskContext?

        /// Calls made where they come, heard by no monitor: before a cycle's first run.
        static let inline = Plan(handlers: .inline)
    }

    /// What the cycle's lock guards: its lifecycle, what the caller configured, and the response.
    struct Guarded: Sendable {
        var machine = StateMachine()
        var settings: Settings
        var response = HTTPResponse()
        var explicitlyCanceling = false
        /// The progress sequences to feed until the run ends.
        var progressObservers: [ProgressObserver] = []
    }

    /// What the caller configured: read when a run or an attempt begins.
    struct Settings: Sendable {
        /// The request as configured, after the request processors.
        var request: HTTPRequest
        var identifier = ""
        var solicited = false
        var requestProcessors: [HTTPProcessor]?
        var responseProcessors: [HTTPProcessor]?
        var authentications: [any HTTPAuthenticator]?
        var interceptors: [any HTTPInterceptor]?
        var retryableMethods: Set<HTTPMethod>?
        var timeoutIntervalForResource: TimeInterval?
        var contentHandler: (any ContentHandler)?
        var uploadSource: UploadSource?
        var didSendBodyData: DidSendBodyDataHandler?
        var didWriteData: DidWriteBodyDataHandler?
        /// Whether a progress handler is set: its calls go to the handler queue.
        var reportsProgress: Bool { didSendBodyData != nil || didWriteData != nil }
        var download: Download?
        var handlerQueue: HandlerQueue?
    }

    /// Creates a cycle without starting it.
    ///
    /// - Parameters:
    ///   - requestURL: The URL to request.
    ///   - requestMethod: The method, `GET` by default.
    ///   - session: The session to run on, ``HTTPSession/default`` by default.
    public init(requestURL: URL, requestMethod: HTTPMethod = .get, session: HTTPSession = .default) {
        self.session = session
        self.locked = Locked(Guarded(
            settings: Settings(request: HTTPRequest(url: requestURL, method: requestMethod))))
    }

    // MARK: Properties

    /// The request to send. Changes apply to the next start; request processors update it.
    public var request: HTTPRequest {
        get { locked.withLock { $0.settings.request } }
        set { locked.withLock { $0.settings.request = newValue } }
    }

    /// The response of the current or last run; empty until one arrives.
    ///
    /// Setting it changes what the cycle shows until the next run begins, as the seed's
    /// `cycle.response.textReadEncoding = …` does.
    public var response: HTTPResponse {
        get { locked.withLock { $0.response } }
        set { locked.withLock { $0.response = newValue } }
    }

    /// Where the cycle is in its life.
    public var state: State { locked.withLock { $0.machine.state } }

    /// A name for the cycle, free for the caller (a service can find its cycles by it).
    public var identifier: String {
        get { locked.withLock { $0.settings.identifier } }
        set { locked.withLock { $0.settings.identifier = newValue } }
    }

    /// Whether the user asked for this request directly (a pull to refresh, a button): such a cycle
    /// is resent after any error, without limit, until a response succeeds or it is cancelled.
    public var solicited: Bool {
        get { locked.withLock { $0.settings.solicited } }
        set { locked.withLock { $0.settings.solicited = newValue } }
    }

    /// Whether the last cancel was explicit (its completion handler is then not called).
    public var explicitlyCanceling: Bool { locked.withLock { $0.explicitlyCanceling } }

    /// How many times the current run has been resent after a failure.
    public var retriedCount: Int { locked.withLock { $0.machine.counters.retried } }

    /// Where this cycle's handlers run (completion, progress, download); `nil` uses the session's
    /// ``HTTPSession/handlerQueue``. A change applies to the runs that begin after it.
    ///
    /// ``HandlerQueue/inline`` runs them where each event happens, without a hop: the fastest
    /// choice, for handlers that are short and never block.
    public var handlerQueue: HandlerQueue? {
        get { locked.withLock { $0.settings.handlerQueue } }
        set { locked.withLock { $0.settings.handlerQueue = newValue } }
    }

    /// Processors that prepare the request; `nil` uses the session's.
    public var requestProcessors: [HTTPProcessor]? {
        get { locked.withLock { $0.settings.requestProcessors } }
        set { locked.withLock { $0.settings.requestProcessors = newValue } }
    }

    /// Processors that turn the response's data into its object; `nil` uses the session's.
    public var responseProcessors: [HTTPProcessor]? {
        get { locked.withLock { $0.settings.responseProcessors } }
        set { locked.withLock { $0.settings.responseProcessors = newValue } }
    }

    /// What answers authentication challenges; `nil` uses the session's.
    public var authentications: [any HTTPAuthenticator]? {
        get { locked.withLock { $0.settings.authentications } }
        set { locked.withLock { $0.settings.authentications = newValue } }
    }

    /// What adapts this cycle's requests before they go and decides about retrying its failures;
    /// `nil` uses the session's ``HTTPSession/interceptors``.
    ///
    /// A list, even an empty one, replaces the session's: to add to them, write
    /// `cycle.interceptors = cycle.session.interceptors + [mine]`. A change applies to the attempts
    /// that begin after it. See ``HTTPInterceptor`` for when each is called.
    public var interceptors: [any HTTPInterceptor]? {
        get { locked.withLock { $0.settings.interceptors } }
        set { locked.withLock { $0.settings.interceptors = newValue } }
    }

    /// The methods this cycle's request is resent for after a failure that may have reached the
    /// server; `nil` (the default) takes the session's retry strategy's
    /// (``HTTPRetryStrategy/retryableMethods``: the idempotent methods, so not `POST` or `PATCH`).
    ///
    /// ```swift
    /// let cycle = HTTPCycle(requestURL: url, requestMethod: .post)
    /// cycle.retryableMethods = [.post] // this POST may be sent twice: the server dedupes it
    /// ```
    ///
    /// A request with an `Idempotency-Key` header is resent whatever its method, and so is one whose
    /// attempt failed before a byte of it went out (a refused connection, a connect timeout).
    public var retryableMethods: Set<HTTPMethod>? {
        get { locked.withLock { $0.settings.retryableMethods } }
        set { locked.withLock { $0.settings.retryableMethods = newValue } }
    }

    /// The longest a run may take, retries included, before it ends with a `timedOut` error; `nil`
    /// uses the session configuration's `timeoutIntervalForResource` (which URLSession itself
    /// ignores on Linux, L10).
    public var timeoutIntervalForResource: TimeInterval? {
        get { locked.withLock { $0.settings.timeoutIntervalForResource } }
        set { locked.withLock { $0.settings.timeoutIntervalForResource = newValue } }
    }

    // MARK: Start, cancel, restart

    /// Sends the request; `completionHandler` runs on the cycle's ``handlerQueue`` (the session's
    /// delegate queue by default) when the run ends.
    ///
    /// Starting a running cycle changes nothing: the new handler gets ``HTTPError/alreadyRunning``.
    /// - Parameter completionHandler: Gets the cycle and `nil`, or the error the run ended with.
    public func start(_ completionHandler: @escaping CompletionHandler) {
        begin(Completion(delivery: .queue, handler: completionHandler))
    }

    /// Sends the request; `completionHandler` runs where the run ends, not on the delegate queue
    /// (see ``Delivery/inline``).
    ///
    /// For a layer on top of the engine that moves its own handlers to their queues (the fluent
    /// layer), so that its handlers cost one hop, not two. The handler must be short and must not
    /// block: it may hold up a transport's thread.
    ///
    /// - Parameter awaited: Whether a Swift task awaits the outcome (``Delivery/awaited``): it is
    ///   then told of an explicit cancel too, and progress and download handlers that would go to
    ///   the main queue only as the session's delegate queue run inline, as for ``start()``.
    package func startInline(awaited: Bool = false, _ completionHandler: @escaping CompletionHandler) {
        begin(Completion(delivery: awaited ? .awaited : .inline, handler: completionHandler))
    }

    /// Cancels the run in progress, if any, retries and waits included.
    ///
    /// - Parameter explicitly: `true` when the user asked for it: the completion handler is not
    ///   called. `false`: it is called with ``HTTPError/cancelled``.
    public func cancel(explicitly: Bool) {
        let actions = locked.withLock { s -> StateMachine.Actions? in
            guard let actions = s.machine.cancel(explicitly: explicitly) else { return nil }
            s.explicitlyCanceling = explicitly
            return actions
        }
        if let actions { perform(actions) }
    }

    /// Cancels the run in progress silently, if any, and sends the request again.
    ///
    /// The completion handler given to the last ``start(_:)`` runs when the new run ends. A cycle
    /// that has finished can be restarted too.
    public func restart() {
        let (activity, handlerQueue, monitors, intercepts) = session.runDefaults
        let (attempt, run, actions, replaced) = locked.withLock { s -> (Int, Int, StateMachine.Actions, [any HTTPEventMonitor]) in
            // The run a restart replaces ends for the monitors that heard it begin.
            let replaced = s.machine.isActive ? s.machine.plan.monitors : []
            let plan = s.plan(for: s.machine.completion, in: session, sessionQueue: handlerQueue, monitors: monitors, sessionIntercepts: intercepts)
            let (attempt, actions) = s.machine.restart(plan: plan, activity: activity)
            s.forgetLastRun()
            return (attempt, s.machine.run, actions, replaced)
        }
        for monitor in replaced { monitor.cycle(self, didFinishWith: HTTPError.cancelled) }
        for monitor in monitors { monitor.cycleDidBegin(self) }
        launch(run: run, attempt: attempt, after: actions)
    }

    func begin(_ completion: Completion) {
        let (activity, handlerQueue, monitors, intercepts) = session.runDefaults
        let (action, run, plan) = locked.withLock { s -> (StateMachine.StartAction, Int, Plan) in
            let plan = s.plan(for: completion, in: session, sessionQueue: handlerQueue, monitors: monitors, sessionIntercepts: intercepts)
            let action = s.machine.start(completion, plan: plan, activity: activity)
            if case .send = action { s.forgetLastRun() }
            return (action, s.machine.run, plan)
        }
        switch action {
        case .send(let attempt, let actions):
            for monitor in monitors { monitor.cycleDidBegin(self) }
            launch(run: run, attempt: attempt, after: actions)
        case .rejectAlreadyRunning:
            // Where a run of its own would deliver: the running run's plan is not the caller's.
            deliver(Outcome(error: HTTPError.alreadyRunning), to: completion, plan: plan, waits: false)
        }
    }

    /// Carries out what beginning the run left to do, arms its deadline and sends its first attempt.
    private func launch(run: Int, attempt: Int, after actions: StateMachine.Actions) {
        perform(actions)
        scheduleDeadline(run: run)
        send(attempt: attempt)
    }
}

extension HTTPCycle.Guarded {
    /// The plan of a run that begins now with `completion`: its handler calls go to the cycle's
    /// handler queue, else the session's, except that an awaited run whose calls would go to the
    /// main queue only because it is the session's delegate queue makes them inline: an `async`
    /// caller must not depend on the main queue. Its events go to `monitors`. When the run will have
    /// interceptors (its own, or the session's when `sessionIntercepts`), the caller's task-local
    /// values are kept for them (``TaskContext``): made on the thread that begins the run.
    func plan(
        for completion: HTTPCycle.Completion?, in session: HTTPSession, sessionQueue: HandlerQueue,
        monitors: [any HTTPEventMonitor], sessionIntercepts: Bool
    ) -> HTTPCycle.Plan {
        let queue = settings.handlerQueue ?? sessionQueue
        var handlers = session.delivery(for: queue)
        if completion?.delivery == .awaited, queue.delivery == nil, handlers.isMain { handlers = .inline }
        let intercepts = settings.interceptors.map { !$0.isEmpty } ?? sessionIntercepts
        return HTTPCycle.Plan(handlers: handlers, monitors: monitors, began: .now, taskContext: intercepts ? TaskContext.capture() : nil)
    }

    /// Clears what the cycle shows of the last run, as a new one begins.
    mutating func forgetLastRun() {
        response = HTTPResponse()
        explicitlyCanceling = false
    }
}
