import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A thin wrapper of `URLSession` that runs cycles and backs their shared properties.
///
/// Cycles that don't name a session use ``default``. Completion handlers run on ``delegateQueue``
/// (the main queue unless you pass another); processors run on ``workerQueue``, off the delegate queue.
/// URLSession's own callbacks arrive on a private serial queue, so a busy delegate queue never slows
/// the transfer down.
public final class HTTPSession: Sendable {
    /// The URLSession that serves this session's requests, or some of them; `nil` when none of its
    /// transports runs on URLSession.
    public let core: URLSession?
    /// Where completion handlers (and the other handlers a cycle is given) run.
    public let delegateQueue: OperationQueue
    /// Where processors and other work that takes time run.
    public let workerQueue: OperationQueue
    /// How the engine's handler calls reach ``delegateQueue``.
    let delivery: DelegateDelivery

    /// Where requests go on the wire: the transport the session was made with, or URLSession's.
    public let transport: any HTTPTransport
    /// Transports for the URL schemes ``transport`` doesn't serve (`https` when it serves `http` only).
    private let routes: [(scheme: String, transport: any HTTPTransport)]
    /// The configuration every transport of the session was made with.
    public let configuration: Configuration
    /// The transfers in flight.
    let transfers = TransferRegistry()
    private let shared = Locked(Shared())

    /// The configuration's `timeoutIntervalForResource`, enforced by each cycle as its deadline.
    let resourceTimeout: TimeInterval
    /// URLSession's default resource timeout (7 days): a deadline this long or longer is not armed.
    static let unsetResourceTimeout: TimeInterval = 7 * 24 * 60 * 60

    private struct Shared {
        weak var delegate: (any HTTPSessionDelegate)?
        var requestProcessors: [HTTPProcessor] = []
        var responseProcessors: [HTTPProcessor] = []
        var authentications: [Authentication] = []
        var retryPolicy = RetryPolicy.default
        var networkActivityIndicator: NetworkActivityIndicator? = .shared
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
    init(
        configuration: Configuration, delegateQueue: OperationQueue?, workerQueue: OperationQueue?,
        transport: any HTTPTransport, routes: [(scheme: String, transport: any HTTPTransport)], core: URLSession?
    ) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? .main
        self.delivery = DelegateDelivery(queue: self.delegateQueue)
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
    public var authentications: [Authentication] {
        get { shared.withLock { $0.authentications } }
        set { shared.withLock { $0.authentications = newValue } }
    }

    /// When cycles are resent after a failure and how long they wait first.
    public var retryPolicy: RetryPolicy {
        get { shared.withLock { $0.retryPolicy } }
        set { shared.withLock { $0.retryPolicy = newValue } }
    }

    /// The wait before a retry, in seconds: the seed's name for ``RetryPolicy/retryDelay`` of
    /// ``retryPolicy``.
    public var retryDelay: TimeInterval {
        get { retryPolicy.retryDelay }
        set { shared.withLock { $0.retryPolicy.retryDelay = newValue } }
    }

    /// The counter of cycles in flight that this session's cycles add to; ``NetworkActivityIndicator/shared``
    /// unless changed, `nil` to opt out.
    public var networkActivityIndicator: NetworkActivityIndicator? {
        get { shared.withLock { $0.networkActivityIndicator } }
        set { shared.withLock { $0.networkActivityIndicator = newValue } }
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

    /// Whether a failed try of `cycle` is resent: never after a cancellation; otherwise the
    /// delegate's answer, or the retry policy's.
    func shouldRetry(_ cycle: HTTPCycle, error: any Error) -> Bool {
        if case HTTPError.cancelled = error { return false }
        if let delegate = delegate {
            return delegate.session(self, shouldRetry: cycle, error: error)
        }
        return retryPolicy.shouldRetry(error: error, retriedCount: cycle.retriedCount, solicited: cycle.solicited)
    }

    /// Whether a status ends a cycle as a failure: the delegate's answer, or status ≥ 400.
    func shouldTreatStatusCodeAsFailure(_ status: Int) -> Bool {
        if let delegate = delegate {
            return delegate.session(self, shouldTreatStatusCodeAsFailure: status)
        }
        return status >= 400
    }
}
