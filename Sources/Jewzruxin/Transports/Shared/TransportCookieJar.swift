import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinPrimitives

/// A session's cookie storage as a transport uses it, from its own threads, honouring the
/// configuration's accept policy and cookie limits (`TransportCookieJar+Limits.swift`).
///
/// `@unchecked Sendable`: `HTTPCookieStorage` is thread-safe (it locks itself) but not marked
/// `Sendable`; the other properties are immutable, and the use log locks itself.
final class TransportCookieJar: @unchecked Sendable {
    let storage: HTTPCookieStorage
    private let policy: HTTPCookie.AcceptPolicy
    let limits: HTTPSession.CookieLimits
    /// The list a cookie's `Domain` is checked against; `nil` for the jar's own rule alone.
    let publicSuffixes: PublicSuffixList?
    /// When each cookie of the storage was last sent or stored, shared by every jar over it.
    let uses: CookieUseLog

    /// The jar of a session made with `configuration`; `nil` when it sends and stores no cookies.
    convenience init?(_ configuration: HTTPSession.Configuration) {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage else { return nil }
        self.init(storage: storage, policy: configuration.httpCookieAcceptPolicy, limits: configuration.cookieLimits)
    }

    /// A jar over `storage`, checking a cookie's `Domain` against `publicSuffixes` (the system's
    /// list by default; `nil` for none).
    init(
        storage: HTTPCookieStorage, policy: HTTPCookie.AcceptPolicy = .always, limits: HTTPSession.CookieLimits = .init(),
        publicSuffixes: PublicSuffixList? = PublicSuffixList.system
    ) {
        self.storage = storage
        self.policy = policy
        self.limits = limits
        self.publicSuffixes = publicSuffixes
        uses = CookieUseLog.log(for: storage)
    }

    /// Stores the cookies of the `Set-Cookie` field lines of the response to `request`, unless the
    /// request handles no cookies.
    func store(_ lines: [String], for request: URLRequest) {
        guard !lines.isEmpty, request.httpShouldHandleCookies, let url = request.url else { return }
        store(lines, for: url, mainDocumentURL: request.mainDocumentURL)
    }

    /// Stores the cookies of the `Set-Cookie` field lines of the response to `request`, unless the
    /// request handles no cookies.
    func store(_ lines: [String], for request: HTTPRequest) {
        guard !lines.isEmpty, request.httpShouldHandleCookies, let url = request.url else { return }
        store(lines, for: url, mainDocumentURL: request.mainDocumentURL)
    }

    func header(for url: URL) -> String? {
        // One snapshot of the storage, matched here: many apps store no cookie, and
        // `cookies(for:)` would take a second one and parse the host again.
        guard let stored = storage.cookies, !stored.isEmpty else { return nil }
        let cookies = Self.sendable(stored, to: url, at: Date())
        guard !cookies.isEmpty else { return nil }
        let (value, sent) = Self.headerValue(of: cookies, limits: limits)
        uses.recordUse(of: sent)
        return sent.isEmpty ? nil : value
    }

    /// Of `cookies`, those RFC 6265 §5.4 lets go with a request to `url`, longest path first: for
    /// its host (a host-only cookie for that host alone, one with a `.domain` for the hosts in it),
    /// unexpired, whose path matches the request's, and `Secure` ones only over https.
    /// swift-corelibs-foundation's `cookies(for:)` checks the domain only.
    static func sendable(_ cookies: [HTTPCookie], to url: URL, at now: Date) -> [HTTPCookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let path = requestPath(of: url)
        let isSecure = url.scheme.map { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "https") } ?? false
        return cookies
            .filter { cookie in
                let domain = cookie.domain
                let forHost = domain.hasPrefix(".") ? domainMatches(host, domain) : HTTPHeaderSyntax.equalIgnoringASCIICase(host, domain)
                return forHost && (isSecure || !cookie.isSecure) && (cookie.expiresDate.map { $0 > now } ?? true)
                    && pathMatches(path, cookie.path)
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

    func store(_ lines: [String], for url: URL, mainDocumentURL: URL?) {
        guard policy != .never, let host = url.host?.lowercased() else { return }
        let now = Date()
        let overHTTPS = url.scheme.map { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "https") } ?? false
        var cookies: [HTTPCookie] = []
        // A cookie at a time: FoundationNetworking joins the lines with ", ". A line RFC 6265bis
        // ignores (a control character, too large) is dropped before Foundation reads it.
        for line in lines.flatMap(Self.cookieLines).compactMap({ Self.admissibleLine($0, limits: limits) }) {
            #if canImport(FoundationNetworking)
            // swift-corelibs-foundation reads no `Max-Age` (a cookie a server ended with
            // `Max-Age=0`, a logout, stayed; one for an hour lived as long as the process), reads
            // some `Expires` dates wrong (``CookieDate``), and gives a cookie without a `Path` the
            // path `/`, not the request's directory (RFC 6265 §5.2.4): one set by /app/login went
            // to every path of the host. Max-Age wins over Expires (§5.3).
            let expiry = Self.maxAge(in: line).map { $0 > 0 ? now.addingTimeInterval($0) : Date.distantPast }
                ?? Self.attributeValues("expires", in: line).compactMap(CookieDate.parse).last
            let hasPath = Self.attributeValues("path", in: line).contains { $0.hasPrefix("/") }
            let path = hasPath ? nil : Self.defaultPath(of: url)
            #endif
            // `HTTPCookie` keeps any `Domain`, which swift-corelibs-foundation's storage then sends
            // to that domain's hosts: a cookie for a domain the host isn't in is dropped here.
            for parsed in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url)
            where Self.domainMatches(host, parsed.domain) {
                var cookie = parsed
                #if canImport(FoundationNetworking)
                if (expiry != nil && expiry != cookie.expiresDate) || (path != nil && path != cookie.path),
                   let corrected = Self.cookie(cookie, expiringAt: expiry, path: path) {
                    cookie = corrected
                }
                #endif
                if let admitted = admitted(cookie, from: host, overHTTPS: overHTTPS) { cookies.append(admitted) }
            }
        }
        guard !cookies.isEmpty else { return }
        if policy == .onlyFromMainDocumentDomain, let main = mainDocumentURL?.host?.lowercased(), !Self.domainMatches(host, main) {
            return
        }
        if !overHTTPS, cookies.contains(where: { !$0.isSecure }), let stored = storage.cookies {
            cookies.removeAll { Self.wouldReplaceSecure($0, in: stored) }
        }
        let kept = Self.latest(cookies, limits: limits, at: now)
        guard !kept.isEmpty else { return }
        storage.setCookies(kept, for: url, mainDocumentURL: mainDocumentURL)
        uses.recordUse(of: kept)
        evictBeyondLimits(at: now)
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

    /// `cookie` with `date` as its expiry, `path` as its path and `domain` as its domain where
    /// given, keeping its other attributes.
    static func cookie(_ cookie: HTTPCookie, expiringAt date: Date?, path: String? = nil, domain: String? = nil) -> HTTPCookie? {
        guard var properties = cookie.properties else { return nil }
        if let date {
            properties[.expires] = date
            properties[.discard] = nil
            properties[.maximumAge] = nil
        }
        if let path { properties[.path] = path }
        if let domain { properties[.domain] = domain }
        // swift-corelibs-foundation lists `Secure` as a Bool but reads it back only as "TRUE".
        properties[.secure] = cookie.isSecure ? "TRUE" : nil
        return HTTPCookie(properties: properties)
    }

    /// Whether `host` is in a cookie's domain (RFC 6265 §5.1.3; §5.3 drops a cookie whose `Domain`
    /// its response's host isn't in): the domain itself, or a name under it. An IP address is in
    /// its own only, and a single label (`com`) is no domain to share cookies in; beyond that no
    /// public-suffix list is consulted here (`co.uk` passes): storing does (``admitted(_:from:overHTTPS:)``).
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

/// The date of a cookie's `Expires` attribute, read as RFC 6265 §5.1.1 says: leniently, whatever
/// the format of the day (IMF-fixdate, RFC 850 with a two-digit year, asctime, with or without the
/// weekday, dashes or spaces). swift-corelibs-foundation reads a two-digit year as is (`37` as the
/// year 37: a cookie that ended at once) and a date without its weekday not at all.
enum CookieDate {
    /// The date `text` names, in UTC; `nil` when it names none.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let found = hms(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = monthNumber(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if year >= 70 && year <= 99 { year += 1900 } else if year >= 0 && year <= 69 { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
        // A day the month doesn't have (30 February) is no date.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The number `token` starts with, of `digits` digits and then no digit.
    private static func leadingNumber(_ token: Substring.UTF8View.SubSequence, digits: ClosedRange<Int>) -> Int? {
        let number = token.prefix(while: isDigit)
        guard digits.contains(number.count) else { return nil }
        return value(of: number)
    }

    private static func value(of digits: Substring.UTF8View.SubSequence) -> Int {
        digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss`, each of one or two digits, then no digit.
    private static func hms(_ token: Substring.UTF8View.SubSequence) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let number = rest.prefix(while: isDigit)
            guard (1...2).contains(number.count) else { return nil }
            fields.append(value(of: number))
            rest = rest.dropFirst(number.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        if let next = rest.first, isDigit(next) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// 1 to 12 for a token that starts with a month's first three letters, any case.
    private static func monthNumber(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }
}
