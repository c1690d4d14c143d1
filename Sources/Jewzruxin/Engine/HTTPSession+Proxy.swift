import Foundation
import JewzruxinPrimitives

extension HTTPSession {
    /// A proxy a session's requests go through (``Configuration/proxy``), or one the environment names
    /// (``environment(_:for:)``).
    ///
    /// ```swift
    /// var configuration = HTTPSession.Configuration(.ephemeral)
    /// configuration.proxy = .init(.http, host: "proxy.internal", port: 3128)
    /// configuration.proxy?.excludedHosts = ["localhost", "intranet.example"]
    /// configuration.proxy = try .init(url: "socks5h://user:secret@127.0.0.1:1080")
    /// ```
    public struct ProxySettings: Sendable, Hashable {
        /// How the proxy is spoken to.
        public enum Kind: Sendable, Hashable {
            /// An HTTP proxy: `http` requests in absolute form, `https` through `CONNECT`
            /// (`http://` in a proxy URL, or no scheme).
            case http
            /// A SOCKS5 proxy that is given host names and resolves them itself, so that no name is
            /// looked up here (`socks5h://`).
            case socks5
            /// A SOCKS5 proxy that is given addresses: host names are resolved here first
            /// (`socks5://`, as curl reads it).
            case socks5WithLocalResolution
        }

        /// How the proxy is spoken to.
        public var kind: Kind
        /// The proxy's host: a name, or an address (an IPv6 address without brackets).
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// The user name for the proxy, if it asks for one.
        public var username: String?
        /// The password for the proxy, with ``username``.
        public var password: String?
        /// Hosts reached without the proxy, by curl's `no_proxy` rules (``excludes(host:)``): a name,
        /// which also covers its subdomains (`example.com` and `.example.com` both cover
        /// `example.com` and `www.example.com`, not `notexample.com`); an IPv4 or IPv6 address, or a
        /// range of them in CIDR notation (`10.0.0.0/8`, `fd00::/8`); or `*` alone, for every host.
        public var excludedHosts: [String] = []

        /// A proxy at `host`:`port`.
        ///
        /// - Parameters:
        ///   - kind: How the proxy is spoken to; ``Kind/http`` by default.
        ///   - host: Its host name or address.
        ///   - port: Its port.
        public init(_ kind: Kind = .http, host: String, port: Int) {
            self.kind = kind
            self.host = host
            self.port = port
        }

        /// A proxy written as a URL, as in the `http_proxy` environment variable and curl's
        /// `--proxy`: `[scheme://][user[:password]@]host[:port][/]`.
        ///
        /// The scheme is `http` (the default), `socks5` (names resolved here) or `socks5h` (names
        /// resolved by the proxy); the port is 1080 when none is given, as curl has it; the user
        /// name and password are percent-decoded (write `%40` for an `@` in them).
        ///
        /// - Parameter url: The proxy's URL.
        /// - Throws: ``InvalidURL`` when `url` has another scheme (`https`, `socks4`…), no host, or
        ///   a port that is not a number from 1 to 65535.
        public init(url: String) throws(InvalidURL) {
            let text = url.trimmingCharacters(in: .whitespaces)
            let separator = text.range(of: "://")
            let scheme = separator.map { text[..<$0.lowerBound].lowercased() } ?? "http"
            switch scheme {
            case "http": kind = .http
            case "socks5h": kind = .socks5
            case "socks5": kind = .socks5WithLocalResolution
            default:
                throw InvalidURL(url: url, reason: "a proxy of scheme \"\(scheme)\" is not supported (http, socks5 and socks5h are)")
            }
            let rest = separator.map { String(text[$0.upperBound...]) } ?? text
            // Read here, not by URLComponents, which has no port for one it can't read.
            let portText = Self.portText(of: rest)
            if let portText {
                guard let port = Int(portText), (1...65_535).contains(port) else {
                    throw InvalidURL(url: url, reason: "its port \"\(portText)\" is not a number from 1 to 65535")
                }
                self.port = port
            } else {
                port = 1080
            }
            guard let components = URLComponents(string: "http://" + rest), let rawHost = components.percentEncodedHost,
                  !rawHost.isEmpty
            else { throw InvalidURL(url: url, reason: "no host can be read from it") }
            host = String(HostSyntax.unbracketed(rawHost))
            username = components.user
            password = components.password
        }

        /// The digits after the host's colon, if the authority has a port.
        private static func portText(of rest: String) -> String? {
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
            let afterHost = hostAndPort.hasPrefix("[") ? hostAndPort.drop { $0 != "]" }.dropFirst() : hostAndPort[...]
            guard let colon = afterHost.firstIndex(of: ":") else { return nil }
            return String(afterHost[afterHost.index(after: colon)...])
        }

        /// Whether a request to `host` goes direct rather than through the proxy, by
        /// ``excludedHosts`` and curl's `no_proxy` rules.
        ///
        /// A name matches an entry that is the name or a parent domain of it, without regard to case
        /// or to a trailing dot; an address (IPv6 with or without brackets) matches an entry that is
        /// the same address, or a CIDR range that holds it. Names are not resolved: `localhost`
        /// doesn't cover `127.0.0.1`.
        ///
        /// - Parameter host: The host of a request's URL.
        /// - Returns: `true` when the request goes direct.
        public func excludes(host: String) -> Bool {
            ProxyExclusion(excludedHosts).covers(host)
        }

        /// What the environment says about a proxy for URLs of `scheme`, by curl's rules.
        ///
        /// The proxy is the first of these that is set: `<scheme>_proxy` in lower case, then in upper
        /// case except for `http` (`HTTP_PROXY` is not read: a CGI program finds a request's `Proxy`
        /// header there), then `all_proxy` and `ALL_PROXY`. A variable that is set but empty means no
        /// proxy. `no_proxy` (or `NO_PROXY`), a list separated by commas or spaces, gives the
        /// ``excludedHosts``.
        ///
        /// ```swift
        /// let proxy = try HTTPSession.ProxySettings.environment(ProcessInfo.processInfo.environment, for: "https")
        /// ```
        ///
        /// - Parameters:
        ///   - variables: The environment variables, such as `ProcessInfo.processInfo.environment`.
        ///   - scheme: The scheme of the URLs (`http`, `https`).
        /// - Returns: The proxy, or `nil` when the environment names none for the scheme.
        /// - Throws: ``InvalidURL``, naming the variable, when its value is not a proxy URL this
        ///   library can use.
        public static func environment(_ variables: [String: String], for scheme: String) throws(InvalidURL) -> ProxySettings? {
            let name = scheme.lowercased() + "_proxy"
            var candidates = [name]
            if name != "http_proxy" { candidates.append(name.uppercased()) }
            candidates += ["all_proxy", "ALL_PROXY"]
            guard let variable = candidates.first(where: { variables[$0] != nil }), let value = variables[variable], !value.isEmpty
            else { return nil }
            var settings: ProxySettings
            do {
                settings = try ProxySettings(url: value)
            } catch {
                throw InvalidURL(url: value, reason: error.reason, variable: variable)
            }
            let exclusions = variables["no_proxy"] ?? variables["NO_PROXY"] ?? ""
            settings.excludedHosts = ProxyExclusion.entries(of: exclusions)
            return settings
        }

        /// A proxy URL that can't be used, and why.
        public struct InvalidURL: Error, Sendable, Hashable, CustomStringConvertible {
            /// The URL, with its password replaced by `***`.
            public var url: String
            /// Why it can't be used.
            public var reason: String
            /// The environment variable it was read from, if it was.
            public var variable: String?

            /// An invalid proxy URL.
            ///
            /// - Parameters:
            ///   - url: The URL as given; a password in it is masked.
            ///   - reason: Why it can't be used.
            ///   - variable: The environment variable it was read from, if it was.
            public init(url: String, reason: String, variable: String? = nil) {
                self.url = Self.masked(url)
                self.reason = reason
                self.variable = variable
            }

            public var description: String {
                let source = variable.map { "the environment's \($0) (\"\(url)\")" } ?? "the proxy URL \"\(url)\""
                return "\(source) can't be used: \(reason)"
            }

            /// `url` with what stands between the user name's colon and the `@` replaced.
            private static func masked(_ url: String) -> String {
                let start = url.range(of: "://")?.upperBound ?? url.startIndex
                let authority = url[start...].prefix { $0 != "/" }
                guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
                return url.replacingCharacters(in: authority.index(after: colon)..<at, with: "***")
            }
        }
    }

    /// Where a session whose ``Configuration/proxy`` is `nil` finds its proxy
    /// (``Configuration/proxyEnvironment``).
    ///
    /// ```swift
    /// configuration.proxyEnvironment = .ignored                                  // no proxy at all
    /// configuration.proxyEnvironment = .variables(["https_proxy": "http://proxy.internal:3128"])
    /// ```
    public enum ProxyEnvironment: Sendable, Hashable {
        /// The process's environment variables, read once, when the session's transport is made.
        case process
        /// These variables instead of the process's, read by the same rules: for tests, or values
        /// from a configuration file.
        case variables([String: String])
        /// None: requests go direct, whatever the environment names.
        case ignored

        /// The variables this stands for, now.
        var resolved: [String: String] {
            switch self {
            case .process: ProcessInfo.processInfo.environment
            case .variables(let variables): variables
            case .ignored: [:]
            }
        }
    }
}
