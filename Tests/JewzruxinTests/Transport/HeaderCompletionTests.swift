import Foundation
import Testing
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one rule of the fields a request goes out with beside its own, without a network.
@Suite("Header completion")
struct HeaderCompletionTests {
    /// A completion over a jar of its own holding `sid=abc` for example.com, as a transport that
    /// decodes gzip would make it.
    static func completion(
        additional: [String: String] = [:], acceptEncoding: String? = "gzip, deflate",
        emptyBody: HeaderCompletion.EmptyBodyRule = .methodsWithContent
    ) throws -> HeaderCompletion {
        let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "sid", .value: "abc", .domain: "example.com", .path: "/"])))
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.httpAdditionalHeaders = additional
        let jar = TransportCookieJar(storage: storage, publicSuffixes: nil)
        return HeaderCompletion(configuration, cookies: jar, acceptEncoding: acceptEncoding, emptyBody: emptyBody)
    }

    static func request(_ url: String, _ method: HTTPMethod = .get, _ fields: [String: String] = [:]) throws -> HTTPRequest {
        var request = HTTPRequest(url: try #require(URL(string: url)), method: method)
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static func fields(_ request: HTTPRequest) -> [String: String] {
        request.showingCompletedFields.core.allHTTPHeaderFields ?? [:]
    }

    @Test("a bare GET gets Host, the cookie, Accept-Encoding, User-Agent and Accept, and no framing")
    func defaults() throws {
        var request = try Self.request("http://example.com/a")
        try Self.completion().complete(&request, body: .none)
        #expect(Self.fields(request) == [
            "Host": "example.com", "Cookie": "sid=abc", "Accept-Encoding": "gzip, deflate", "User-Agent": "Jewzruxin", "Accept": "*/*",
        ])
        #expect(request.headerFieldsCompleted)
    }

    @Test("the caller's field wins over a default of any spelling; the session's over the transport's")
    func callerWins() throws {
        var request = try Self.request("http://example.com/", .get, [
            "user-agent": "app/1", "ACCEPT": "application/json", "accept-encoding": "identity", "cookie": "mine=1", "host": "other",
        ])
        try Self.completion(additional: ["User-Agent": "session", "X-Session": "s", "Accept-encoding": "br"]).complete(&request, body: .none)
        // Compared by lowercased name: URLRequest may keep a name in a spelling of its own.
        let fields = Dictionary(Self.fields(request).map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(fields == [
            "user-agent": "app/1", "accept": "application/json", "accept-encoding": "identity", "cookie": "mine=1", "host": "other",
            "x-session": "s",
        ])
        #expect(Self.fields(request).count == 6)
    }

    @Test("no cookie for a request that handles none")
    func cookiesOnlyWhenHandled() throws {
        var request = try Self.request("http://example.com/")
        request.core.httpShouldHandleCookies = false
        try Self.completion().complete(&request, body: .none)
        #expect(Self.fields(request)["Cookie"] == nil)
    }

    @Test("Host: the port unless the scheme's default; an IPv6 address in brackets", arguments: [
        ("http://example.com:80/", "example.com"), ("http://example.com:443/", "example.com:443"),
        ("https://example.com:443/", "example.com"), ("https://example.com:8443/", "example.com:8443"),
        ("http://[::1]:8080/", "[::1]:8080"), ("http://127.0.0.1/", "127.0.0.1"),
        ("http://user:pw@example.com:8080/a?b#c", "example.com:8080"), ("http://[fe80::1%25eth0]:81/", "[fe80::1]:81"),
        ("HTTPS://Example.com:443", "Example.com"), ("http://example.com:/", "example.com"),
    ])
    func host(url: String, expected: String) throws {
        #expect(HeaderCompletion.hostField(of: try #require(URL(string: url))) == expected)
    }

    @Test("the URL's user and password become Basic credentials, percent-decoded, unless the request has an Authorization")
    func basicFromURL() throws {
        var request = try Self.request("http://us%40er:p%3Aw@example.com/")
        try Self.completion().complete(&request, body: .none)
        #expect(Self.fields(request)["Authorization"] == "Basic " + Data("us@er:p:w".utf8).base64EncodedString())
        var own = try Self.request("http://user:pw@example.com/", .get, ["Authorization": "Bearer t"])
        try Self.completion().complete(&own, body: .none)
        #expect(Self.fields(own)["Authorization"] == "Bearer t")
    }

    @Test("framing: the length, chunked when unknown or asked for, Content-Length: 0 for POST, PUT and PATCH, none for HEAD")
    func framing() throws {
        func framed(_ method: HTTPMethod, _ body: HeaderCompletion.BodyLength, _ fields: [String: String] = [:],
                    _ rule: HeaderCompletion.EmptyBodyRule = .methodsWithContent) throws -> [String: String] {
            var request = try Self.request("http://example.com/", method, fields)
            try Self.completion(emptyBody: rule).complete(&request, body: body)
            return Self.fields(request).filter { ["Content-Length", "Transfer-Encoding"].contains($0.key) }
        }
        #expect(try framed(.post, .known(3)) == ["Content-Length": "3"])
        #expect(try framed(.post, .unknown) == ["Transfer-Encoding": "chunked"])
        #expect(try framed(.post, .known(3), ["Transfer-Encoding": "chunked", "Content-Length": "99"]) == ["Transfer-Encoding": "chunked"])
        #expect(try framed(.post, .none) == ["Content-Length": "0"])
        #expect(try framed(.patch, .none) == ["Content-Length": "0"])
        #expect(try framed(.delete, .none) == [:])
        #expect(try framed(.delete, .none, [:], .allButGetAndHead) == ["Content-Length": "0"])
        #expect(try framed(.get, .none, [:], .allButGetAndHead) == [:])
        #expect(try framed(.head, .known(3)) == [:])
    }

    @Test("the request's own Connection and Keep-Alive are dropped: the transport runs the connection")
    func connectionFieldsDropped() throws {
        var request = try Self.request("http://example.com/", .get, ["Connection": "close", "Keep-Alive": "timeout=5"])
        try Self.completion(additional: ["Connection": "upgrade"]).complete(&request, body: .none)
        #expect(Self.fields(request)["Connection"] == nil)
        #expect(Self.fields(request)["Keep-Alive"] == nil)
    }

    @Test("completing a completed request again leaves its fields as they were")
    func idempotent() throws {
        var request = try Self.request("http://example.com/", .post)
        let completion = try Self.completion()
        completion.complete(&request, body: .known(5))
        let once = Self.fields(request)
        completion.complete(&request, body: .known(5))
        #expect(Self.fields(request) == once)
    }
}
