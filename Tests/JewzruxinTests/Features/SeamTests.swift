import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers every response as it is: no redirect is followed.
private struct NoRedirects: HTTPRedirectPolicy {
    func action(for response: HTTPResponse, request: HTTPRequest, redirectCount: Int) -> HTTPRedirectAction { .deliver }
}

/// Retries a 503 once, at once, and records what it was asked.
private final class OneQuickRetry: HTTPRetryStrategy {
    let asked = Mutex<[String]>([])

    func shouldRetry(error: any Error, retriedCount: Int, solicited: Bool) -> Bool {
        asked.withLock { $0.append("should \(retriedCount)") }
        return (error as? HTTPError)?.statusCode == 503 && retriedCount == 0
    }

    func delay(beforeRetry retry: Int, response: HTTPResponse?) -> TimeInterval? {
        asked.withLock { $0.append("delay \(retry) \(response?.statusCode ?? 0)") }
        return 0
    }
}

/// Answers a Basic challenge with fixed credentials: a struct, not a subclass of Authentication.
private struct FixedBasic: HTTPAuthenticator {
    let asked = Locked(0)

    func authorization(for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int) -> String? {
        asked.withLock { $0 += 1 }
        return "Basic " + Data("test:12345".utf8).base64EncodedString()
    }
}

/// The engine reaches redirects and retries through the session's seams: a policy of the caller's
/// replaces the library's on every transport.
@Suite("Seams: redirect policy and retry strategy", .onEveryTransport)
struct SeamTests {
    @Test("a redirect policy of the caller's delivers a 307 as it is; the standard one follows it")
    func customRedirectPolicy() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.redirectPolicy = NoRedirects()
            let kept = try await HTTPCycle.get(sandbox.string("/redirect/?to=/hello/&code=307"), session: session)
            #expect(kept.response.statusCode == 307)
            #expect(kept.response.value(forHTTPHeaderField: "Location") == "/hello/")

            session.redirectPolicy = RedirectPolicy.standard
            let followed = try await HTTPCycle.get(sandbox.string("/redirect/?to=/hello/&code=307"), session: session)
            #expect(followed.response.statusCode == 200)
            #expect(followed.response.text == "Hello World")
            await session.drain()
        }
    }

    @Test("a redirect policy's limit ends the run with httpTooManyRedirects once passed")
    func redirectLimit() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.redirectPolicy = RedirectPolicy(maximumRedirectCount: 0)
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/redirect/?to=/hello/&code=308"), session: session, completionHandler: $0) }
            guard case HTTPError.transport(let error)? = result.error else {
                Issue.record("expected too many redirects, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == .httpTooManyRedirects)
            #expect(result.response.statusCode == 308)
            await session.drain()
        }
    }

    @Test("a retry strategy of the caller's decides, with its own delay; retryPolicy reads the default when it is not one")
    func customRetryStrategy() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let strategy = OneQuickRetry()
            session.retryStrategy = strategy
            #expect(session.retryPolicy == .default)
            let cycle = try await HTTPCycle.get(sandbox.string("/flaky/?key=seam&fail=1&code=503"), session: session)
            #expect(cycle.response.statusCode == 200)
            #expect(cycle.retriedCount == 1)
            #expect(sandbox.requestCount(forFlakyKey: "seam") == 2)
            #expect(strategy.asked.withLock { $0 } == ["should 0", "delay 1 503"])

            let second = try await outcome { try HTTPCycle.get(sandbox.string("/flaky/?key=seam2&fail=2&code=503"), session: session, completionHandler: $0) }
            #expect((second.error as? HTTPError)?.statusCode == 503, "one retry only")
            #expect(sandbox.requestCount(forFlakyKey: "seam2") == 2)
            await session.drain()
        }
    }

    @Test("an authenticator of the caller's (a struct) answers the challenge, once")
    func customAuthenticator() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let authenticator = FixedBasic()
            session.authentications = [authenticator]
            let cycle = try await HTTPCycle.get(sandbox.string("/hello_with_basic_auth/"), session: session)
            #expect(cycle.response.text == "Hello World")
            #expect(authenticator.asked.withLock { $0 } == 1)
            await session.drain()
        }
    }
}
