import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPSession {
    /// What every transport of a session honours, whichever it is: timeouts, the connection limit,
    /// additional headers and cookies.
    ///
    /// Make one from a `URLSessionConfiguration` (``init(_:)``), so that seed code keeps working, and
    /// change what you need:
    ///
    /// ```swift
    /// var configuration = HTTPSession.Configuration(.ephemeral)
    /// configuration.timeoutIntervalForRequest = 10
    /// let session = HTTPSession(configuration: configuration, transport: .native)
    /// ```
    ///
    /// The URLSession transport starts from the `URLSessionConfiguration` it was made from (its cache,
    /// proxy and protocol settings), with the values below written over it.
    public struct Configuration: Sendable {
        /// The longest wait for any progress (a byte sent or received), in seconds; a request's own
        /// `timeoutInterval`, when not URLRequest's default of 60, overrides it.
        public var timeoutIntervalForRequest: TimeInterval
        /// The longest a cycle may take, retries included, in seconds: each cycle enforces it as its
        /// deadline (URLSession on Linux ignores it, L10). 7 days or more means none.
        public var timeoutIntervalForResource: TimeInterval
        /// The most connections open to one host and port at once.
        public var httpMaximumConnectionsPerHost: Int
        /// Headers added to every request that doesn't set them itself.
        public var httpAdditionalHeaders: [String: String]
        /// Where cookies are read from and stored; `nil` for none.
        public var httpCookieStorage: HTTPCookieStorage?
        /// Whether requests send the stored cookies and responses store theirs.
        public var httpShouldSetCookies: Bool
        /// Which cookies are stored.
        public var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy
        /// The configuration this one was made from, for what only URLSession reads.
        private let base: URLSessionConfiguration

        /// Takes the values of a URLSession configuration.
        ///
        /// - Parameter configuration: The configuration to read; `.default` by default.
        public init(_ configuration: URLSessionConfiguration = .default) {
            timeoutIntervalForRequest = configuration.timeoutIntervalForRequest
            timeoutIntervalForResource = configuration.timeoutIntervalForResource
            let connections = configuration.httpMaximumConnectionsPerHost
            httpMaximumConnectionsPerHost = connections > 0 ? connections : 6
            var headers: [String: String] = [:]
            for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
                guard let name = key as? String else { continue }
                headers[name] = "\(value)"
            }
            httpAdditionalHeaders = headers
            httpCookieStorage = configuration.httpCookieStorage
            httpShouldSetCookies = configuration.httpShouldSetCookies
            httpCookieAcceptPolicy = configuration.httpCookieAcceptPolicy
            base = configuration
        }

        /// A URLSession configuration with these values, for a transport that runs on URLSession.
        public var urlSessionConfiguration: URLSessionConfiguration {
            let configuration = (base.copy() as? URLSessionConfiguration) ?? base
            configuration.timeoutIntervalForRequest = timeoutIntervalForRequest
            configuration.timeoutIntervalForResource = timeoutIntervalForResource
            configuration.httpMaximumConnectionsPerHost = httpMaximumConnectionsPerHost
            configuration.httpAdditionalHeaders = httpAdditionalHeaders.isEmpty && base.httpAdditionalHeaders == nil ? nil : httpAdditionalHeaders
            configuration.httpCookieStorage = httpCookieStorage
            configuration.httpShouldSetCookies = httpShouldSetCookies
            configuration.httpCookieAcceptPolicy = httpCookieAcceptPolicy
            return configuration
        }
    }
}
