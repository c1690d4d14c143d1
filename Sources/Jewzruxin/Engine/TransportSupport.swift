import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What every transport of the package needs and the engine provides beside the seam: what it reads
// of the configuration (the idle timeout of a request, the additional headers, the connection limit),
// the session's cookies as it reads and stores them, and a transfer that fails without the network.

/// What every transport reads of its session's configuration, once: the idle timeout, the additional
/// headers (in name order, so a request's head is the same every time), the cookie jar and the
/// connection limit.
struct TransportSettings: Sendable {
    let requestTimeout: TimeInterval
    let additionalHeaders: [(String, String)]
    let cookies: TransportCookieJar?
    /// The most connections to one host: the transport's own limit if it has one, else the
    /// configuration's, else 6.
    let maximumConnectionsPerHost: Int

    init(_ configuration: HTTPSession.Configuration, maximumConnectionsPerHost limit: Int?) {
        requestTimeout = configuration.timeoutIntervalForRequest
        additionalHeaders = configuration.httpAdditionalHeaders.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
        cookies = TransportCookieJar(configuration)
        let configured = configuration.httpMaximumConnectionsPerHost
        maximumConnectionsPerHost = max(1, limit ?? (configured > 0 ? configured : 6))
    }

    /// The longest wait for progress on `request`: its own timeout, or the configuration's when the
    /// request has URLRequest's default (60 s).
    func timeout(for request: URLRequest) -> TimeInterval {
        let own = request.timeoutInterval
        if own == 60, requestTimeout > 0 { return requestTimeout }
        return own > 0 ? own : 60
    }
}

/// A session's cookie storage as a transport uses it, from its own threads (`HTTPCookieStorage` is
/// thread-safe), honouring the configuration's accept policy.
final class TransportCookieJar: @unchecked Sendable {
    private let storage: HTTPCookieStorage
    private let policy: HTTPCookie.AcceptPolicy

    /// The jar of a session made with `configuration`; `nil` when it sends and stores no cookies.
    init?(_ configuration: HTTPSession.Configuration) {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage else { return nil }
        self.storage = storage
        self.policy = configuration.httpCookieAcceptPolicy
    }

    /// The `Cookie` value to send with `request`: `nil` when the request handles no cookies, sets its
    /// own `Cookie` header, or none is stored for its URL.
    func header(for request: URLRequest) -> String? {
        guard request.httpShouldHandleCookies, let url = request.url, request.value(forHTTPHeaderField: "Cookie") == nil
        else { return nil }
        return header(for: url)
    }

    /// Stores the cookies of the `Set-Cookie` field lines of the response to `request`, unless the
    /// request handles no cookies.
    func store(_ lines: [String], for request: URLRequest) {
        guard !lines.isEmpty, request.httpShouldHandleCookies, let url = request.url else { return }
        store(lines, for: url, mainDocumentURL: request.mainDocumentURL)
    }

    private func header(for url: URL) -> String? {
        // Many apps store no cookie: listing them all is cheaper than matching them to the URL,
        // which parses its host.
        guard storage.cookies?.isEmpty == false, let stored = storage.cookies(for: url), !stored.isEmpty else { return nil }
        let cookies = Self.sendable(stored, to: url, at: Date())
        guard !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    /// Of the cookies the storage has for `url`'s host, those RFC 6265 §5.4 lets go with a request
    /// to `url`, longest path first: unexpired, whose path matches the request's, and `Secure` ones
    /// only over https. swift-corelibs-foundation's `cookies(for:)` matches the domain only.
    static func sendable(_ cookies: [HTTPCookie], to url: URL, at now: Date) -> [HTTPCookie] {
        let path = requestPath(of: url)
        let isSecure = url.scheme.map { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "https") } ?? false
        return cookies
            .filter { cookie in
                (isSecure || !cookie.isSecure) && (cookie.expiresDate.map { $0 > now } ?? true) && pathMatches(path, cookie.path)
            }
            .sorted { $0.path.utf8.count > $1.path.utf8.count }
    }

    /// The path of `url` as sent, `/` when it has none: `URL.path` drops a final `/` and decodes.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// Whether a request's path is in a cookie's (RFC 6265 §5.1.4): the same, or below it at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if cookiePath.isEmpty || requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    private func store(_ lines: [String], for url: URL, mainDocumentURL: URL?) {
        guard policy != .never, let host = url.host?.lowercased() else { return }
        let now = Date()
        var cookies: [HTTPCookie] = []
        // A cookie at a time: FoundationNetworking joins the lines with ", ".
        for line in lines.flatMap(Self.cookieLines) {
            #if canImport(FoundationNetworking)
            // swift-corelibs-foundation reads no `Max-Age` (a cookie a server ended with
            // `Max-Age=0`, a logout, stayed; one for an hour lived as long as the process), and
            // gives a cookie without a `Path` the path `/`, not the request's directory (RFC 6265
            // §5.2.4): one set by /app/login went to every path of the host.
            let expiry = Self.maxAge(in: line).map { $0 > 0 ? now.addingTimeInterval($0) : Date.distantPast }
            let hasPath = Self.attributeValues("path", in: line).contains { $0.hasPrefix("/") }
            let path = hasPath ? nil : Self.defaultPath(of: url)
            #endif
            // `HTTPCookie` keeps any `Domain`, which swift-corelibs-foundation's storage then sends
            // to that domain's hosts: a cookie for a domain the host isn't in is dropped here.
            for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url)
            where Self.domainMatches(host, cookie.domain) {
                #if canImport(FoundationNetworking)
                if expiry != nil || (path != nil && path != cookie.path),
                   let corrected = Self.cookie(cookie, expiringAt: expiry, path: path) {
                    cookies.append(corrected)
                    continue
                }
                #endif
                cookies.append(cookie)
            }
        }
        guard !cookies.isEmpty else { return }
        if policy == .onlyFromMainDocumentDomain, let main = mainDocumentURL?.host?.lowercased(), !Self.domainMatches(host, main) {
            return
        }
        storage.setCookies(cookies, for: url, mainDocumentURL: mainDocumentURL)
    }

    /// The cookies of a `Set-Cookie` field value, one per string: a line as sent, or several that
    /// FoundationNetworking joined with ", ". A comma starts another cookie where `name=` follows
    /// it, not inside a date (`Expires=Wed, 21 Oct 2037 …`).
    static func cookieLines(_ field: String) -> [String] {
        var lines: [String] = []
        for piece in field.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = lines.last, !startsCookie(piece) {
                lines[lines.count - 1] = last + "," + piece
            } else {
                lines.append(String(piece))
            }
        }
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `text` begins with a cookie's `name=` (an HTTP token, after spaces).
    private static func startsCookie(_ text: Substring) -> Bool {
        let bytes = text.utf8.drop { $0 == 0x20 || $0 == 0x09 }
        let name = bytes.prefix { HTTPHeaderSyntax.isTokenByte($0) }
        return !name.isEmpty && bytes.dropFirst(name.count).first == UInt8(ascii: "=")
    }

    /// The values of the attributes named `name` (any case) of one cookie's line, in order; empty
    /// for one without `=`.
    static func attributeValues(_ name: String, in line: String) -> [String] {
        line.split(separator: ";").dropFirst().compactMap { attribute in
            let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard HTTPHeaderSyntax.equalIgnoringASCIICase(parts[0].trimmingCharacters(in: .whitespaces), name) else { return nil }
            return parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
    }

    /// The `Max-Age` of one cookie's line, in seconds (RFC 6265 §5.2.2): the last such attribute
    /// that is a whole number, `nil` when there is none.
    static func maxAge(in line: String) -> TimeInterval? {
        attributeValues("max-age", in: line).last { value in
            let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
            return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }.flatMap(TimeInterval.init)
    }

    /// The path of a cookie set without one by a response to `url` (RFC 6265 §5.1.4): the
    /// directory of its path, `/` at the top.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// `cookie` with `date` as its expiry and `path` as its path where given, keeping its other
    /// attributes.
    static func cookie(_ cookie: HTTPCookie, expiringAt date: Date?, path: String? = nil) -> HTTPCookie? {
        guard var properties = cookie.properties else { return nil }
        if let date {
            properties[.expires] = date
            properties[.discard] = nil
            properties[.maximumAge] = nil
        }
        if let path { properties[.path] = path }
        // swift-corelibs-foundation lists `Secure` as a Bool but reads it back only as "TRUE".
        properties[.secure] = cookie.isSecure ? "TRUE" : nil
        return HTTPCookie(properties: properties)
    }

    /// Whether `host` is in a cookie's domain (RFC 6265 §5.1.3; §5.3 drops a cookie whose `Domain`
    /// its response's host isn't in): the domain itself, or a name under it. An IP address is in
    /// its own only, and a single label (`com`) is no domain to share cookies in; beyond that no
    /// public-suffix list is consulted (`co.uk` passes).
    static func domainMatches(_ host: String, _ cookieDomain: String) -> Bool {
        var domain = cookieDomain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        let host = host.lowercased()
        if !domain.isEmpty, host == domain { return true }
        guard domain.contains("."), host.hasSuffix("." + domain) else { return false }
        let isIPAddress = host.contains(":") || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        return !isIPAddress
    }
}

/// A transfer that fails as soon as it is resumed, without touching the network.
final class FailedTransfer: HTTPTransfer {
    private let error: any Error
    private let events: HTTPTransferEvents
    private let reported = Locked(false)

    init(error: any Error, events: HTTPTransferEvents) {
        self.error = error
        self.events = events
    }

    func resume() { report(error) }
    func cancel() { report(URLError(.cancelled)) }

    private func report(_ error: any Error) {
        guard reported.withLock({ done in defer { done = true }; return !done }) else { return }
        let events = events
        Self.queue.async { events.didComplete(error: error) }
    }

    private static let queue = DispatchQueue(label: "Jewzruxin.FailedTransfer")
}
