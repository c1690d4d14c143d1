import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinPrimitives

// What the jar refuses, as browsers and curl do, so that no server can make every later request to
// it fail: lines RFC 6265bis ignores, a `Secure` cookie from plain http, a public suffix as a
// `Domain`, more cookies than the limits keep, a `Cookie` header beyond its bound.

extension TransportCookieJar {
    /// The most bytes of an attribute's value (RFC 6265bis §5.6): a larger one is ignored.
    static let maximumAttributeValueSize = 1024

    /// One cookie's `Set-Cookie` line as the jar reads it (RFC 6265bis §5.6): `nil` for a line
    /// with a control character but a tab, or whose name and value together are over the
    /// limit; the line without its attributes whose value is over 1,024 bytes.
    static func admissibleLine(_ line: String, limits: HTTPSession.CookieLimits) -> String? {
        guard !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first else { return nil }
        // `name=value`, or a value alone when there is no `=`; both without spaces and tabs around.
        let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let size = nameAndValue.reduce(0) { $0 + trimmed($1).count }
        guard size <= limits.maximumCookieSize else { return nil }
        func isOversized(_ attribute: Substring) -> Bool {
            guard let equals = attribute.firstIndex(of: "=") else { return false }
            return trimmed(attribute[attribute.index(after: equals)...]).count > maximumAttributeValueSize
        }
        let attributes = parts.dropFirst()
        guard attributes.contains(where: isOversized) else { return line }
        return ([pair] + attributes.filter { !isOversized($0) }).joined(separator: ";")
    }

    /// The UTF-8 bytes of `text` without the spaces and tabs around them.
    private static func trimmed(_ text: Substring) -> Substring.UTF8View.SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let bytes = text.utf8.drop(while: isSpace)
        guard let last = bytes.lastIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        return bytes[...last]
    }

    /// `cookie`, set by a response from `host`, as the jar keeps it; `nil` when RFC 6265bis §5.7
    /// says to ignore it: `Secure` but not set over https, or with a `Domain` that is a public
    /// suffix other than the host itself (one that is the host makes a cookie for that host alone).
    /// Without libpsl the list is not consulted: `domainMatches` has refused a single label.
    func admitted(_ cookie: HTTPCookie, from host: String, overHTTPS: Bool) -> HTTPCookie? {
        guard overHTTPS || !cookie.isSecure else { return nil }
        guard cookie.domain.hasPrefix("."), let publicSuffixes else { return cookie }
        let domain = cookie.domain.dropFirst().lowercased()
        guard publicSuffixes.isPublicSuffix(domain) else { return cookie }
        return domain == host ? Self.cookie(cookie, expiringAt: nil, domain: host) : nil
    }

    /// Whether `cookie`, set over plain http and not `Secure`, would replace a `Secure` one of
    /// `stored` (RFC 6265bis §5.7): one of its name whose domain is in the new one's or the other
    /// way round, whose path the new one's path is in.
    static func wouldReplaceSecure(_ cookie: HTTPCookie, in stored: [HTTPCookie]) -> Bool {
        guard !cookie.isSecure else { return false }
        let domain = bareDomain(cookie)
        return stored.contains { old in
            old.isSecure && old.name == cookie.name && pathMatches(cookie.path, old.path)
                && (domainMatches(domain, old.domain) || domainMatches(bareDomain(old), cookie.domain))
        }
    }

    /// A cookie's domain in lowercase, without the leading dot of one set with a `Domain`: the
    /// domain its limit counts it in.
    static func bareDomain(_ cookie: HTTPCookie) -> String {
        let domain = cookie.domain.lowercased()
        return domain.hasPrefix(".") ? String(domain.dropFirst()) : domain
    }

    /// Of the cookies of one response, in order, those worth storing: the last of each name,
    /// domain and path, and no more for a domain, or in all, than the limits keep (the later ones,
    /// which the storage would keep anyway as the most recently stored). Expired ones, which end
    /// a stored cookie, are all kept.
    static func latest(_ cookies: [HTTPCookie], limits: HTTPSession.CookieLimits, at now: Date) -> [HTTPCookie] {
        var seen: Set<CookieKey> = []
        var perDomain: [String: Int] = [:]
        var total = 0
        var kept: [HTTPCookie] = []
        for cookie in cookies.reversed() where seen.insert(CookieKey(cookie)).inserted {
            if cookie.expiresDate.map({ $0 <= now }) ?? false {
                kept.append(cookie)
                continue
            }
            let domain = bareDomain(cookie)
            guard perDomain[domain, default: 0] < limits.maximumCookiesPerDomain, total < limits.maximumCookies else { continue }
            perDomain[domain, default: 0] += 1
            total += 1
            kept.append(cookie)
        }
        return kept.reversed()
    }

    /// Deletes from the storage the cookies beyond the limits, those of the largest domains first.
    ///
    /// Run after each store, on a fresh snapshot, so that stores that race leave the storage within
    /// the limits once the last one is done; the storage's lock is not held throughout, and no
    /// lock of ours is held while the storage is called.
    func evictBeyondLimits(at now: Date) {
        guard let stored = storage.cookies else { return }
        let (lastUse, clock) = uses.lastUse()
        let doomed = Self.evictions(from: stored, limits: limits, at: now) { lastUse[CookieKey($0)] ?? 0 }
        for cookie in doomed { storage.deleteCookie(cookie) }
        var remaining = Set(stored.map(CookieKey.init))
        remaining.subtract(doomed.map(CookieKey.init))
        uses.forget(allBut: remaining, usedBy: clock)
    }

    /// Of `stored`, the cookies to delete so that no domain keeps more than
    /// ``HTTPSession/CookieLimits/maximumCookiesPerDomain`` and no more than
    /// ``HTTPSession/CookieLimits/maximumCookies`` are kept in all (RFC 6265 §5.3 step 12): the
    /// expired ones first, then those least recently used, by `lastUse` (a cookie never sent or
    /// stored by this process has 0), then the first in `stored`.
    static func evictions(
        from stored: [HTTPCookie], limits: HTTPSession.CookieLimits, at now: Date, lastUse: (HTTPCookie) -> UInt64
    ) -> [HTTPCookie] {
        let maximumPerDomain = max(0, limits.maximumCookiesPerDomain)
        let maximum = max(0, limits.maximumCookies)
        let ranked = stored.enumerated().map { index, cookie in
            (cookie: cookie, expired: cookie.expiresDate.map { $0 <= now } ?? false, lastUse: lastUse(cookie), index: index)
        }
        typealias Ranked = (cookie: HTTPCookie, expired: Bool, lastUse: UInt64, index: Int)
        func evictedFirst(_ a: Ranked, _ b: Ranked) -> Bool {
            if a.expired != b.expired { return a.expired }
            if a.lastUse != b.lastUse { return a.lastUse < b.lastUse }
            return a.index < b.index
        }
        var doomed: [Int] = []
        var kept: [Ranked] = []
        for (_, cookies) in Dictionary(grouping: ranked, by: { bareDomain($0.cookie) }) {
            guard cookies.count > maximumPerDomain else {
                kept += cookies
                continue
            }
            let order = cookies.sorted(by: evictedFirst)
            doomed += order.prefix(cookies.count - maximumPerDomain).map(\.index)
            kept += order.dropFirst(cookies.count - maximumPerDomain)
        }
        if kept.count > maximum {
            doomed += kept.sorted(by: evictedFirst).prefix(kept.count - maximum).map(\.index)
        }
        return doomed.sorted().map { stored[$0] }
    }

    /// The value of the `Cookie` header of `cookies`, in their order, and the cookies it carries:
    /// as many as fit in ``HTTPSession/CookieLimits/maximumHeaderSize`` bytes and
    /// ``HTTPSession/CookieLimits/maximumCookiesPerRequest``, stopping at the first that doesn't
    /// (as curl does), so a less specific cookie of a name is never sent without a more specific one.
    static func headerValue(of cookies: [HTTPCookie], limits: HTTPSession.CookieLimits) -> (value: String, sent: [HTTPCookie]) {
        var value = ""
        var size = 0
        var sent: [HTTPCookie] = []
        for cookie in cookies.prefix(max(0, limits.maximumCookiesPerRequest)) {
            let pair = cookie.name + "=" + cookie.value
            let added = (sent.isEmpty ? 0 : 2) + pair.utf8.count
            guard size + added <= limits.maximumHeaderSize else { break }
            if !sent.isEmpty { value += "; " }
            value += pair
            size += added
            sent.append(cookie)
        }
        return (value, sent)
    }
}

/// A stored cookie's identity: a new cookie of the same name, domain and path replaces it
/// (RFC 6265 §5.3 step 11).
struct CookieKey: Hashable, Sendable {
    let name: String
    let domain: String
    let path: String

    init(_ cookie: HTTPCookie) {
        name = cookie.name
        domain = cookie.domain.lowercased()
        path = cookie.path
    }
}

/// When each cookie of one storage was last sent or stored by a jar of this process, as a count of
/// uses: the order the jars evict in. One log per storage, which every jar over it shares (a
/// session's transports each have a jar; sessions may share a storage).
final class CookieUseLog: Sendable {
    private struct State {
        var clock: UInt64 = 0
        var lastUse: [CookieKey: UInt64] = [:]
    }

    private let state = Locked(State())

    /// Marks `cookies` used now, in their order (the last one the most recently).
    func recordUse(of cookies: [HTTPCookie]) {
        guard !cookies.isEmpty else { return }
        let keys = cookies.map(CookieKey.init)
        state.withLock { state in
            for key in keys {
                state.clock += 1
                state.lastUse[key] = state.clock
            }
        }
    }

    /// When each cookie was last used (one not in it never was), and the count of uses so far.
    func lastUse() -> (uses: [CookieKey: UInt64], clock: UInt64) {
        state.withLock { ($0.lastUse, $0.clock) }
    }

    /// Forgets the cookies no longer stored: those not in `kept` last used by `clock`, when a
    /// snapshot of the storage was taken (one used since may have been stored since).
    func forget(allBut kept: Set<CookieKey>, usedBy clock: UInt64) {
        state.withLock { state in
            let stale = state.lastUse.filter { !kept.contains($0.key) && $0.value <= clock }.keys
            for key in stale { state.lastUse[key] = nil }
        }
    }

    /// The log of `storage`, made on first use and kept while the storage lives.
    static func log(for storage: HTTPCookieStorage) -> CookieUseLog {
        let id = ObjectIdentifier(storage)
        return logs.withLock { logs in
            logs = logs.filter { $0.value.storage != nil }
            if let entry = logs[id], entry.storage === storage { return entry.log }
            let log = CookieUseLog()
            logs[id] = LogEntry(storage: storage, log: log)
            return log
        }
    }

    private struct LogEntry {
        weak var storage: HTTPCookieStorage?
        let log: CookieUseLog
    }

    private static let logs = Locked<[ObjectIdentifier: LogEntry]>([:])
}
