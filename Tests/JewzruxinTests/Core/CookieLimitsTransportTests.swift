import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 29 end to end: what a server sets, the jar refuses or bounds the same on every transport,
/// so no server can make every later request to it fail. (A public-suffix `Domain` needs a host
/// name under one, which the loopback sandbox hasn't: `CookieJarLimitsTests` checks it at the jar
/// every transport stores through.)
@Suite("Cookies: what a server can't make the session keep or send", .onEveryTransport)
struct CookieLimitsTransportTests {
    /// Routes `/set/<name>` to a response with `lines` as its `Set-Cookie` fields, and `/jar/*` to
    /// one whose body is the request's `Cookie` fields, one a line.
    static func serve(_ sandbox: Sandbox, _ sets: [String: [String]]) {
        for (name, lines) in sets {
            sandbox.route("/set/\(name)") { _ in
                var response = SandboxResponse.text("set")
                for line in lines { response.headers.add("Set-Cookie", line) }
                return response
            }
        }
        sandbox.route("/jar/*") { request in .text(request.headers.values(for: "Cookie").joined(separator: "\n")) }
    }

    /// The `Cookie` fields a request to `path` carried.
    static func cookieFields(_ sandbox: Sandbox, _ path: String, _ session: HTTPSession) async throws -> [String] {
        let text = try await HTTPCycle.get(sandbox.string(path), session: session).response.text ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The cookies (`name=value`) a request to `path` carried.
    static func cookies(_ sandbox: Sandbox, _ path: String, _ session: HTTPSession) async throws -> [String] {
        let fields = try await cookieFields(sandbox, path, session)
        #expect(fields.count <= 1, "\(fields)")
        return fields.flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    static func stored(_ session: HTTPSession) -> [HTTPCookie] { session.configuration.httpCookieStorage?.cookies ?? [] }

    @Test("a 60 KB cookie and cookies with a control character are neither stored nor sent")
    func oversizedAndControlCharacters() async throws {
        try await withSandbox { sandbox in
            Self.serve(sandbox, ["bad": [
                "big=" + String(repeating: "v", count: 60_000) + "; Path=/",
                "ctl=a\u{01}b; Path=/",
                "del=a\u{7F}b; Path=/",
                "good=1; Path=/",
            ]])
            let session = makeSession()
            _ = try await HTTPCycle.get(sandbox.string("/set/bad"), session: session)
            #expect(Set(Self.stored(session).map(\.name)) == ["good"])
            #expect(try await Self.cookies(sandbox, "/jar/", session) == ["good=1"])
        }
    }

    @Test("2,000 Set-Cookie lines leave 50 cookies stored and a Cookie header under 8,190 bytes")
    func twoThousandLines() async throws {
        try await withSandbox { sandbox in
            Self.serve(sandbox, ["many": (0..<2000).map { "c\($0)=1; Path=/" }])
            let session = makeSession()
            _ = try await HTTPCycle.get(sandbox.string("/set/many"), session: session)
            let stored = Self.stored(session)
            #expect(stored.count == 50)
            // The last ones set: the most recently stored.
            #expect(Set(stored.map(\.name)) == Set((1950..<2000).map { "c\($0)" }))
            let fields = try await Self.cookieFields(sandbox, "/jar/", session)
            #expect(fields.count == 1)
            #expect(fields.allSatisfy { $0.utf8.count <= 8190 })
            #expect(fields.first?.split(separator: ";").count == 50)
        }
    }

    @Test("the least recently used cookie of a full domain is evicted")
    func leastRecentlyUsed() async throws {
        try await withSandbox { sandbox in
            // GIVEN 50 cookies for the sandbox's host, k0 under /jar/keep, the others elsewhere
            Self.serve(sandbox, [
                "full": ["k0=1; Path=/jar/keep"] + (1..<50).map { "k\($0)=1; Path=/other" },
                "more": ["new=1; Path=/other"],
            ])
            let session = makeSession()
            _ = try await HTTPCycle.get(sandbox.string("/set/full"), session: session)
            #expect(Self.stored(session).count == 50)
            // WHEN k0, the first stored, is sent, and then one more cookie is set
            #expect(try await Self.cookies(sandbox, "/jar/keep", session) == ["k0=1"])
            _ = try await HTTPCycle.get(sandbox.string("/set/more"), session: session)
            // THEN k1, now the least recently used, is the one evicted
            let names = Set(Self.stored(session).map(\.name))
            #expect(names.count == 50)
            #expect(names.isSuperset(of: ["k0", "new", "k2", "k49"]))
            #expect(!names.contains("k1"))
        }
    }

    @Test("a Secure cookie over http is refused, and a plain one from http doesn't replace a Secure one")
    func secureOverHTTP() async throws {
        try await withSandbox { sandbox in
            Self.serve(sandbox, ["secure": ["fresh=1; Path=/; Secure"], "plain": ["sid=stolen; Path=/", "other=1; Path=/"]])
            let session = makeSession()
            let storage = try #require(session.configuration.httpCookieStorage)
            let host = try #require(URL(string: sandbox.string("/"))?.host)
            // GIVEN a Secure cookie the session got over https
            storage.setCookie(try #require(HTTPCookie(properties: [
                .name: "sid", .value: "secret", .domain: host, .path: "/", .secure: "TRUE",
            ])))
            _ = try await HTTPCycle.get(sandbox.string("/set/secure"), session: session)
            _ = try await HTTPCycle.get(sandbox.string("/set/plain"), session: session)
            let stored = Self.stored(session)
            #expect(!stored.contains { $0.name == "fresh" })
            #expect(stored.filter { $0.name == "sid" }.map(\.value) == ["secret"])
            #expect(try await Self.cookies(sandbox, "/jar/", session) == ["other=1"])
        }
    }

    @Test("a request's Cookie header stays within 8,190 bytes and 150 cookies, the longest path first")
    func headerBound() async throws {
        try await withSandbox { sandbox in
            Self.serve(sandbox, [:])
            let session = makeSession()
            let storage = try #require(session.configuration.httpCookieStorage)
            let host = try #require(URL(string: sandbox.string("/"))?.host)
            // GIVEN cookies stored as a user may store them, beyond what one request may carry
            func store(_ name: String, path: String, size: Int) throws {
                storage.setCookie(try #require(HTTPCookie(properties: [
                    .name: name, .value: String(repeating: "v", count: size), .domain: host, .path: path,
                ])))
            }
            for index in 0..<5 { try store("deep\(index)", path: "/jar/deep", size: 994) }
            for index in 0..<20 { try store("root\(index)", path: "/", size: 994) }
            for index in 0..<200 { try store("s\(index)", path: "/jar/small", size: 1) }
            // THEN the deepest go first, and no more than fit
            let deep = try await Self.cookies(sandbox, "/jar/deep/x", session)
            #expect(deep.count == 8)
            #expect(Set(deep.prefix(5).map { String($0.prefix(5)) }) == ["deep0", "deep1", "deep2", "deep3", "deep4"])
            let fields = try await Self.cookieFields(sandbox, "/jar/deep/x", session)
            #expect(fields.allSatisfy { $0.utf8.count <= 8190 })
            // 150 cookies at most, the 200 small ones' before the root ones
            let small = try await Self.cookies(sandbox, "/jar/small", session)
            #expect(small.count == 150)
            #expect(small.allSatisfy { $0.hasPrefix("s") })
        }
    }

    @Test("the limits are the session's to change")
    func configuredLimits() async throws {
        try await withSandbox { sandbox in
            Self.serve(sandbox, ["three": ["a=1; Path=/", "b=1; Path=/", "c=1; Path=/"]])
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            var settings = HTTPSession.Configuration(configuration)
            settings.cookieLimits.maximumCookiesPerDomain = 2
            settings.cookieLimits.maximumCookiesPerRequest = 1
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = HTTPSession(configuration: settings, delegateQueue: queue, transport: TransportUnderTest.current.transport)
            _ = try await HTTPCycle.get(sandbox.string("/set/three"), session: session)
            #expect(Set(Self.stored(session).map(\.name)) == ["b", "c"])
            #expect(try await Self.cookies(sandbox, "/jar/", session).count == 1)
        }
    }
}
