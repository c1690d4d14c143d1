import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transport: bodies, drops, redirects, load", .onEveryTransport)
struct TransportTests {
    @Test("a large body arrives whole and in order", arguments: [false, true])
    func largeBody(chunked: Bool) async throws {
        try await withSandbox { sandbox in
            let size = 3 << 20
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/bytes/\(size)"), parameters: chunked ? ["chunked": 1] : nil,
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.data.count == size)
            #expect(result.response.data == SandboxBody.expectedPattern(count: size))
        }
    }

    @Test("a connection dropped mid-body ends in a transport error, once, without hanging", arguments: [false, true])
    func droppedMidBody(chunked: Bool) async throws {
        try await withSandbox { sandbox in
            let session = makeSession { $0.timeoutIntervalForRequest = 10 }
            let counter = CallCounter()
            let result = try await outcome { handler in
                try HTTPCycle.get(sandbox.string("/drop/"), parameters: ["after": 1000, "chunked": chunked ? 1 : 0], session: session) {
                    counter.record()
                    handler($0, $1)
                }
            }
            guard case HTTPError.transport(let urlError)? = result.error else {
                Issue.record("expected a transport error, got \(String(describing: result.error))")
                return
            }
            #expect(urlError.code != .cancelled)
            #expect(urlError.code != .timedOut)
            await session.drain()
            #expect(counter.count == 1)
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("a refused connection is a transport error")
    func connectionRefused() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let result = try await outcome { try HTTPCycle.get(closed.url("/hello/"), session: makeSession(), completionHandler: $0) }
        guard case HTTPError.transport(let urlError)? = result.error else {
            Issue.record("expected a transport error, got \(String(describing: result.error))")
            return
        }
        #expect(urlError.code == .cannotConnectToHost)
        #expect(result.response.statusCode == nil)
    }

    @Test("the request timeout ends a stalled request with timedOut")
    func requestTimeout() async throws {
        try await withSandbox { sandbox in
            let session = makeSession { $0.timeoutIntervalForRequest = 0.5 }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?delay=3"), session: session, completionHandler: $0) }
            guard case HTTPError.transport(let urlError)? = result.error else {
                Issue.record("expected a transport error, got \(String(describing: result.error))")
                return
            }
            #expect(urlError.code == .timedOut)
        }
    }

    @Test("a redirect without Location ends in badServerResponse or as the 3xx itself, never empty", arguments: [301, 302, 303, 307, 308])
    func redirectWithoutLocation(code: Int) async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/status/\(code)"), session: session, completionHandler: $0) }
            if let status = result.response.statusCode {
                #expect(status == code)
            } else if case HTTPError.transport(let error)? = result.error {
                #expect(error.code == .badServerResponse)
            } else {
                Issue.record("no response and no transport error: \(String(describing: result.error))")
            }
            await session.drain()
        }
    }

    @Test("redirects are followed to the final response", arguments: [301, 302, 303, 307, 308])
    func redirects(code: Int) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/redirect/"), parameters: ["code": code, "to": "/echo/?content=arrived"],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.statusCode == 200)
            #expect(result.response.text == "arrived")
            #expect(result.response.url?.absoluteString == sandbox.string("/echo/?content=arrived"))
        }
    }

    /// The parameters of an `/echo/` that redirects to `/inspect/` with `code` and sets `K=1`.
    static func cookieSettingRedirect(code: Int) -> [String: any Sendable] {
        ["code": code, "header": ["Location:/inspect/", "Set-Cookie:K=1; Path=/"]]
    }

    @Test("a cookie set by a redirect response goes with the request that follows it (issue #20)", arguments: [301, 302, 303, 307, 308])
    func cookieSetByRedirect(code: Int) async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            // GIVEN a cookie the session already has
            _ = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": "Set-Cookie:old=0; Path=/"], session: session)
            // WHEN a redirect sets another one
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: Self.cookieSettingRedirect(code: code), session: session)
            // THEN the request it leads to carries both, once
            let inspection = try Inspection(cycle.response)
            #expect(inspection.path == "/inspect/")
            let cookies = inspection.values("Cookie")
            #expect(cookies.count == 1, "\(inspection.headers)")
            let pairs = Set(cookies.flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } })
            #expect(pairs == ["K=1", "old=0"], "\(inspection.headers)")
        }
    }

    /// The engine follows every redirect (URLSession's included) with a new transfer, which keeps a
    /// caller's own `Cookie` though the redirect has just stored one for the URL. (FoundationNetworking
    /// would put the storage's in its place: the URLSession transport sends the cookies itself.)
    @Test("a caller's own Cookie header is what a same-origin redirect sends on, even when the redirect sets a cookie", arguments: [301, 302, 303, 307])
    func ownCookieAfterCookieSettingRedirect(code: Int) async throws {
        try await withSandbox { sandbox in
            let url = try #require(URL(string: sandbox.string("/echo/").mergingQueryParameters(Self.cookieSettingRedirect(code: code))))
            let cycle = HTTPCycle(requestURL: url, session: makeSession())
            cycle.request.setValue("mine=1", forHTTPHeaderField: "Cookie")
            try await cycle.start()
            let inspection = try Inspection(cycle.response)
            #expect(inspection.path == "/inspect/")
            #expect(inspection.values("Cookie") == ["mine=1"], "\(inspection.headers)")
        }
    }

    @Test("the session's cookies: every Set-Cookie line for the host is stored, Max-Age read; sent back by path, unexpired, Secure ones only over https; none where the session or the request handles none")
    func sessionCookies() async throws {
        try await withSandbox { sandbox in
            let setting: [String: any Sendable] = ["header": [
                "Set-Cookie:dated=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT",
                "Set-Cookie:plain=2; Path=/",
                "Set-Cookie:deeper=3; Path=/jar/deep",
                "Set-Cookie:elsewhere=4; Path=/other",
                "Set-Cookie:secure=5; Path=/; Secure",
                "Set-Cookie:expired=6; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT",
                // For hosts the sandbox's (127.0.0.1) isn't: dropped, not kept for them.
                "Set-Cookie:foreign=7; Path=/; Domain=example.com",
                "Set-Cookie:tld=8; Path=/; Domain=com",
                "Set-Cookie:hour=9; Path=/; Max-Age=3600",
                // Set by /echo/ without a Path: for /echo and below only.
                "Set-Cookie:pathless=10",
                // An RFC 850 date, with its two-digit year.
                "Set-Cookie:old-style=11; Path=/; Expires=Wednesday, 21-Oct-37 07:28:00 GMT",
            ]]
            // Each Cookie field line the request carried, one per line of the body.
            sandbox.route("/jar/*") { request in .text(request.headers.values(for: "Cookie").joined(separator: "\n")) }
            let session = makeSession()
            _ = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: setting, session: session)
            func cookies(at path: String) async throws -> [String] {
                let lines = try await HTTPCycle.get(sandbox.string(path), session: session).response.text?.split(separator: "\n") ?? []
                #expect(lines.count <= 1, "\(lines)")
                return lines.flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } }
            }
            #expect(Set(try await cookies(at: "/jar/")) == ["dated=1", "plain=2", "hour=9", "old-style=11"])
            #expect(Set(try await cookies(at: "/jar/deeper")) == ["dated=1", "plain=2", "hour=9", "old-style=11"])
            // The longest path first (RFC 6265 §5.4).
            let deep = try await cookies(at: "/jar/deep/x")
            #expect(Set(deep) == ["dated=1", "plain=2", "deeper=3", "hour=9", "old-style=11"])
            #expect(deep.first == "deeper=3")
            let stored = session.configuration.httpCookieStorage?.cookies ?? []
            #expect(Set(stored.map(\.name)).isDisjoint(with: ["foreign", "tld"]), "\(stored)")
            #expect(stored.first { $0.name == "pathless" }?.path == "/echo")
            // Max-Age sets the expiry (an hour from now); Max-Age=0 ends a cookie (a logout).
            let expiry = try #require(stored.first { $0.name == "hour" }?.expiresDate)
            #expect(abs(expiry.timeIntervalSinceNow - 3600) < 600)
            _ = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": "Set-Cookie:plain=; Path=/; Max-Age=0"], session: session)
            #expect(Set(try await cookies(at: "/jar/")) == ["dated=1", "hour=9", "old-style=11"])

            let url = try #require(URL(string: sandbox.string("/inspect/")))
            let withoutCookies = HTTPCycle(requestURL: url, session: session)
            withoutCookies.request.core.httpShouldHandleCookies = false
            try await withoutCookies.start()
            #expect(try Inspection(withoutCookies.response).values("Cookie").isEmpty)

            let refusing = makeSession { $0.httpShouldSetCookies = false }
            _ = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: setting, session: refusing)
            let none = try Inspection(try await HTTPCycle.get(sandbox.string("/inspect/"), session: refusing).response)
            #expect(none.values("Cookie").isEmpty, "\(none.headers)")
        }
    }

    @Test("a finished cycle is let go with its session's work: no idle worker or sleeping loop keeps it")
    func finishedCycleReleased() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            weak var released: HTTPCycle?
            do {
                let cycle = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
                released = cycle
                #expect(cycle.response.text == "Hello World")
            }
            await session.drain()
            // Let go within microseconds (the transport's thread finishes the batch it ran the end
            // in). Before, the curl loop's events outlived that batch until its next wake (1 s),
            // and a native worker's first transfer was kept by its thread until the worker ended.
            let deadline = ContinuousClock.now + .milliseconds(900)
            while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(released == nil)
        }
    }

    @Test("1,000 concurrent cycles each complete exactly once")
    func thousandConcurrentCycles() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let total = 1_000
            var cycles: [HTTPCycle] = []
            for index in 0..<total {
                cycles.append(try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": index], session: session) { cycle, error in
                    counter.record(error == nil ? (cycle.response.text ?? "nil") : "error \(error!)")
                })
            }
            await session.drain()
            let labels = counter.labels
            #expect(labels.count == total)
            #expect(Set(labels) == Set((0..<total).map(String.init)))
            #expect(cycles.allSatisfy { $0.state == .finished })
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("a 401 with a challenge completes as a status error without hanging (L4, L8)")
    func unansweredChallenge() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/challenge/") { _ in
                SandboxResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="sandbox""#], body: .text("who are you"))
            }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/challenge/"), session: makeSession(), completionHandler: $0) }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            #expect(result.response.text == "who are you")

            // A large 401 body arrives whole too.
            let big = String(repeating: "denied ", count: 40_000)
            sandbox.route("/challenge-big/") { _ in
                SandboxResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="sandbox""#], body: .text(big))
            }
            let large = try await outcome { try HTTPCycle.get(sandbox.string("/challenge-big/"), session: makeSession(), completionHandler: $0) }
            #expect((large.error as? HTTPError)?.statusCode == 401)
            #expect(large.response.text == big)
        }
    }
}

@Suite("Redirect targets")
struct RedirectTargetTests {
    @Test("a relative Location keeps its slash before the query (FoundationNetworking drops it)", arguments: [
        "/inspect/?content=arrived", "../inspect/?content=arrived", "inspect/../../inspect/?content=arrived",
    ])
    func relativeLocation(location: String) async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/redirect/"), parameters: ["code": 302, "to": location], session: makeSession())
            let seen = try Inspection(cycle.response)
            #expect(seen.path == "/inspect/")
            #expect(seen.query == "content=arrived")
            #expect(cycle.response.url?.absoluteString == sandbox.string("/inspect/?content=arrived"))
        }
    }
}

/// What a failed connection reads like, compared across the transports.
@Suite("Connection errors, worded once")
struct ConnectionErrorWordingTests {
    @Test("a refused connection reads the same on every transport, naming the URL, the host and the port")
    func refusedReadsTheSame() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let url = closed.url("/broken")
        var descriptions: [String] = []
        for transport in TransportUnderTest.selected {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: queue, transport: transport.transport)
            session.retryPolicy.maximumRetryCount = 0
            do {
                _ = try await HTTPCycle.get(url, session: session)
                Issue.record("\(transport): a refused connection must throw")
            } catch {
                let description = String(describing: error)
                #expect(
                    description.hasPrefix("transport error -1004 for \(url): Could not connect to 127.0.0.1 port \(closed.port): "
                        + "the connection was refused."),
                    "\(transport): \(description)")
                descriptions.append(description)
            }
        }
        #expect(Set(descriptions).count == 1, "\(descriptions)")
    }
}
