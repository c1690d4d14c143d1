import Foundation
import Testing
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the jar refuses and how much it keeps and sends (issue 29): RFC 6265bis, browsers and curl.
/// No socket: each jar has an in-memory storage of its own.
@Suite("Cookie jar: what it refuses, keeps and sends")
struct CookieJarLimitsTests {
    /// A jar over a new in-memory storage.
    static func jar(
        limits: HTTPSession.CookieLimits = .init(), publicSuffixes: PublicSuffixList? = PublicSuffixList.system
    ) throws -> TransportCookieJar {
        let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        return TransportCookieJar(storage: storage, limits: limits, publicSuffixes: publicSuffixes)
    }

    static func url(_ string: String) throws -> URL { try #require(URL(string: string)) }

    /// The names of the cookies `jar` keeps.
    static func names(_ jar: TransportCookieJar) -> Set<String> { Set(jar.storage.cookies?.map(\.name) ?? []) }

    @Test("a line with a control character (but a tab) is ignored whole (RFC 6265bis §5.6)", arguments: [
        ("a=1", true), ("a=x\ty", true), ("a=1; Path=/\t", true), ("a=caf\u{E9}", true),
        ("a=x\u{01}y", false), ("a=x\u{7F}y", false), ("a\u{1F}=1", false), ("a=x\u{00}y", false), ("a=1\u{0A}", false),
        ("a=1; Path=/p\u{08}", false), ("a=1; Domain=ex\u{7F}ample.com", false),
    ])
    func controlCharacters(line: String, kept: Bool) {
        #expect((TransportCookieJar.admissibleLine(line, limits: .init()) != nil) == kept)
    }

    @Test("a name and value over 4,096 bytes together are ignored; attribute values over 1,024 bytes too, but not their cookie")
    func sizes() {
        let limits = HTTPSession.CookieLimits()
        let name = String(repeating: "n", count: 96)
        #expect(TransportCookieJar.admissibleLine(name + "=" + String(repeating: "v", count: 4000), limits: limits) != nil)
        #expect(TransportCookieJar.admissibleLine(" \(name) = \(String(repeating: "v", count: 4000)) ; Path=/", limits: limits) != nil)
        #expect(TransportCookieJar.admissibleLine(name + "=" + String(repeating: "v", count: 4001), limits: limits) == nil)
        // A value alone (no `=`) counts the same.
        #expect(TransportCookieJar.admissibleLine(String(repeating: "v", count: 4097), limits: limits) == nil)
        // Two-byte characters count as two.
        #expect(TransportCookieJar.admissibleLine("a=" + String(repeating: "\u{E9}", count: 2048), limits: limits) == nil)
        #expect(TransportCookieJar.admissibleLine("a=" + String(repeating: "v", count: 60_000), limits: limits) == nil)
        var smaller = limits
        smaller.maximumCookieSize = 10
        #expect(TransportCookieJar.admissibleLine("abc=1234567", limits: smaller) != nil)
        #expect(TransportCookieJar.admissibleLine("abc=12345678", limits: smaller) == nil)

        let longPath = "/" + String(repeating: "p", count: 1024)
        #expect(TransportCookieJar.admissibleLine("a=1; Path=/" + String(repeating: "p", count: 1023), limits: limits)
            == "a=1; Path=/" + String(repeating: "p", count: 1023))
        #expect(TransportCookieJar.admissibleLine("a=1; Path=\(longPath); Secure", limits: limits) == "a=1; Secure")
        let longDomain = String(repeating: "d.", count: 512) + "example.com"
        #expect(TransportCookieJar.admissibleLine("a=1; Domain=\(longDomain); Path=/", limits: limits) == "a=1; Path=/")
    }

    @Test("stored: neither a cookie with a control character nor an oversized one; a tab in a value is kept")
    func storedThroughTheJar() throws {
        let jar = try Self.jar()
        let url = try Self.url("http://example.com/")
        jar.store(["ok=1", "ctl=a\u{01}b", "del=a\u{7F}b", "tab=a\tb", "big=" + String(repeating: "v", count: 60_000)], for: url, mainDocumentURL: nil)
        #expect(Self.names(jar) == ["ok", "tab"])
        #expect(jar.storage.cookies?.first { $0.name == "tab" }?.value == "a\tb")
    }

    @Test("2,000 cookies in one response: 50 kept for the domain, the last ones, and a bounded Cookie header")
    func twoThousandCookies() throws {
        let jar = try Self.jar()
        let url = try Self.url("http://example.com/")
        jar.store((0..<2000).map { "c\($0)=\(String(repeating: "v", count: 100)); Path=/" }, for: url, mainDocumentURL: nil)
        let stored = jar.storage.cookies ?? []
        #expect(stored.count == 50)
        #expect(Set(stored.map(\.name)) == Set((1950..<2000).map { "c\($0)" }))
        let header = try #require(jar.header(for: url))
        #expect(header.utf8.count <= 8190)
        #expect(header.split(separator: ";").count == 50)

        // Another response, another 2,000: still 50, the newest.
        jar.store((2000..<4000).map { "c\($0)=1" }, for: url, mainDocumentURL: nil)
        #expect(Self.names(jar) == Set((3950..<4000).map { "c\($0)" }))
    }

    @Test("the domain's least recently used cookie is evicted, expired ones first; the total is capped across domains")
    func leastRecentlyUsedEvicted() throws {
        var limits = HTTPSession.CookieLimits()
        limits.maximumCookiesPerDomain = 3
        limits.maximumCookies = 5
        let jar = try Self.jar(limits: limits)
        let url = try Self.url("http://example.com/")
        // GIVEN three cookies, stored in order, each sent by a path of its own
        jar.store(["a=1; Path=/a", "b=1; Path=/b", "c=1; Path=/c"], for: url, mainDocumentURL: nil)
        // WHEN a is sent, then a fourth stored
        #expect(jar.header(for: try Self.url("http://example.com/a/x")) == "a=1")
        jar.store(["d=1; Path=/d"], for: url, mainDocumentURL: nil)
        // THEN b, the least recently used, is gone
        #expect(Self.names(jar) == ["a", "c", "d"])
        // Sent c, then stored e: a goes (used before c and d were).
        _ = jar.header(for: try Self.url("http://example.com/c"))
        jar.store(["e=1; Path=/e"], for: url, mainDocumentURL: nil)
        #expect(Self.names(jar) == ["c", "d", "e"])

        // Another domain's cookies count in the total (5): the least recently used of all, d, goes.
        jar.store(["x=1", "y=1", "z=1"], for: try Self.url("http://other.example/"), mainDocumentURL: nil)
        #expect(Self.names(jar) == ["c", "e", "x", "y", "z"])
    }

    @Test("eviction order: expired first, then least recently used, then first stored", arguments: [
        // (expired, last use) per cookie, the limit, and which are evicted.
        ([(false, 3), (false, 1), (false, 2)], 2, [1]),
        ([(false, 3), (true, 9), (false, 2)], 2, [1]),
        ([(false, 0), (false, 0), (false, 5)], 1, [0, 1]),
        ([(false, 1), (false, 2)], 2, []),
        ([(false, 1), (false, 2)], 0, [0, 1]),
    ] as [([(Bool, UInt64)], Int, [Int])])
    func evictionOrder(cookies: [(Bool, UInt64)], limit: Int, evicted: [Int]) throws {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let stored = try cookies.indices.map { index in
            try CookieJarTests.cookie("k\(index)", expires: cookies[index].0 ? now.addingTimeInterval(-1) : nil)
        }
        var limits = HTTPSession.CookieLimits()
        limits.maximumCookiesPerDomain = limit
        let uses = Dictionary(uniqueKeysWithValues: zip(stored.map(\.name), cookies.map(\.1)))
        let doomed = TransportCookieJar.evictions(from: stored, limits: limits, at: now) { uses[$0.name] ?? 0 }
        #expect(doomed.map(\.name) == evicted.map { "k\($0)" })
    }

    @Test("the Cookie header stops before the first cookie that would take it over its bound, the longest path first")
    func headerBound() throws {
        let jar = try Self.jar()
        let thousand = String(repeating: "v", count: 994)
        for index in 0..<5 {
            jar.storage.setCookie(try CookieJarTests.cookie("deep\(index)", path: "/deep", value: thousand))
        }
        for index in 0..<20 {
            jar.storage.setCookie(try CookieJarTests.cookie("root\(index)", value: thousand))
        }
        // 1,000 bytes a cookie ("deepN=" and 994; a root one 1 more past root9), 2 between: 8 fit in 8,190.
        let header = try #require(jar.header(for: try Self.url("http://example.com/deep/page")))
        let names = header.split(separator: ";").map { String($0.split(separator: "=")[0]).trimmingCharacters(in: .whitespaces) }
        #expect(header.utf8.count <= 8190)
        #expect(names.count == 8)
        #expect(Set(names.prefix(5)) == Set((0..<5).map { "deep\($0)" }))

        // 150 cookies a request at most.
        let many = try Self.jar()
        for index in 0..<200 {
            many.storage.setCookie(try CookieJarTests.cookie("m\(index)"))
        }
        #expect(try #require(many.header(for: try Self.url("http://example.com/"))).split(separator: ";").count == 150)

        // A first cookie larger than the bound: no header at all.
        var tiny = HTTPSession.CookieLimits()
        tiny.maximumHeaderSize = 10
        let none = try Self.jar(limits: tiny)
        none.storage.setCookie(try CookieJarTests.cookie("large", value: "12345678901"))
        #expect(none.header(for: try Self.url("http://example.com/")) == nil)
    }

    @Test("a Secure cookie set over http is refused; one over https kept; http can't replace it (RFC 6265bis §5.7)")
    func secureOverHTTP() throws {
        let jar = try Self.jar()
        jar.store(["s=http; Secure; Path=/"], for: try Self.url("http://example.com/"), mainDocumentURL: nil)
        #expect(Self.names(jar).isEmpty)
        jar.store(["s=https; Secure; Path=/", "t=https; Secure; Path=/app"], for: try Self.url("https://example.com/"), mainDocumentURL: nil)
        // A plain cookie of the same name from http: not over the Secure one (same or deeper
        // path, same or wider domain); beside it where its path is elsewhere.
        jar.store(["s=http", "t=http; Path=/", "s=wide; Domain=example.com; Path=/x"], for: try Self.url("http://www.example.com/"),
                  mainDocumentURL: nil)
        jar.store(["s=http2; Path=/"], for: try Self.url("http://example.com/"), mainDocumentURL: nil)
        let stored = jar.storage.cookies ?? []
        #expect(stored.filter { $0.name == "s" }.map(\.value) == ["https"])
        #expect(stored.first { $0.name == "t" && !$0.isSecure }?.path == "/")
        #expect(stored.first { $0.name == "t" && $0.isSecure }?.value == "https")
    }

    @Test("a Domain that is a public suffix is refused, by libpsl", .enabled(if: PublicSuffixList.system != nil, "libpsl can't be loaded here"))
    func publicSuffixDomain() throws {
        let jar = try Self.jar()
        jar.store(["suffix=1; Domain=co.uk", "dotted=1; Domain=.co.uk", "site=1; Domain=example.co.uk"],
                  for: try Self.url("http://www.example.co.uk/"), mainDocumentURL: nil)
        jar.store(["pages=1; Domain=github.io", "mine=1; Domain=me.github.io"], for: try Self.url("http://me.github.io/"), mainDocumentURL: nil)
        jar.store(["tld=1; Domain=com"], for: try Self.url("http://www.example.com/"), mainDocumentURL: nil)
        #expect(Self.names(jar) == ["site", "mine"])
        // A public suffix that is the host itself makes a cookie for that host alone.
        let host = try Self.jar()
        host.store(["own=1; Domain=github.io"], for: try Self.url("http://github.io/"), mainDocumentURL: nil)
        let own = try #require(host.storage.cookies?.first)
        #expect(own.domain == "github.io")
        #expect(host.header(for: try Self.url("http://github.io/")) == "own=1")
        #expect(host.header(for: try Self.url("http://me.github.io/")) == nil)
    }

    @Test("without libpsl: a single label is refused, a two-label suffix (co.uk) kept, as documented")
    func publicSuffixFallback() throws {
        let jar = try Self.jar(publicSuffixes: nil)
        jar.store(["suffix=1; Domain=co.uk", "site=1; Domain=example.co.uk"], for: try Self.url("http://www.example.co.uk/"), mainDocumentURL: nil)
        jar.store(["tld=1; Domain=com"], for: try Self.url("http://www.example.com/"), mainDocumentURL: nil)
        #expect(Self.names(jar) == ["suffix", "site"])
    }

    /// Whether libpsl is installed where Debian, Ubuntu, Fedora and Arch put it.
    static let libpslInstalled = [
        "/usr/lib/x86_64-linux-gnu/libpsl.so.5", "/usr/lib/aarch64-linux-gnu/libpsl.so.5", "/usr/lib64/libpsl.so.5", "/usr/lib/libpsl.so.5",
    ].contains(where: FileManager.default.fileExists(atPath:))

    @Test("an installed libpsl is loaded and answers for co.uk and github.io", .enabled(if: libpslInstalled, "no libpsl.so.5 on this system"))
    func libpslLoaded() throws {
        let list = try #require(PublicSuffixList.system, "libpsl.so.5 is installed but wasn't loaded")
        #expect(list.description.hasPrefix("libpsl"))
        #expect(list.isPublicSuffix("co.uk"))
        #expect(list.isPublicSuffix("github.io"))
        #expect(list.isPublicSuffix("com"))
        #expect(!list.isPublicSuffix("example.co.uk"))
        #expect(!list.isPublicSuffix("example.com"))
    }
}
