import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What a session is made of unless told otherwise: the one place that names the transports and the
// default features (retry policy, redirect policy, activity indicator), so that the engine names
// none of them and no transport knows another.
extension HTTPSession {
    /// The session every cycle uses unless it is given another one.
    public static let `default` = HTTPSession()

    /// Creates a session from a URLSession configuration.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, cache, cookies and connection limits, for every transport of the
    ///     session (see ``Configuration``).
    ///   - delegateQueue: Where handlers run; the main queue by default.
    ///   - workerQueue: Where processors run; a new concurrent queue by default.
    ///   - transport: Where requests go on the wire; `nil` (the default) for ``defaultTransport``:
    ///     libcurl on Linux when it loads, URLSession otherwise. `.urlSession`, `.native` or `.curl`
    ///     choose, each made with `configuration` too. URLSession serves the schemes the transport
    ///     doesn't (``HTTPTransport/schemes``).
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        delegateQueue: OperationQueue? = nil,
        workerQueue: OperationQueue? = nil,
        transport: (any HTTPTransport)? = nil
    ) {
        self.init(configuration: Configuration(configuration), delegateQueue: delegateQueue, workerQueue: workerQueue, transport: transport)
    }

    /// Creates a session from a transport-neutral configuration.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, cookies, connection limits and headers, for every transport of the
    ///     session.
    ///   - delegateQueue: Where handlers run; the main queue by default.
    ///   - workerQueue: Where processors run; a new concurrent queue by default.
    ///   - transport: Where requests go on the wire; `nil` for ``defaultTransport``. URLSession serves
    ///     the schemes the transport doesn't (``HTTPTransport/schemes``).
    public convenience init(
        configuration: Configuration,
        delegateQueue: OperationQueue? = nil,
        workerQueue: OperationQueue? = nil,
        transport: (any HTTPTransport)? = nil
    ) {
        let primary = (transport ?? Self.defaultTransport.transport).configured(for: configuration)
        var routes: [(scheme: String, transport: any HTTPTransport)] = []
        var urlSession = primary as? URLSessionTransport
        if let schemes = primary.schemes, !schemes.contains("https") {
            // A transport for plain http only: https goes to curl where it is the default, since
            // FoundationNetworking traps on some valid responses; to URLSession elsewhere.
            if Self.defaultTransport.name == "curl" {
                routes.append(("https", CurlTransport(configuration: configuration)))
            } else {
                let fallback = URLSessionTransport(configuration: configuration)
                urlSession = fallback
                routes.append(("https", fallback))
            }
        }
        self.init(
            configuration: configuration, delegateQueue: delegateQueue, workerQueue: workerQueue,
            transport: primary, routes: routes, core: urlSession?.session,
            retryStrategy: RetryPolicy.default, redirectPolicy: RedirectPolicy.standard,
            runActivity: NetworkActivityIndicator.shared)
    }

    /// Which transport a session made without one uses, and why.
    public struct DefaultTransport: Sendable, CustomStringConvertible {
        /// `curl` or `urlsession`.
        public let name: String
        /// Why this one: the libcurl loaded, or why none could be, or the platform.
        public let reason: String
        let transport: any HTTPTransport

        public var description: String { "\(name): \(reason)" }
    }

    /// The transport of sessions made without one: on Linux the curl transport when the system's
    /// libcurl loads and serves https (``CurlLibrary/system``), URLSession otherwise; URLSession on
    /// Apple platforms. Decided once, when first read.
    public static let defaultTransport: DefaultTransport = {
        #if os(Linux)
        switch CurlLibrary.system {
        case .success(let curl) where curl.features.contains(.ssl):
            return DefaultTransport(
                name: "curl", reason: "libcurl \(curl.version) (\(curl.sslVersion ?? "TLS")) loaded from \(curl.name)", transport: .curl)
        case .success(let curl):
            return DefaultTransport(
                name: "urlsession", reason: "libcurl \(curl.version) from \(curl.name) has no TLS", transport: .urlSession)
        case .failure(let error):
            return DefaultTransport(name: "urlsession", reason: error.description, transport: .urlSession)
        }
        #else
        return DefaultTransport(name: "urlsession", reason: "URLSession is the transport on Apple platforms", transport: .urlSession)
        #endif
    }()
}
