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
        let path = url.path.isEmpty ? "/" : url.path
        let isSecure = url.scheme.map { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "https") } ?? false
        return cookies
            .filter { cookie in
                (isSecure || !cookie.isSecure) && (cookie.expiresDate.map { $0 > now } ?? true) && pathMatches(path, cookie.path)
            }
            .sorted { $0.path.utf8.count > $1.path.utf8.count }
    }

    /// Whether a request's path is in a cookie's (RFC 6265 §5.1.4): the same, or below it at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if cookiePath.isEmpty || requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    private func store(_ lines: [String], for url: URL, mainDocumentURL: URL?) {
        guard policy != .never, let host = url.host?.lowercased() else { return }
        // `HTTPCookie` splits a line FoundationNetworking joined with ", " (a date in `Expires`
        // has a comma too), but a line at a time where the transport has them costs no guess.
        // It keeps any `Domain`, which swift-corelibs-foundation's storage then sends to that
        // domain's hosts: a cookie for a domain the host isn't in is dropped here.
        let cookies = lines.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
            .filter { Self.domainMatches(host, $0.domain) }
        guard !cookies.isEmpty else { return }
        if policy == .onlyFromMainDocumentDomain, let main = mainDocumentURL?.host?.lowercased(), !Self.domainMatches(host, main) {
            return
        }
        storage.setCookies(cookies, for: url, mainDocumentURL: mainDocumentURL)
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
