import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs cycles over its transports and backs their shared properties.
///
/// Cycles that don't name a session use ``default``. Completion handlers run on ``delegateQueue``
/// (the main queue unless you pass another), or where ``handlerQueue`` says; processors run on
/// ``workerQueue``, off the delegate queue.
/// The session sends each request to the transport for its URL's scheme (see ``transport``), and asks
/// its seams — ``retryStrategy``, ``redirectPolicy``, ``authentications``, the processors — what to do
/// with each outcome.
public final class HTTPSession: Sendable {
    /// The URLSession that serves this session's requests, or some of them; `nil` when none of its
    /// transports runs on URLSession.
    public let core: URLSession?
    /// Where completion handlers (and the other handlers a cycle is given) run, unless
    /// ``handlerQueue`` or the cycle's own ``HTTPCycle/handlerQueue`` names another place.
    public let delegateQueue: OperationQueue
    /// Where processors and other work that takes time run.
    public let workerQueue: OperationQueue
    /// How handler calls reach ``delegateQueue``.
    package let handlerLine: HandlerLine

    /// Where requests go on the wire: the transport the session was made with, or the default one.
    public let transport: any HTTPTransport
    /// Transports for the URL schemes ``transport`` doesn't serve (`https` when it serves `http` only).
    private let routes: [(scheme: String, transport: any HTTPTransport)]
    /// The configuration every transport of the session was made with.
    public let configuration: Configuration
    /// The transfers in flight.
    let transfers = TransferRegistry()
    private let shared: Locked<Shared>

    /// The configuration's `timeoutIntervalForResource`, enforced by each cycle as its deadline.
    let resourceTimeout: TimeInterval
    /// URLSession's default resource timeout (7 days): a deadline this long or longer is not armed.
    static let unsetResourceTimeout: TimeInterval = 7 * 24 * 60 * 60

    private struct Shared {
        weak var delegate: (any HTTPSessionDelegate)?
        var requestProcessors: [HTTPProcessor] = []
        var responseProcessors: [HTTPProcessor] = []
        var authentications: [any HTTPAuthenticator] = []
        var interceptors: [any HTTPInterceptor] = []
        var retryStrategy: any HTTPRetryStrategy
        var redirectPolicy: any HTTPRedirectPolicy
        var runActivity: (any RunActivity)?
        var handlerQueue = HandlerQueue.delegateQueue
        var eventMonitors: [any HTTPEventMonitor] = []
        var downloadDirectory = FileManager.default.temporaryDirectory
    }

    /// Creates a session over transports made already: the designated initialiser behind the public
    /// ones, which pick the transports (see `HTTPSession+Transports.swift`).
    ///
    /// - Parameters:
    ///   - configuration: What the transports were made with; its resource timeout is each cycle's
    ///     deadline.
    ///   - delegateQueue: Where handlers run; the main queue by default.
    ///   - workerQueue: Where processors run; a new concurrent queue by default.
    ///   - transport: The transport for every scheme not in `routes`.
    ///   - routes: Transports for other schemes, lowercased.
    ///   - core: The URLSession one of the transports runs on, if any.
    ///   - retryStrategy: When failed tries are sent again.
    ///   - redirectPolicy: Which redirects are followed.
    ///   - runActivity: What counts the runs in flight, if anything.
    init(
        configuration: Configuration, delegateQueue: OperationQueue?, workerQueue: OperationQueue?,
        transport: any HTTPTransport, routes: [(scheme: String, transport: any HTTPTransport)], core: URLSession?,
        retryStrategy: any HTTPRetryStrategy, redirectPolicy: any HTTPRedirectPolicy, runActivity: (any RunActivity)?
    ) {
        self.shared = Locked(Shared(retryStrategy: retryStrategy, redirectPolicy: redirectPolicy, runActivity: runActivity))
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? .main
        self.handlerLine = self.delegateQueue === OperationQueue.main ? .main : HandlerLine(queue: self.delegateQueue)
        self.workerQueue = workerQueue ?? {
            let queue = OperationQueue()
            queue.name = "Jewzruxin.HTTPSession.worker"
            return queue
        }()
        self.resourceTimeout = configuration.timeoutIntervalForResource
        self.transport = transport
        self.routes = routes
        self.core = core
    }

    /// The transport that serves `url`: the one routed for its scheme, else ``transport``.
    func transport(for url: URL?) -> any HTTPTransport {
        guard !routes.isEmpty, let scheme = url?.scheme else { return transport }
        for route in routes where HTTPHeaderSyntax.equalIgnoringASCIICase(route.scheme, scheme) {
            return route.transport
        }
        return transport
    }

    /// An object that customises status handling; held weakly.
    public var delegate: (any HTTPSessionDelegate)? {
        get { shared.withLock { $0.delegate } }
        set { shared.withLock { $0.delegate = newValue } }
    }

    /// Where the handlers of this session's cycles run, for every cycle whose own
    /// ``HTTPCycle/handlerQueue`` is `nil`: ``HandlerQueue/delegateQueue`` unless changed.
    ///
    /// ``HandlerQueue/inline`` runs them where each event happens, without a hop: the fastest
    /// choice, for handlers that are short and never block. A change applies to the runs that begin
    /// after it.
    public var handlerQueue: HandlerQueue {
        get { shared.withLock { $0.handlerQueue } }
        set { shared.withLock { $0.handlerQueue = newValue } }
    }

    /// Request processors for every cycle of this session whose own ``HTTPCycle/requestProcessors``
    /// is `nil`.
    public var requestProcessors: [HTTPProcessor] {
        get { shared.withLock { $0.requestProcessors } }
        set { shared.withLock { $0.requestProcessors = newValue } }
    }

    /// Response processors for every cycle of this session whose own
    /// ``HTTPCycle/responseProcessors`` is `nil`.
    public var responseProcessors: [HTTPProcessor] {
        get { shared.withLock { $0.responseProcessors } }
        set { shared.withLock { $0.responseProcessors = newValue } }
    }

    /// Authentications for every cycle of this session whose own ``HTTPCycle/authentications`` is
    /// `nil`.
    public var authentications: [any HTTPAuthenticator] {
        get { shared.withLock { $0.authentications } }
        set { shared.withLock { $0.authentications = newValue } }
    }

    /// What adapts the requests of every cycle of this session whose own
    /// ``HTTPCycle/interceptors`` is `nil`, and decides about retrying their failures before the
    /// ``retryStrategy`` does; applied in order (see ``HTTPInterceptor``). Empty unless changed.
    ///
    /// ```swift
    /// session.interceptors = [
    ///     RequestInterceptor { request, _ in
    ///         var request = request
    ///         request.setValue("my app", forHTTPHeaderField: "User-Agent")
    ///         return request
    ///     },
    /// ]
    /// ```
    public var interceptors: [any HTTPInterceptor] {
        get { shared.withLock { $0.interceptors } }
        set { shared.withLock { $0.interceptors = newValue } }
    }

    /// What an attempt of a cycle takes from the session when the cycle has none of its own, read
    /// under one lock.
    var sendDefaults: (requestProcessors: [HTTPProcessor], interceptors: [any HTTPInterceptor]) {
        shared.withLock { ($0.requestProcessors, $0.interceptors) }
    }

    /// When cycles are resent after a failure and how long they wait first: a ``RetryPolicy``
    /// unless changed.
    public var retryStrategy: any HTTPRetryStrategy {
        get { shared.withLock { $0.retryStrategy } }
        set { shared.withLock { $0.retryStrategy = newValue } }
    }

    /// Which responses are followed as redirects, and where to: ``RedirectPolicy/standard`` unless
    /// changed.
    public var redirectPolicy: any HTTPRedirectPolicy {
        get { shared.withLock { $0.redirectPolicy } }
        set { shared.withLock { $0.redirectPolicy = newValue } }
    }

    /// What counts this session's runs in flight (the network activity indicator), if anything.
    var runActivity: (any RunActivity)? {
        get { shared.withLock { $0.runActivity } }
        set { shared.withLock { $0.runActivity = newValue } }
    }

    /// What hears the events of this session's cycles (see ``HTTPEventMonitor``), in order; none
    /// unless added. A change applies to the runs that begin after it.
    public var eventMonitors: [any HTTPEventMonitor] {
        get { shared.withLock { $0.eventMonitors } }
        set { shared.withLock { $0.eventMonitors = newValue } }
    }

    /// What a run of a cycle takes from the session when it begins, read under one lock.
    var runDefaults: (activity: (any RunActivity)?, handlerQueue: HandlerQueue, monitors: [any HTTPEventMonitor], intercepts: Bool) {
        shared.withLock { ($0.runActivity, $0.handlerQueue, $0.eventMonitors, !$0.interceptors.isEmpty) }
    }

    /// Where downloads are written while they arrive (the temporary directory by default).
    ///
    /// Each download gets a new file readable by its owner only, removed after a failure, a
    /// cancel, or once the download handler has returned.
    public var downloadDirectory: URL {
        get { shared.withLock { $0.downloadDirectory } }
        set { shared.withLock { $0.downloadDirectory = newValue } }
    }

    /// How many transfers of this session's cycles are in flight (URLSession tasks, by default).
    public var runningTaskCount: Int { transfers.count }

    /// Whether a failed try of `cycle` is resent, and after how long: never after a cancellation;
    /// otherwise as the delegate decides (with the method rule and the strategy's delay), or as the
    /// retry strategy does.
    func retryVerdict(for cycle: HTTPCycle, failure: HTTPAttemptFailure) -> HTTPRetryVerdict {
        if case HTTPError.cancelled = failure.error { return .giveUp(Self.notResent) }
        let strategy = retryStrategy
        guard let delegate else { return strategy.verdict(for: failure) }
        guard delegate.session(self, shouldRetry: cycle, error: failure.error) else { return .giveUp(Self.declinedByDelegate) }
        return strategy.resendVerdict(for: failure)
    }

    static let notResent = "the retry strategy does not resend this failure"
    static let declinedByDelegate = "the session's delegate declined to resend it"
    static let noDelay = "the retry strategy gave no wait before the next attempt"

    /// Whether `reason` is only "this failure isn't one that is retried": not worth a summary after
    /// a single attempt.
    static func isPlainRefusal(_ reason: String) -> Bool {
        reason == notResent || reason == declinedByDelegate
    }

    /// Whether a status ends a cycle as a failure: the delegate's answer, or status ≥ 400.
    func shouldTreatStatusCodeAsFailure(_ status: Int) -> Bool {
        if let delegate = delegate {
            return delegate.session(self, shouldTreatStatusCodeAsFailure: status)
        }
        return status >= 400
    }
}
