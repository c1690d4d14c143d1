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
        /// The longest wait for a connection to be made (TCP and TLS), in seconds: 10 by default, as
        /// AsyncHTTPClient's; never longer than the request's idle timeout. A connect that times out
        /// sent nothing, so the retry strategy may send any request again after it. The curl and
        /// native transports honour it; URLSession has no such setting and waits the idle timeout.
        public var timeoutIntervalForConnect: TimeInterval = 10
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
        /// How many cookies, and how large, are stored, and how much of them a request sends back:
        /// the bounds of browsers and curl unless changed (see ``CookieLimits``). Every transport
        /// honours them (but the URLSession transport on Apple platforms, where URLSession keeps
        /// the cookies).
        public var cookieLimits = CookieLimits()
        /// Which servers to trust beyond the system's certificate authorities, which public keys to
        /// pin, the client certificate, the oldest TLS version. Only the curl transport honours it;
        /// on the others a request with any of it set fails with `URLError(.secureConnectionFailed)`
        /// rather than being sent with the settings ignored (URLSession on Linux can't be told, L12).
        public var tls = TLSSettings()
        /// The proxy every request goes through (but those to its ``ProxySettings/excludedHosts``),
        /// whatever the environment says; `nil` (the default) for the one ``proxyEnvironment`` names.
        ///
        /// Only the curl transport honours a proxy set here; on the others every request then fails
        /// with `URLError(.cannotConnectToHost)` rather than going out directly.
        public var proxy: ProxySettings?
        /// Where the curl transport finds the proxy when ``proxy`` is `nil`: the process's environment
        /// variables (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, by curl's rules:
        /// ``ProxySettings/environment(_:for:)``), read once, when the session's transport is made;
        /// variables you give; or ``ProxyEnvironment/ignored``, for no proxy even if the environment
        /// names one.
        ///
        /// The curl transport then sets every transfer's proxy itself, so libcurl never reads the
        /// environment. The URLSession transport leaves its proxy to URLSession (on Linux, its libcurl
        /// reads the process's environment); the native transport uses none.
        public var proxyEnvironment: ProxyEnvironment = .process
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

extension HTTPSession {
    /// TLS settings a session's transport applies to every `https` request (see
    /// ``Configuration/tls``).
    ///
    /// ```swift
    /// var configuration = HTTPSession.Configuration(.ephemeral)
    /// configuration.tls.additionalTrustedCertificates = [.file(URL(fileURLWithPath: "/etc/myapp/ca.pem"))]
    /// configuration.tls.pinnedPublicKeys = ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
    /// let session = HTTPSession(configuration: configuration, transport: .curl)
    /// ```
    public struct TLSSettings: Sendable, Hashable {
        /// PEM certificates: a file, or the bytes themselves.
        public enum PEM: Sendable, Hashable {
            /// A PEM file.
            case file(URL)
            /// PEM text.
            case data(Data)
        }

        /// A TLS protocol version.
        public enum Version: Sendable, Hashable {
            case tls1_2
            case tls1_3
        }

        /// A client certificate and its private key, both PEM.
        public struct ClientCertificate: Sendable, Hashable {
            /// The certificate (chain), PEM.
            public var certificate: PEM
            /// Its private key, PEM.
            public var privateKey: PEM
            /// The key's passphrase, if it is encrypted.
            public var passphrase: String?

            /// A client certificate.
            public init(certificate: PEM, privateKey: PEM, passphrase: String? = nil) {
                self.certificate = certificate
                self.privateKey = privateKey
                self.passphrase = passphrase
            }
        }

        /// Certificate authorities trusted as well as the system's: a server whose chain ends at
        /// one of them is trusted.
        public var additionalTrustedCertificates: [PEM] = []
        /// Public keys the server's certificate must have one of, each `sha256//` followed by the
        /// base64 SHA-256 of the key's DER SubjectPublicKeyInfo (`openssl x509 -pubkey -noout -in
        /// cert.pem | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`).
        /// Checked after, not instead of, the certificate's validation.
        public var pinnedPublicKeys: [String] = []
        /// The certificate the client presents when a server asks for one.
        public var clientCertificate: ClientCertificate?
        /// The oldest TLS version accepted; `nil` for the library's default.
        public var minimumVersion: Version?

        /// The system's trust, no pin, no client certificate, the library's oldest version.
        public init() {}

        /// Whether anything differs from the defaults.
        public var isCustomized: Bool { self != TLSSettings() }
    }
}
