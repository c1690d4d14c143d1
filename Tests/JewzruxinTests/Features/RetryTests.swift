import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session whose retries wait `delay` seconds, at most `count` times.
func makeRetrySession(delay: TimeInterval = 0.01, count: Int = 3, _ configure: (URLSessionConfiguration) -> Void = { _ in }) -> HTTPSession {
    let session = makeSession(configure)
    session.retryPolicy = RetryPolicy(maximumRetryCount: count, retryDelay: delay)
    return session
}

/// A delegate that never retries (seed: SessionDelegateNoneRetry).
final class SessionDelegateNoneRetry: HTTPSessionDelegate {
    func session(_ session: HTTPSession, shouldRetry cycle: HTTPCycle, error: any Error) -> Bool { false }
}

/// A delegate that reports each retry decision to a stream, then lets the policy decide.
final class RetryWatcher: HTTPSessionDelegate {
    let decisions: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (decisions, continuation) = AsyncStream<Int>.makeStream()
    }

    func session(_ session: HTTPSession, shouldRetry cycle: HTTPCycle, error: any Error) -> Bool {
        let decision = session.retryPolicy.shouldRetry(error: error, retriedCount: cycle.retriedCount, solicited: cycle.solicited)
        continuation.yield(cycle.retriedCount)
        return decision
    }
}

@Suite("Auto retry", .onEveryTransport)
struct RetryTests {
    @Test("503 twice then 200 succeeds after 2 retries")
    func retriesThenSucceeds() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/flaky/?key=a&fail=2"), session: makeRetrySession())
            #expect(cycle.response.statusCode == 200)
            #expect(cycle.response.text == "ok after 2 failures")
            #expect(cycle.retriedCount == 2)
            #expect(sandbox.requestCount(forFlakyKey: "a") == 3)
        }
    }

    @Test("408 is retried too; 500 is not", arguments: [(408, true), (500, false), (404, false)])
    func retryableStatuses(code: Int, retried: Bool) async throws {
        try await withSandbox { sandbox in
            let key = "s\(code)"
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=\(key)&fail=1&code=\(code)"), session: makeRetrySession(), completionHandler: $0)
            }
            #expect((result.error == nil) == retried)
            #expect(sandbox.requestCount(forFlakyKey: key) == (retried ? 2 : 1))
        }
    }

    @Test("reaching the maximum count ends with the last error")
    func maximumCountReached() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=max&fail=10"), session: makeRetrySession(count: 2), completionHandler: $0)
            }
            #expect((result.error as? HTTPError)?.statusCode == 503)
            #expect(result.response.text == "flaky 3")
            #expect(result.cycle.retriedCount == 2)
            #expect(sandbox.requestCount(forFlakyKey: "max") == 3)
        }
    }

    @Test("Retry-After in seconds is waited for")
    func retryAfterSeconds() async throws {
        try await withSandbox { sandbox in
            let clock = ContinuousClock()
            let started = clock.now
            let cycle = try await HTTPCycle.get(sandbox.string("/flaky/?key=ra&fail=1&retry_after=1"), session: makeRetrySession(delay: 0.01))
            let waited = clock.now - started
            #expect(cycle.response.statusCode == 200)
            #expect(waited >= .seconds(1), "the retry came after \(waited), before Retry-After's 1 s")
        }
    }

    @Test("a Retry-After longer than the policy allows ends the cycle instead of waiting")
    func retryAfterTooLong() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=long&fail=1&retry_after=3600"), session: makeRetrySession(), completionHandler: $0)
            }
            #expect((result.error as? HTTPError)?.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "long") == 1)
        }
    }

    @Test("Retry-After as an HTTP date, in each of its three forms, and garbage")
    func retryAfterParsing() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "1994-11-06T08:49:30Z"))
        #expect(RetryAfter.delay(from: "120", now: now) == 120)
        #expect(RetryAfter.delay(from: " 0 ", now: now) == 0)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 7)
        #expect(RetryAfter.delay(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 7)
        #expect(RetryAfter.delay(from: "Sun Nov  6 08:49:37 1994", now: now) == 7)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.delay(from: "-5", now: now) == nil)
        #expect(RetryAfter.delay(from: "soon", now: now) == nil)
        #expect(RetryAfter.delay(from: "", now: now) == nil)
    }

    @Test("exponential backoff grows, is capped, and jitters within bounds")
    func exponentialBackoff() {
        let plain = RetryPolicy(retryDelay: 0.5, backoff: .exponential(multiplier: 2, maximumDelay: 3, jitter: false))
        #expect((1...5).map { plain.delay(beforeRetry: $0, response: nil) } == [0.5, 1, 2, 3, 3])
        let jittered = RetryPolicy(retryDelay: 1, backoff: .exponential(multiplier: 2, maximumDelay: 30, jitter: true))
        for retry in 1...6 {
            let full = min(pow(2, Double(retry - 1)), 30)
            let delay = jittered.delay(beforeRetry: retry, response: nil) ?? -1
            #expect(delay >= full / 2 && delay <= full)
        }
        #expect(RetryPolicy.exponentialBackoff.maximumRetryCount == 5)
    }

    @Test("a timed-out request is retried, then ends with timedOut")
    func timeoutRetried() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 1) { $0.timeoutIntervalForRequest = 0.3 }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?delay=2"), session: session, completionHandler: $0) }
            guard case HTTPError.transport(let error)? = result.error else {
                Issue.record("expected a transport error, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == .timedOut)
            #expect(result.cycle.retriedCount == 1)
        }
    }

    @Test("solicited cycles keep trying on any error, then stop at the first success")
    func solicitedKeepsTrying() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 0)
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=sol&fail=5&code=500"), solicited: true, session: session, completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.cycle.retriedCount == 5)
            await session.drain()
            #expect(sandbox.requestCount(forFlakyKey: "sol") == 6)
        }
    }

    @Test("Customize retry policy: a delegate that never retries stops even a solicited cycle")
    func delegateNoneRetry() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession()
            let delegate = SessionDelegateNoneRetry()
            session.delegate = delegate
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/flaky/?key=none&fail=3&code=500"))), session: session)
            cycle.solicited = true
            let result = try await outcome { handler in
                cycle.start(handler)
                return cycle
            }
            #expect(result.response.statusCode == 500)
            #expect(sandbox.requestCount(forFlakyKey: "none") == 1)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("cancelling during the wait stops the retries at once")
    func cancelDuringWait() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(delay: 30)
            let watcher = RetryWatcher()
            session.delegate = watcher
            let counter = CallCounter()
            let result = try await outcome { handler in
                let cycle = try HTTPCycle.get(sandbox.string("/flaky/?key=wait&fail=5"), session: session) { cycle, error in
                    counter.record()
                    handler(cycle, error)
                }
                Task {
                    for await _ in watcher.decisions { break }
                    // The decision is taken just before the wait begins.
                    while cycle.state == .processing { await Task.yield() }
                    cycle.cancel(explicitly: false)
                }
                return cycle
            }
            guard case HTTPError.cancelled? = result.error else {
                Issue.record("expected a cancellation, got \(String(describing: result.error))")
                return
            }
            #expect(result.cycle.state == .cancelled)
            await session.drain()
            #expect(counter.count == 1)
            #expect(sandbox.requestCount(forFlakyKey: "wait") == 1)
        }
    }

    @Test("HTTPSession.retryDelay is the policy's delay")
    func retryDelayAlias() {
        let session = makeSession()
        session.retryDelay = 2.5
        #expect(session.retryPolicy.retryDelay == 2.5)
        #expect(session.retryPolicy.maximumRetryCount == RetryPolicy.default.maximumRetryCount)
    }
}
