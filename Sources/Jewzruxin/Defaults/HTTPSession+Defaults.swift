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
    ///   - transport: Where requests go on the wire; `nil` (the default) for URLSession; `.native` for
    ///     ``NativeTransport``, made with `configuration` too. URLSession serves the schemes the
    ///     transport doesn't (``HTTPTransport/schemes``).
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
    ///   - transport: Where requests go on the wire; `nil` for URLSession. URLSession serves the
    ///     schemes the transport doesn't (``HTTPTransport/schemes``).
    public convenience init(
        configuration: Configuration,
        delegateQueue: OperationQueue? = nil,
        workerQueue: OperationQueue? = nil,
        transport: (any HTTPTransport)? = nil
    ) {
        var routes: [(scheme: String, transport: any HTTPTransport)] = []
        var urlSession: URLSessionTransport?
        let primary: any HTTPTransport
        if let transport {
            primary = transport.configured(for: configuration)
            if let schemes = primary.schemes, !schemes.contains("https") {
                // A transport for plain http only: https goes to URLSession.
                let fallback = URLSessionTransport(configuration: configuration.urlSessionConfiguration)
                urlSession = fallback
                routes.append(("https", fallback))
            }
        } else {
            let own = URLSessionTransport(configuration: configuration.urlSessionConfiguration)
            urlSession = own
            primary = own
        }
        self.init(
            configuration: configuration, delegateQueue: delegateQueue, workerQueue: workerQueue,
            transport: primary, routes: routes, core: urlSession?.session,
            retryStrategy: RetryPolicy.default, redirectPolicy: RedirectPolicy.standard,
            runActivity: NetworkActivityIndicator.shared)
    }
}
