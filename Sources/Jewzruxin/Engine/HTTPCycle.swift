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

    /// What the caller configured, read when a run begins.
    let setup: Locked<Settings>

    /// The run: its state machine, alone under this lock.
    let locked: Locked<StateMachine>

    /// The handler of a start, and where it runs.
    struct Completion: Sendable {
        let delivery: Delivery
        let handler: CompletionHandler
    }

    /// Where a run's completion handler runs, as the start that began the run asked: the one value
    /// that decides it (``HTTPCycle/deliver(_:to:plan:waits:)`` carries it out).
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

    /// What a run goes by, fixed when it begins (a start or a restart) and kept by the state
    /// machine: immutable, read without copying what it holds.
    final class Plan: Sendable {
        /// The caller's settings when the run began.
        let settings: Settings
        /// Where the run's handler calls go: its progress and download handlers, and its completion
        /// when ``Delivery/queue``.
        let handlers: HandlerLine
        /// What hears the run's events: the session's monitors when it began.
        let monitors: [any HTTPEventMonitor]
        /// When the run began, for the retry strategy's time limit.
        let began: MonotonicTime
        /// The task-local values of the run's caller, for its interceptors; `nil` when it has none
        /// or began outside a task.
        let taskContext: TaskContext?

        init(
            settings: Settings, handlers: HandlerLine, monitors: [any HTTPEventMonitor] = [],
            began: MonotonicTime = .now, taskContext: TaskContext? = nil
        ) {
            self.settings = settings
            self.handlers = handlers
            self.monitors = monitors
            self.began = began
            self.taskContext = taskContext
        }
    }

    /// What the caller configured: frozen into a run's ``Plan`` when the run begins.
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
        let settings = Settings(request: HTTPRequest(url: requestURL, method: requestMethod))
        self.session = session
        self.setup = Locked(settings)
        self.locked = Locked(StateMachine(plan: Plan(settings: settings, handlers: .inline)))
    }

    // MARK: Properties

    /// The request to send. Changes apply to the next start; request processors update it.
    public var request: HTTPRequest {
        get { setup.withLock { $0.request } }
        set { setup.withLock { $0.request = newValue } }
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
    public var state: State { locked.withLock { $0.state } }

    /// A name for the cycle, free for the caller (a service can find its cycles by it).
    public var identifier: String {
        get { setup.withLock { $0.identifier } }
        set { setup.withLock { $0.identifier = newValue } }
    }

    /// Whether the user asked for this request directly (a pull to refresh, a button): such a cycle
    /// is resent after any error, without limit, until a response succeeds or it is cancelled.
    public var solicited: Bool {
        get { setup.withLock { $0.solicited } }
        set { setup.withLock { $0.solicited = newValue } }
    }

    /// Whether the last cancel was explicit (its completion handler is then not called).
    public var explicitlyCanceling: Bool { locked.withLock { $0.explicitlyCanceling } }

    /// How many times the current run has been resent after a failure.
    public var retriedCount: Int { locked.withLock { $0.counters.retried } }

    /// Where this cycle's handlers run (completion, progress, download); `nil` uses the session's
    /// ``HTTPSession/handlerQueue``. A change applies to the runs that begin after it.
    ///
    /// ``HandlerQueue/inline`` runs them where each event happens, without a hop: the fastest
    /// choice, for handlers that are short and never block.
    public var handlerQueue: HandlerQueue? {
        get { setup.withLock { $0.handlerQueue } }
        set { setup.withLock { $0.handlerQueue = newValue } }
    }

    /// Processors that prepare the request; `nil` uses the session's.
    public var requestProcessors: [HTTPProcessor]? {
        get { setup.withLock { $0.requestProcessors } }
        set { setup.withLock { $0.requestProcessors = newValue } }
    }

    /// Processors that turn the response's data into its object; `nil` uses the session's.
    public var responseProcessors: [HTTPProcessor]? {
        get { setup.withLock { $0.responseProcessors } }
        set { setup.withLock { $0.responseProcessors = newValue } }
    }

    /// What answers authentication challenges; `nil` uses the session's.
    public var authentications: [any HTTPAuthenticator]? {
        get { setup.withLock { $0.authentications } }
        set { setup.withLock { $0.authentications = newValue } }
    }

    /// What adapts this cycle's requests before they go and decides about retrying its failures;
    /// `nil` uses the session's ``HTTPSession/interceptors``.
    ///
    /// A list, even an empty one, replaces the session's: to add to them, write
    /// `cycle.interceptors = cycle.session.interceptors + [mine]`. A change applies to the runs
    /// that begin after it. See ``HTTPInterceptor`` for when each is called.
    public var interceptors: [any HTTPInterceptor]? {
        get { setup.withLock { $0.interceptors } }
        set { setup.withLock { $0.interceptors = newValue } }
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
        get { setup.withLock { $0.retryableMethods } }
        set { setup.withLock { $0.retryableMethods = newValue } }
    }

    /// The longest a run may take, retries included, before it ends with a `timedOut` error; `nil`
    /// uses the session configuration's `timeoutIntervalForResource` (which URLSession itself
    /// ignores on Linux, L10).
    public var timeoutIntervalForResource: TimeInterval? {
        get { setup.withLock { $0.timeoutIntervalForResource } }
        set { setup.withLock { $0.timeoutIntervalForResource = newValue } }
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
        let actions = locked.withLock { $0.cancel(explicitly: explicitly) }
        if let actions { perform(actions) }
    }

    /// Cancels the run in progress silently, if any, and sends the request again.
    ///
    /// The completion handler given to the last ``start(_:)`` runs when the new run ends. A cycle
    /// that has finished can be restarted too.
    public func restart() {
        let (activity, handlerQueue, monitors, intercepts) = session.runDefaults
        let settings = setup.withLock { $0 }
        let (attempt, run, plan, actions, replaced) = locked.withLock { s in
            // The run a restart replaces ends for the monitors that heard it begin.
            let replaced = s.isActive ? s.plan.monitors : []
            let plan = Self.plan(settings, for: s.completion, in: session, sessionQueue: handlerQueue, monitors: monitors, sessionIntercepts: intercepts)
            let (attempt, actions) = s.restart(plan: plan, activity: activity)
            return (attempt, s.run, plan, actions, replaced)
        }
        for monitor in replaced { monitor.cycle(self, didFinishWith: HTTPError.cancelled) }
        for monitor in monitors { monitor.cycleDidBegin(self) }
        launch(run: run, plan: plan, attempt: attempt, after: actions)
    }

    func begin(_ completion: Completion) {
        let (activity, handlerQueue, monitors, intercepts) = session.runDefaults
        let plan = Self.plan(setup.withLock { $0 }, for: completion, in: session, sessionQueue: handlerQueue, monitors: monitors, sessionIntercepts: intercepts)
        let (action, run) = locked.withLock { s in (s.start(completion, plan: plan, activity: activity), s.run) }
        switch action {
        case .send(let attempt, let actions):
            for monitor in monitors { monitor.cycleDidBegin(self) }
            launch(run: run, plan: plan, attempt: attempt, after: actions)
        case .rejectAlreadyRunning:
            // Where a run of its own would deliver: the running run's plan is not the caller's.
            deliver(Outcome(error: HTTPError.alreadyRunning), to: completion, plan: plan, waits: false)
        }
    }

    /// The plan of a run that begins now with `settings` and `completion`: its handler calls go to
    /// the cycle's handler queue, else the session's, except that an awaited run whose calls would
    /// go to the main queue only because it is the session's delegate queue makes them inline: an
    /// `async` caller must not depend on the main queue. Its events go to `monitors`. When the run
    /// will have interceptors (its own, or the session's when `sessionIntercepts`), the caller's
    /// task-local values are kept for them (``TaskContext``): made on the thread that begins the run.
    static func plan(
        _ settings: consuming Settings, for completion: Completion?, in session: HTTPSession, sessionQueue: HandlerQueue,
        monitors: [any HTTPEventMonitor], sessionIntercepts: Bool
    ) -> Plan {
        let queue = settings.handlerQueue ?? sessionQueue
        var handlers = session.handlerLine(for: queue)
        if completion?.delivery == .awaited, queue.line == nil, handlers.isMain { handlers = .inline }
        let intercepts = settings.interceptors.map { !$0.isEmpty } ?? sessionIntercepts
        return Plan(
            settings: settings, handlers: handlers, monitors: monitors, began: .now,
            taskContext: intercepts ? TaskContext.capture() : nil)
    }

    /// Carries out what beginning the run left to do, arms its deadline and sends its first attempt.
    private func launch(run: Int, plan: Plan, attempt: Int, after actions: StateMachine.Actions) {
        perform(actions)
        scheduleDeadline(run: run, plan: plan)
        send(attempt: attempt)
    }
}
