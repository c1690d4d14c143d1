import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Starts a two-step cycle of `method` to `url` and waits for its completion handler.
private func send(
    _ method: HTTPMethod, _ url: String, session: HTTPSession, _ configure: (HTTPCycle) -> Void = { _ in }
) async throws -> Outcome {
    let cycle = HTTPCycle(requestURL: try #require(URL(string: url)), requestMethod: method, session: session)
    configure(cycle)
    return try await outcome { handler in
        cycle.start(handler)
        return cycle
    }
}

/// RFC 9110 §9.2.2: a request that isn't idempotent is not sent again unless the caller says it may
/// be, or unless it certainly never left.
@Suite("Retry safety", .onEveryTransport)
struct RetrySafetyTests {
    @Test("a POST answered 503 is not resent, and the error says why")
    func postAnswered503IsNotResent() async throws {
        try await withSandbox { sandbox in
            let result = try await send(.post, sandbox.string("/flaky/?key=post&fail=3"), session: makeRetrySession())
            let error = try #require(result.error as? HTTPError)
            #expect(error.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "post") == 1)
            #expect(result.cycle.retriedCount == 0)
            let summary = try #require(error.retrySummary)
            #expect(summary.attempts == 1)
            #expect(summary.reason.contains("POST is not idempotent"))
            #expect(error.description.contains("gave up after 1 attempt: POST is not idempotent"))
            #expect(result.response.retrySummary == summary)
        }
    }

    @Test("PATCH is not resent either; PUT, DELETE and GET are", arguments: [
        (HTTPMethod.patch, false), (.put, true), (.delete, true), (.get, true), (.options, true),
    ])
    func methodsByIdempotency(method: HTTPMethod, resent: Bool) async throws {
        try await withSandbox { sandbox in
            let key = "m\(method)"
            let result = try await send(method, sandbox.string("/flaky/?key=\(key)&fail=1"), session: makeRetrySession())
            #expect((result.error == nil) == resent)
            #expect(sandbox.requestCount(forFlakyKey: key) == (resent ? 2 : 1))
        }
    }

    @Test("a POST is resent when the session's policy lists it")
    func sessionOptsIn() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            session.retryPolicy.retryableMethods.insert(.post)
            let result = try await send(.post, sandbox.string("/flaky/?key=sess&fail=2"), session: session)
            #expect(result.error == nil)
            #expect(result.response.text == "ok after 2 failures")
            #expect(sandbox.requestCount(forFlakyKey: "sess") == 3)
        }
    }

    @Test("a POST is resent when its cycle lists it, and only that cycle's")
    func cycleOptsIn() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            let allowed = try await send(.post, sandbox.string("/flaky/?key=c1&fail=1"), session: session) {
                $0.retryableMethods = [.post]
            }
            #expect(allowed.error == nil)
            #expect(sandbox.requestCount(forFlakyKey: "c1") == 2)
            let other = try await send(.post, sandbox.string("/flaky/?key=c2&fail=1"), session: session)
            #expect(other.error != nil)
            #expect(sandbox.requestCount(forFlakyKey: "c2") == 1)
        }
    }

    @Test("a cycle's list replaces the session's: an empty one resends not even a GET")
    func cycleListReplaces() async throws {
        try await withSandbox { sandbox in
            let result = try await send(.get, sandbox.string("/flaky/?key=none&fail=1"), session: makeRetrySession()) {
                $0.retryableMethods = []
            }
            #expect((result.error as? HTTPError)?.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "none") == 1)
        }
    }

    @Test("a POST with an Idempotency-Key header is resent")
    func idempotencyKey() async throws {
        try await withSandbox { sandbox in
            let result = try await send(.post, sandbox.string("/flaky/?key=idem&fail=1"), session: makeRetrySession()) {
                $0.request.setValue("8e03978e-40d5-43e8-bc93-6894a57f9324", forHTTPHeaderField: "Idempotency-Key")
            }
            #expect(result.error == nil)
            #expect(sandbox.requestCount(forFlakyKey: "idem") == 2)
        }
    }

    @Test("the seeds' policy resends a POST, as they did")
    func seedPolicy() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            var seed = RetryPolicy.seed
            seed.retryDelay = 0.01
            session.retryPolicy = seed
            let result = try await send(.post, sandbox.string("/flaky/?key=seed&fail=1"), session: session)
            #expect(result.error == nil)
            #expect(sandbox.requestCount(forFlakyKey: "seed") == 2)
        }
    }

    @Test("a delegate that says yes doesn't make a POST safe to resend")
    func delegateCantOverrideTheMethodRule() async throws {
        final class AlwaysRetry: HTTPSessionDelegate {
            func session(_ session: HTTPSession, shouldRetry cycle: HTTPCycle, error: any Error) -> Bool { true }
        }
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            let delegate = AlwaysRetry()
            session.delegate = delegate
            let result = try await send(.post, sandbox.string("/flaky/?key=dlg&fail=5"), session: session)
            #expect((result.error as? HTTPError)?.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "dlg") == 1)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("a POST whose answer never comes is sent once, and the timeout says why it wasn't resent")
    func postTimedOutIsSentOnce() async throws {
        try await ScriptedServer.withServer([[.readRequest, .waitForClientClose]]) { server in
            let session = makeRetrySession { $0.timeoutIntervalForRequest = 0.5 }
            let result = try await send(.post, server.baseURL.absoluteString + "/order", session: session) {
                $0.request.data = Data(repeating: 0x61, count: 64 << 10)
            }
            let error = try #require(result.error as? HTTPError)
            #expect(error.isTimeout)
            #expect(error.retrySummary?.reason.contains("POST is not idempotent") == true)
            #expect(error.description.contains("gave up after 1 attempt"))
            // Sent once, not four times. (The server may not have read it yet on a loaded machine:
            // the engine's count is the one that can't race.)
            #expect(result.cycle.retriedCount == 0)
            #expect(server.requestHeads.count <= 1)
            #expect(server.connectionCount <= 1)
        }
    }

    @Test("a GET whose answer never comes is resent as the seed says, and the last error counts the attempts")
    func getTimedOutIsResent() async throws {
        try await ScriptedServer.withServer([[.readRequest, .waitForClientClose]]) { server in
            let session = makeRetrySession(count: 2) { $0.timeoutIntervalForRequest = 0.5 }
            let result = try await send(.get, server.baseURL.absoluteString + "/slow", session: session)
            let error = try #require(result.error as? HTTPError)
            #expect(error.isTimeout)
            // Counted by the client: the server may record the last request after the client gave
            // up on it, on a loaded machine.
            #expect(result.cycle.retriedCount == 2)
            #expect(error.retrySummary == HTTPRetrySummary(attempts: 3, reason: "the retry limit of 2 was reached"))
            #expect(error.description.contains("gave up after 3 attempts: the retry limit of 2 was reached"))
        }
    }

    @Test("a status error after retries counts them")
    func statusErrorCountsAttempts() async throws {
        try await withSandbox { sandbox in
            let result = try await send(.get, sandbox.string("/flaky/?key=cnt&fail=10"), session: makeRetrySession(count: 2))
            let error = try #require(result.error as? HTTPError)
            #expect(error.retrySummary == HTTPRetrySummary(attempts: 3, reason: "the retry limit of 2 was reached"))
            #expect(error.description.contains("gave up after 3 attempts"))
            #expect(sandbox.requestCount(forFlakyKey: "cnt") == 3)
        }
    }

    @Test("a failure that is never retried carries no summary")
    func plainFailureHasNoSummary() async throws {
        try await withSandbox { sandbox in
            let result = try await send(.post, sandbox.string("/flaky/?key=404&fail=1&code=404"), session: makeRetrySession())
            let error = try #require(result.error as? HTTPError)
            #expect(error.statusCode == 404)
            #expect(error.retrySummary == nil)
        }
    }

    @Test("no retry begins past the policy's time limit")
    func retryTimeLimit() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            session.retryPolicy = RetryPolicy(retryDelay: 0.3, retryTimeLimit: 0.2)
            let result = try await send(.get, sandbox.string("/flaky/?key=tl&fail=3"), session: session)
            let error = try #require(result.error as? HTTPError)
            #expect(error.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "tl") == 1)
            #expect(error.retrySummary?.reason.contains("retry time limit") == true)
        }
    }

    @Test("a POST to a refused port may be sent again: nothing left")
    func refusedConnectionIsSafe() async throws {
        struct RetryRefusals: HTTPRetryStrategy {
            func shouldRetry(error: any Error, retriedCount: Int, solicited: Bool) -> Bool {
                retriedCount < 2 && (error as? HTTPError).flatMap { if case .transport(let e) = $0 { e.code == .cannotConnectToHost } else { nil } } == true
            }
            func delay(beforeRetry retry: Int, response: HTTPResponse?) -> TimeInterval? { 0.01 }
        }
        let port = try RefusingPort()
        let session = makeSession()
        session.retryStrategy = RetryRefusals()
        let result = try await send(.post, port.url("/order"), session: session)
        let error = try #require(result.error as? HTTPError)
        #expect(HTTPError.requestWasNotSent(error))
        #expect(result.cycle.retriedCount == 2)
        #expect(error.retrySummary?.attempts == 3)
    }
}

/// The connect timeout: distinct from the idle timeout, and a connect that times out sent nothing.
/// URLSession has no such setting (it waits the idle timeout), so these run on curl and native.
@Suite("Connect timeout")
struct ConnectTimeoutTests {
    static let transports: [TransportUnderTest] = TransportUnderTest.selected.filter { $0 != .urlSession }

    @Test("a connect that is never answered ends after the connect timeout, not the idle one; a POST is then resent",
          arguments: transports)
    func connectTimeout(transport: TransportUnderTest) async throws {
        let port = try UnansweredConnectPort()
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.timeoutIntervalForConnect = 0.3
        // The idle timeout far above the bound below, and the bound far above the two 0.3 s connect
        // timeouts: a loaded machine can delay the test's own task by seconds, never by a minute.
        configuration.timeoutIntervalForRequest = 180
        let session = HTTPSession(configuration: configuration, transport: transport.transport)
        session.retryPolicy = RetryPolicy(maximumRetryCount: 1, retryDelay: 0.01)
        let started = ContinuousClock.now
        let result = try await send(.post, port.url("/order"), session: session)
        let error = try #require(result.error as? HTTPError)
        #expect(error.isTimeout)
        #expect(HTTPError.requestWasNotSent(error))
        #expect(result.cycle.retriedCount == 1)
        #expect(ContinuousClock.now - started < .seconds(60), "the idle timeout (180 s) ended it, not the connect timeout")
    }

    @Test("the connect timeout is never longer than the idle timeout")
    func boundedByIdle() {
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.timeoutIntervalForRequest = 4
        let settings = TransportSettings(configuration, maximumConnectionsPerHost: nil)
        let url = URL(fileURLWithPath: "/")
        var request = HTTPRequest(url: url)
        #expect(settings.connectTimeout(within: settings.timeout(for: request)) == 4)
        request.core.timeoutInterval = 2
        #expect(settings.connectTimeout(within: settings.timeout(for: request)) == 2)
        configuration.timeoutIntervalForRequest = 60
        let defaults = TransportSettings(configuration, maximumConnectionsPerHost: nil)
        #expect(defaults.connectTimeout(within: defaults.timeout(for: HTTPRequest(url: url))) == 10)
    }
}

/// The retry strategy's verdict, without a socket.
@Suite("Retry verdicts")
struct RetryVerdictTests {
    private func failure(
        _ method: HTTPMethod, error: any Error = HTTPError.transport(URLError(.timedOut)), retried: Int = 0,
        elapsed: TimeInterval = 0, header: (String, String)? = nil
    ) -> HTTPAttemptFailure {
        var request = HTTPRequest(url: URL(string: "http://example.com/")!, method: method)
        if let header { request.setValue(header.1, forHTTPHeaderField: header.0) }
        return HTTPAttemptFailure(request: request, response: nil, error: error, retriedCount: retried, elapsed: elapsed)
    }

    @Test("the default policy")
    func defaultPolicy() {
        let policy = RetryPolicy.default
        #expect(policy.verdict(for: failure(.get)) == .retry(after: 1))
        #expect(policy.verdict(for: failure(.put)) == .retry(after: 1))
        guard case .giveUp(let reason) = policy.verdict(for: failure(.post)) else {
            Issue.record("a POST that timed out was resent")
            return
        }
        #expect(reason.hasPrefix("POST is not idempotent"))
        #expect(policy.verdict(for: failure(.post, header: ("idempotency-key", "k"))) == .retry(after: 1))
        let notSent = HTTPError.transport(URLError(.timedOut, userInfo: [HTTPError.requestNotSentKey: true]))
        #expect(policy.verdict(for: failure(.post, error: notSent)) == .retry(after: 1))
        #expect(policy.verdict(for: failure(.get, retried: 3)) == .giveUp("the retry limit of 3 was reached"))
        #expect(policy.verdict(for: failure(.get, error: HTTPError.transport(URLError(.badServerResponse))))
            == .giveUp(HTTPSession.notResent))
        guard case .giveUp(let late) = policy.verdict(for: failure(.get, elapsed: 89.5)) else {
            Issue.record("a retry began past the time limit")
            return
        }
        #expect(late.contains("90 s"))
    }

    @Test("a strategy of one's own gets the method rule from the protocol's default")
    func customStrategy() {
        struct Always: HTTPRetryStrategy {
            func shouldRetry(error: any Error, retriedCount: Int, solicited: Bool) -> Bool { true }
            func delay(beforeRetry retry: Int, response: HTTPResponse?) -> TimeInterval? { 0 }
        }
        #expect(Always().verdict(for: failure(.get)) == .retry(after: 0))
        #expect(Always().verdict(for: failure(.patch)) != .retry(after: 0))
        #expect(Always().retryableMethods == HTTPMethod.idempotent)
    }

    @Test("which errors say nothing was sent")
    func notSentErrors() {
        #expect(HTTPError.requestWasNotSent(HTTPError.transport(URLError(.cannotConnectToHost))))
        #expect(HTTPError.requestWasNotSent(URLError(.cannotFindHost)))
        #expect(!HTTPError.requestWasNotSent(HTTPError.transport(URLError(.timedOut))))
        #expect(!HTTPError.requestWasNotSent(HTTPError.transport(URLError(.networkConnectionLost))))
        #expect(!HTTPError.requestWasNotSent(HTTPError.cancelled))
    }
}
