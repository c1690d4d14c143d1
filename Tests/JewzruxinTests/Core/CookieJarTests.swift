import Foundation
import Testing
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which stored cookies go with a request (RFC 6265 §5.4), as every transport's jar picks them:
/// no socket, no storage.
@Suite("Cookie jar: which cookies go with a request")
struct CookieJarTests {
    @Test("path-match (RFC 6265 §5.1.4)", arguments: [
        ("/", "/", true), ("/a", "/", true), ("/a", "/a", true), ("/a/", "/a", true), ("/a/b", "/a", true),
        ("/a/b", "/a/", true), ("/a/", "/a/", true), ("/ab", "/a", false), ("/a", "/a/", false),
        ("/", "/a", false), ("/A", "/a", false), ("/a", "", true),
    ])
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(TransportCookieJar.pathMatches(requestPath, cookiePath) == matches)
    }

    @Test("domain-match (RFC 6265 §5.1.3): the host, or a domain of more than one label it is under", arguments: [
        ("www.example.com", "www.example.com", true), ("www.example.com", ".example.com", true), ("www.example.com", "example.com", true),
        ("WWW.Example.com", ".EXAMPLE.com", true), ("example.com", ".example.com", true), ("a.b.example.com", "example.com", true),
        ("www.example.com", "other.com", false), ("example.com", "www.example.com", false), ("badexample.com", "example.com", false),
        ("www.example.com", "com", false), ("www.example.com", ".com", false), ("localhost", "localhost", true),
        ("127.0.0.1", "127.0.0.1", true), ("127.0.0.1", "0.0.1", false), ("www.example.com", "", false), ("www.example.com", ".", false),
    ])
    func domainMatch(host: String, cookieDomain: String, matches: Bool) {
        #expect(TransportCookieJar.domainMatches(host, cookieDomain) == matches)
    }

    @Test("a Set-Cookie value splits into its cookies at a comma that a name= follows, not inside a date")
    func cookieLines() {
        #expect(TransportCookieJar.cookieLines("a=1; Path=/") == ["a=1; Path=/"])
        #expect(TransportCookieJar.cookieLines("a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT, b=2; Max-Age=5,c=3")
            == ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2; Max-Age=5", "c=3"])
        #expect(TransportCookieJar.cookieLines("a=x, y; Path=/, , b=") == ["a=x, y; Path=/,", "b="])
        #expect(TransportCookieJar.cookieLines("").isEmpty)
    }

    @Test("Max-Age (RFC 6265 §5.2.2): the last whole number, any case; others ignored", arguments: [
        ("a=1; Max-Age=60", 60.0 as Double?), ("a=1; max-age=0", 0), ("a=1; MAX-AGE = -5 ; Path=/", -5),
        ("a=1; Max-Age=60; Max-Age=7", 7), ("a=1; Max-Age=60; Max-Age=soon", 60), ("a=1; Max-Age=1.5", nil),
        ("a=1; Max-Age=", nil), ("a=1; Path=/", nil), ("max-age=5", nil), ("a=1; Max-Age=+5", nil),
    ])
    func maxAge(line: String, age: Double?) {
        #expect(TransportCookieJar.maxAge(in: line) == age)
    }

    @Test("the default path (RFC 6265 §5.1.4): the directory of the request's path", arguments: [
        ("http://h/", "/"), ("http://h", "/"), ("http://h/login", "/"), ("http://h/app/login", "/app"),
        ("http://h/app/", "/app"), ("http://h/a/b/c?q=1", "/a/b"),
    ])
    func defaultPath(url: String, path: String) throws {
        #expect(TransportCookieJar.defaultPath(of: try #require(URL(string: url))) == path)
    }

    @Test("cookie dates (RFC 6265 §5.1.1): any of the formats servers send, two-digit years in 1970–2069", arguments: [
        ("Wed, 21 Oct 2037 07:28:00 GMT", "2037-10-21T07:28:00Z" as String?),
        ("Wed, 21-Oct-2037 07:28:00 GMT", "2037-10-21T07:28:00Z"),
        ("Wednesday, 21-Oct-37 07:28:00 GMT", "2037-10-21T07:28:00Z"),
        ("Thu, 01-Jan-70 00:00:01 GMT", "1970-01-01T00:00:01Z"),
        ("Wed Oct 21 07:28:00 2037", "2037-10-21T07:28:00Z"),
        ("21 Oct 2037 07:28:00 GMT", "2037-10-21T07:28:00Z"),
        ("wed, 21 OCTOBER 2037 7:8:9", "2037-10-21T07:08:09Z"),
        ("Sat, 29 Feb 2020 23:59:59 GMT", "2020-02-29T23:59:59Z"),
        ("Sun, 30 Feb 2020 12:00:00 GMT", nil), ("Wed, 32 Oct 2037 07:28:00 GMT", nil),
        ("Wed, 21 Oct 2037 24:00:00 GMT", nil), ("Wed, 21 Oct 1600 07:28:00 GMT", nil),
        ("Wed, 21 Oct 2037", nil), ("tomorrow", nil), ("", nil),
    ])
    func cookieDate(text: String, expected: String?) {
        #expect(CookieDate.parse(text).map { ISO8601DateFormatter().string(from: $0) } == expected)
    }

    @Test("a cookie given an expiry keeps its name, value, domain, path and Secure")
    func expiring() throws {
        let date = Date(timeIntervalSince1970: 2_000_000_000)
        for secure in [false, true] {
            let aged = try #require(TransportCookieJar.cookie(try Self.cookie("k", path: "/p", secure: secure), expiringAt: date))
            #expect(aged.expiresDate == date)
            #expect([aged.name, aged.value, aged.domain, aged.path] == ["k", "1", "example.com", "/p"])
            #expect(aged.isSecure == secure)
            #expect(!aged.isSessionOnly)
        }
    }

    static func cookie(
        _ name: String, domain: String = "example.com", path: String = "/", secure: Bool = false, expires: Date? = nil, value: String = "1"
    ) throws -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .domain: domain, .path: path]
        if secure { properties[.secure] = "TRUE" }
        if let expires { properties[.expires] = expires }
        return try #require(HTTPCookie(properties: properties))
    }

    @Test("unexpired, path-matched, Secure only over https, the longest path first")
    func sendable() throws {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let stored = [
            try Self.cookie("root"),
            try Self.cookie("deep", path: "/api/v1/"),
            try Self.cookie("mid", path: "/api"),
            try Self.cookie("other", path: "/web"),
            try Self.cookie("secure", secure: true),
            try Self.cookie("expired", expires: now.addingTimeInterval(-1)),
            try Self.cookie("fresh", expires: now.addingTimeInterval(60)),
        ]
        func names(_ url: String) throws -> [String] {
            TransportCookieJar.sendable(stored, to: try #require(URL(string: url)), at: now).map(\.name)
        }
        let overHTTP = try names("http://example.com/api/v1/items")
        #expect(Array(overHTTP.prefix(2)) == ["deep", "mid"])
        #expect(Set(overHTTP) == ["deep", "mid", "root", "fresh"])
        #expect(Set(try names("https://example.com/api/v1/items")) == ["deep", "mid", "root", "fresh", "secure"])
        #expect(Set(try names("http://example.com")) == ["root", "fresh"])
        #expect(Set(try names("http://example.com/api/v1/")) == ["deep", "mid", "root", "fresh"])
        #expect(Set(try names("HTTPS://example.com/web/page")) == ["other", "root", "fresh", "secure"])
    }

    @Test("a host-only cookie goes to its host alone; one with a .domain to the hosts in it")
    func sendableByHost() throws {
        let stored = [
            try Self.cookie("hostOnly", domain: "example.com"),
            try Self.cookie("shared", domain: ".example.com"),
            try Self.cookie("api", domain: "api.example.com"),
            try Self.cookie("elsewhere", domain: ".other.com"),
        ]
        func names(_ url: String) throws -> Set<String> {
            Set(TransportCookieJar.sendable(stored, to: try #require(URL(string: url)), at: Date()).map(\.name))
        }
        #expect(try names("http://example.com/") == ["hostOnly", "shared"])
        #expect(try names("http://API.example.com/") == ["shared", "api"])
        #expect(try names("http://deep.api.example.com/") == ["shared"])
        #expect(try names("http://badexample.com/").isEmpty)
        #expect(try names("http://other.com/") == ["elsewhere"])
    }
}
