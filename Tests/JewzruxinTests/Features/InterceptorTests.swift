import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An adapter that appends `mark` to the `X-Trail` header, to see the order adapters ran in.
private func trail(_ mark: String, calls: CallCounter? = nil) -> RequestInterceptor {
    RequestInterceptor { request, _ in
        calls?.record(mark)
        var request = request
        let before = request.value(forHTTPHeaderField: "X-Trail")
        request.setValue(before.map { "\($0),\(mark)" } ?? mark, forHTTPHeaderField: "X-Trail")
        return request
    }
}

/// Hands out a token after a suspension, as a keychain or a token service would.
private actor TokenStore {
    private var issued = 0

    func token() async -> String {
        // A real suspension: the adapter's task gives its thread up here.
        await Task.yield()
        try? await Task.sleep(for: .milliseconds(5))
        issued += 1
        return "token-\(issued)"
    }
}

/// An interceptor that says when it is entered, then waits until its task is cancelled.
private final class ParkedInterceptor: HTTPInterceptor {
    let entered: AsyncStream<Void>
    let cancelled: AsyncStream<Void>
    private let enteredContinuation: AsyncStream<Void>.Continuation
    private let cancelledContinuation: AsyncStream<Void>.Continuation
    private let parksAdapter: Bool

    init(parksAdapter: Bool) {
        self.parksAdapter = parksAdapter
        (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        (cancelled, cancelledContinuation) = AsyncStream<Void>.makeStream()
    }

    private func park() async {
        enteredContinuation.yield()
        // Returns only when cancelled (or after a minute, which fails the test).
        try? await Task.sleep(for: .seconds(60))
        if Task.isCancelled { cancelledContinuation.yield() }
    }

    func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        if parksAdapter { await park() }
        return request
    }

    func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision {
        if !parksAdapter { await park() }
        return .retry
    }
}

private struct AdapterRefusal: Error, Equatable { let reason: String }

@Suite("Request interceptors", .onEveryTransport)
struct InterceptorTests {
    @Test("an adapter's header is what the server receives")
    func adapterAddsHeader() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.interceptors = [RequestInterceptor.header("X-Api-Key", "k-123")]
            let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            let inspection = try Inspection(cycle.response)
            #expect(inspection.values("X-Api-Key") == ["k-123"])
            // The cycle's own request is left as configured: the adapted one only went on the wire.
            #expect(cycle.request.value(forHTTPHeaderField: "X-Api-Key") == nil)
        }
    }

    @Test("adapters run in order, each given what the one before returned")
    func compositionOrder() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let calls = CallCounter()
            session.interceptors = [trail("a", calls: calls), trail("b", calls: calls), trail("c", calls: calls)]
            let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            #expect(try Inspection(cycle.response).values("X-Trail") == ["a,b,c"])
            #expect(calls.labels == ["a", "b", "c"])
        }
    }

    @Test("the first retrier that decides wins; those after it are not asked")
    func retrierOrder() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 0)
            let calls = CallCounter()
            session.interceptors = [
                RequestInterceptor(retry: { _, _ in calls.record("pass"); return .doNotRetry }),
                RequestInterceptor(retry: { _, _ in calls.record("decide"); return .retry }),
                RequestInterceptor(retry: { _, _ in calls.record("never"); return .doNotRetry }),
            ]
            let cycle = try await HTTPCycle.get(sandbox.string("/flaky/?key=order&fail=1&code=500"), session: session)
            #expect(cycle.response.statusCode == 200)
            #expect(calls.labels == ["pass", "decide"])
            #expect(sandbox.requestCount(forFlakyKey: "order") == 2)
        }
    }

    @Test("a cycle's interceptors replace the session's; nil uses them; adding to them is explicit")
    func cycleOverridesSession() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.interceptors = [trail("session")]
            let url = try #require(URL(string: sandbox.string("/inspect/")))
            func trailSeen(_ interceptors: [any HTTPInterceptor]?) async throws -> [String] {
                let cycle = HTTPCycle(requestURL: url, session: session)
                cycle.interceptors = interceptors
                try await cycle.start()
                return try Inspection(cycle.response).values("X-Trail")
            }
            #expect(try await trailSeen(nil) == ["session"])
            #expect(try await trailSeen([trail("cycle")]) == ["cycle"])
            #expect(try await trailSeen(session.interceptors + [trail("cycle")]) == ["session,cycle"])
            #expect(try await trailSeen([]) == [])
        }
    }

    @Test("a retrier retries N times with its delay, then gives up with the last error")
    func retrierGivesUp() async throws {
        try await withSandbox { sandbox in
            // 500 is not a status the retry policy resends: only the retrier does.
            let session = makeSession()
            let seen = Mutex<[String]>([])
            session.interceptors = [RequestInterceptor(retry: { _, failure in
                seen.withLock { $0.append("\(failure.retriedCount):\(failure.statusCode ?? 0)") }
                return failure.retriedCount < 2 ? .retryAfter(0.05) : .doNotRetry
            })]
            let clock = ContinuousClock()
            let began = clock.now
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=n&fail=10&code=500"), session: session, completionHandler: $0)
            }
            let took = clock.now - began
            #expect((result.error as? HTTPError)?.statusCode == 500)
            #expect(result.response.text == "flaky 3")
            #expect(result.cycle.retriedCount == 2)
            #expect(seen.withLock { $0 } == ["0:500", "1:500", "2:500"])
            #expect(sandbox.requestCount(forFlakyKey: "n") == 3)
            #expect(took >= .milliseconds(100), "two waits of 50 ms, done in \(took)")
        }
    }

    @Test("every retry is adapted again, from the cycle's request")
    func retriesAreAdapted() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let calls = CallCounter()
            session.interceptors = [
                trail("a", calls: calls),
                RequestInterceptor(retry: { _, failure in failure.retriedCount < 2 ? .retry : .doNotRetry }),
            ]
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=adapted&fail=2&code=500"), session: session, completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(calls.count == 3)
            // Each attempt starts from the cycle's request, not the last adapted one.
            #expect(result.cycle.request.value(forHTTPHeaderField: "X-Trail") == nil)
        }
    }

    @Test("when no interceptor decides, the session's retry strategy does")
    func strategyAfterInterceptors() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(delay: 0.01, count: 3)
            session.interceptors = [RequestInterceptor(retry: { _, _ in .doNotRetry })]
            let cycle = try await HTTPCycle.get(sandbox.string("/flaky/?key=strategy&fail=2"), session: session)
            #expect(cycle.response.statusCode == 200)
            #expect(cycle.retriedCount == 2)
        }
    }

    @Test("an async adapter awaits its token before the request goes")
    func asyncAdapter() async throws {
        try await withSandbox { sandbox in
            let store = TokenStore()
            let session = makeSession()
            session.interceptors = [RequestInterceptor { request, _ in
                var request = request
                request.setValue("Bearer \(await store.token())", forHTTPHeaderField: "Authorization")
                return request
            }]
            let first = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            let second = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            #expect(try Inspection(first.response).values("Authorization") == ["Bearer token-1"])
            #expect(try Inspection(second.response).values("Authorization") == ["Bearer token-2"])
        }
    }

    @Test("an adapter that throws ends the run with its error; nothing is sent")
    func adapterThrows() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 3)
            let retried = CallCounter()
            session.interceptors = [RequestInterceptor(
                adapt: { _, _ in throw AdapterRefusal(reason: "no key") },
                retry: { _, _ in retried.record(); return .retry })]
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=thrown&fail=0"), session: session, completionHandler: $0)
            }
            #expect(result.error as? AdapterRefusal == AdapterRefusal(reason: "no key"))
            #expect(retried.count == 0)
            #expect(sandbox.requestCount(forFlakyKey: "thrown") == 0)
        }
    }

    @Test("a retrier's .fail ends the run with its error")
    func retrierFails() async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 3)
            session.interceptors = [RequestInterceptor(retry: { _, _ in .fail(AdapterRefusal(reason: "stop")) })]
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/flaky/?key=fail&fail=5"), session: session, completionHandler: $0)
            }
            #expect(result.error as? AdapterRefusal == AdapterRefusal(reason: "stop"))
            #expect(result.response.statusCode == 503)
            #expect(sandbox.requestCount(forFlakyKey: "fail") == 1)
        }
    }

    @Test("cancel while an adapter or a retrier awaits: one completion, cancelled; the interceptor's task is cancelled",
          arguments: [true, false])
    func cancelWhileIntercepting(inAdapter: Bool) async throws {
        try await withSandbox { sandbox in
            let session = makeRetrySession(count: 0)
            let parked = ParkedInterceptor(parksAdapter: inAdapter)
            session.interceptors = [parked]
            let completions = CallCounter()
            let result = try await outcome { handler in
                let cycle = try HTTPCycle.get(sandbox.string("/flaky/?key=park&fail=1"), session: session) { cycle, error in
                    completions.record()
                    handler(cycle, error)
                }
                Task {
                    for await _ in parked.entered { break }
                    cycle.cancel(explicitly: false)
                }
                return cycle
            }
            guard case HTTPError.cancelled? = result.error else {
                Issue.record("expected a cancellation, got \(String(describing: result.error))")
                return
            }
            for await _ in parked.cancelled { break }
            #expect(result.cycle.state == .cancelled)
            await session.drain()
            #expect(completions.count == 1)
            #expect(sandbox.requestCount(forFlakyKey: "park") == (inAdapter ? 0 : 1))
        }
    }

    @Test("the deadline applies while an adapter awaits")
    func deadlineWhileAdapting() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let parked = ParkedInterceptor(parksAdapter: true)
            session.interceptors = [parked]
            let url = try #require(URL(string: sandbox.string("/hello/")))
            let cycle = HTTPCycle(requestURL: url, session: session)
            cycle.timeoutIntervalForResource = 0.2
            let result = try await outcome { handler in
                cycle.start(handler)
                return cycle
            }
            guard case HTTPError.deadlineExceeded? = result.error else {
                Issue.record("expected the deadline, got \(String(describing: result.error))")
                return
            }
            for await _ in parked.cancelled { break }
        }
    }
}
