import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that speaks HTTP/1.1 itself over POSIX sockets, for `http://` URLs.
///
/// Opt in per session:
///
/// ```swift
/// let session = HTTPSession(configuration: .ephemeral, transport: .native)
/// ```
///
/// Everything above the transport — processors, content handlers, retries, authentication,
/// redirects, the fluent layer — runs unchanged. What differs is underneath:
/// - **Speed.** A request costs a fraction of URLSession's CPU time on Linux: no libcurl, no
///   extra queues between the socket and the engine.
/// - **Backpressure.** Body bytes reach the content handler on the thread that reads them, so a
///   slow handler slows the read and memory stays flat, whatever the size (URLSession on Linux
///   reads ahead without limit).
/// - **Keep-alive pool.** At most ``Options/maximumConnectionsPerHost`` connections per host
///   (the configuration's `httpMaximumConnectionsPerHost` by default), each served by a thread of
///   its own, closed after ``Options/idleConnectionTimeout`` unused or as soon as the server closes
///   it; a request that finds its pooled connection closed by the server is sent again once on a
///   new one when its method is idempotent. A small request to a host with an idle connection is
///   written by the calling thread, so the connection's thread wakes only for the answer.
/// - **HTTP/1.1 only, no TLS.** It serves `http://` only (``schemes``): its session sends `https://`
///   to URLSession, with the same configuration, unless ``Options/usesURLSessionForHTTPS`` is
///   `false`: they then fail with `URLError(.unsupportedURL)`. No `Accept-Encoding` is sent, since bodies are not decompressed.
///
/// It honours the configuration's `timeoutIntervalForRequest` (or a request's own timeout) as the
/// longest wait for any progress, `httpAdditionalHeaders`, and cookies (`httpCookieStorage`,
/// `httpShouldSetCookies`, `httpCookieAcceptPolicy`); the overall deadline
/// (`timeoutIntervalForResource`) is the cycle's, as on URLSession. Each response carries its
/// attempt's ``HTTPTransferMetrics`` (``HTTPResponse/metrics``), as on the curl transport.
public final class NativeTransport: HTTPTransport {
    /// How a native transport behaves beyond its session's configuration.
    public struct Options: Sendable {
        /// The most connections open to one host and port at once; `nil` for the configuration's
        /// `httpMaximumConnectionsPerHost` (6 unless changed).
        public var maximumConnectionsPerHost: Int?
        /// How long an unused keep-alive connection stays open, in seconds.
        public var idleConnectionTimeout: TimeInterval
        /// Whether the session sends `https://` requests to another transport: the curl transport
        /// on Linux where libcurl loads (FoundationNetworking traps on some valid responses), else
        /// URLSession. When `false` they come here and fail with `URLError(.unsupportedURL)`.
        public var usesURLSessionForHTTPS: Bool
        /// The largest response header section accepted, in bytes; a larger one fails the
        /// request with `URLError(.badServerResponse)`.
        public var maximumResponseHeaderSize: Int

        /// Creates options.
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerHost: The most connections to one host and port; `nil` for the
        ///     configuration's.
        ///   - idleConnectionTimeout: How long an unused connection stays open, in seconds.
        ///   - usesURLSessionForHTTPS: Whether `https://` goes to another transport (curl on Linux
        ///     where libcurl loads, else URLSession), or fails.
        ///   - maximumResponseHeaderSize: The largest response header section, in bytes.
        public init(
            maximumConnectionsPerHost: Int? = nil, idleConnectionTimeout: TimeInterval = 60,
            usesURLSessionForHTTPS: Bool = true, maximumResponseHeaderSize: Int = 65_536
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.idleConnectionTimeout = idleConnectionTimeout
            self.usesURLSessionForHTTPS = usesURLSessionForHTTPS
            self.maximumResponseHeaderSize = maximumResponseHeaderSize
        }
    }

    /// The options it was made with.
    public let options: Options
    let settings: Settings
    /// Whether it was made without a configuration, to take the one of the session it is given to.
    let takesSessionConfiguration: Bool
    private let pools = Locked([Origin: HostPool]())

    /// Creates a native transport.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, additional headers, cookies and the connection limit.
    ///   - options: Connection pool and strictness settings.
    public convenience init(configuration: URLSessionConfiguration = .default, options: Options = Options()) {
        self.init(configuration: HTTPSession.Configuration(configuration), options: options, takesSessionConfiguration: false)
    }

    /// Creates a native transport from a transport-neutral configuration.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, additional headers, cookies and the connection limit.
    ///   - options: Connection pool and strictness settings.
    public convenience init(configuration: HTTPSession.Configuration, options: Options = Options()) {
        self.init(configuration: configuration, options: options, takesSessionConfiguration: false)
    }

    private init(configuration: HTTPSession.Configuration, options: Options, takesSessionConfiguration: Bool) {
        self.options = options
        self.settings = Settings(configuration, options: options)
        self.takesSessionConfiguration = takesSessionConfiguration
    }

    /// A native transport with default options, taking the configuration of the session it is
    /// given to: `HTTPSession(configuration: configuration, transport: .native)`.
    public static var native: NativeTransport {
        NativeTransport(configuration: HTTPSession.Configuration(), options: Options(), takesSessionConfiguration: true)
    }

    /// A native transport with `options`, taking the configuration of the session it is given to.
    ///
    /// - Parameter options: Connection pool and strictness settings.
    public static func native(_ options: Options) -> NativeTransport {
        NativeTransport(configuration: HTTPSession.Configuration(), options: options, takesSessionConfiguration: true)
    }

    /// `http` alone, unless ``Options/usesURLSessionForHTTPS`` is `false`: then every scheme comes
    /// here, and all but `http` fail with `URLError(.unsupportedURL)`.
    public var schemes: Set<String>? { options.usesURLSessionForHTTPS ? ["http"] : nil }

    /// Yes: a body is read on its connection's thread as the handler takes it.
    public var pacesBodyToHandler: Bool { true }

    /// This transport, or a new one with `configuration` if this one was made to take its session's.
    public func configured(for configuration: HTTPSession.Configuration) -> any HTTPTransport {
        guard takesSessionConfiguration else { return self }
        return NativeTransport(configuration: configuration, options: options, takesSessionConfiguration: false)
    }

    deinit {
        for pool in pools.withLock({ Array($0.values) }) { pool.shutDown() }
    }

    /// The connections open (or opening) to all hosts.
    var openConnectionCount: Int {
        pools.withLock { Array($0.values) }.reduce(0) { $0 + $1.connectionCount }
    }

    /// Adds the session's additional headers, `Host`, `Authorization` from the URL's user, the
    /// stored cookies, `User-Agent: Jewzruxin`, `Accept: */*` (each where the request has none) and
    /// the body's framing, as the transport sends them; no `Accept-Encoding`, since it decodes none.
    public func completeHeaderFields(of request: inout HTTPRequest, upload: HTTPCycle.UploadSource?) {
        settings.shared.headers.complete(&request, body: HeaderCompletion.bodyLength(of: request, upload: upload))
    }

    public func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer {
        var request = request
        if !request.headerFieldsCompleted { completeHeaderFields(of: &request, upload: upload) }
        if settings.namesProxy {
            return FailedTransfer(error: URLError(.cannotConnectToHost, userInfo: [
                NSLocalizedDescriptionKey: "The session names a proxy, which the native transport doesn't speak to; use the curl "
                    + "transport (transport: .curl).",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]), events: events)
        }
        guard let url = request.url, let scheme = url.scheme else {
            return FailedTransfer(error: URLError(.badURL), events: events)
        }
        if HTTPHeaderSyntax.equalIgnoringASCIICase(scheme, "https") {
            return FailedTransfer(error: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "This native transport serves http:// only; https:// needs URLSession.",
                NSURLErrorFailingURLErrorKey: url,
            ]), events: events)
        }
        guard HTTPHeaderSyntax.equalIgnoringASCIICase(scheme, "http"), let origin = Origin(httpURL: url) else {
            return FailedTransfer(error: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "The native transport can't send a request to \(url.absoluteString).",
                NSURLErrorFailingURLErrorKey: url,
            ]), events: events)
        }
        let pool = pools.withLock { pools in
            if let pool = pools[origin] { return pool }
            let pool = HostPool(origin: origin, limit: settings.maximumConnectionsPerHost, idleTimeout: options.idleConnectionTimeout)
            pools[origin] = pool
            return pool
        }
        return NativeExchange(request: request, upload: upload, events: events, settings: settings, pool: pool)
    }
}

extension HTTPTransport where Self == NativeTransport {
    /// A native HTTP/1.1 transport taking the configuration of its session:
    /// `HTTPSession(configuration: configuration, transport: .native)`.
    public static var native: NativeTransport { NativeTransport.native }

    /// A native HTTP/1.1 transport with `options`, taking the configuration of its session.
    ///
    /// - Parameter options: Connection pool and strictness settings.
    public static func native(_ options: NativeTransport.Options) -> NativeTransport { NativeTransport.native(options) }
}

extension NativeTransport {
    /// What a transfer needs of the configuration, read once.
    struct Settings: Sendable {
        let shared: TransportSettings
        let maximumResponseHeaderSize: Int
        /// Whether the configuration names a proxy, which this transport doesn't speak to.
        let namesProxy: Bool

        init(_ configuration: HTTPSession.Configuration, options: Options) {
            shared = TransportSettings(configuration, maximumConnectionsPerHost: options.maximumConnectionsPerHost)
            maximumResponseHeaderSize = max(1024, options.maximumResponseHeaderSize)
            namesProxy = configuration.proxy != nil
        }

        var maximumConnectionsPerHost: Int { shared.maximumConnectionsPerHost }

        func timeout(for request: HTTPRequest) -> TimeInterval { shared.timeout(for: request) }
        func connectTimeout(within idle: TimeInterval) -> TimeInterval { shared.connectTimeout(within: idle) }

        func storeCookies(_ lines: [String], for request: HTTPRequest) { shared.cookies?.store(lines, for: request) }
    }
}

extension NativeTransport: ConnectionAuthenticatingTransport {
    /// Always a reason: the native transport answers no challenge itself, and the engine's answers
    /// (a header on a resent request) can't carry a handshake bound to one connection.
    func unavailability(of scheme: ConnectionAuthenticationScheme) -> String? {
        "the native transport doesn't run \(scheme.rawValue) handshakes, which must go on one connection from start to end; "
            + "the curl transport does, with a libcurl built for \(scheme.rawValue)"
    }
}
