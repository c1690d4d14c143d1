import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `/bearer/refresh/` answers.
private struct TokenAnswer: Decodable {
    let access_token: String
    let expires_in: Int
}

/// A refresh that asks the sandbox for the key's next token, on a session of its own (without the
/// interceptor), after `gate` opens when there is one.
private func sandboxRefresh(
    _ sandbox: Sandbox, key: String, query: String = "", gate: AsyncStream<Void>? = nil
) -> BearerTokenAuthenticator.Refresh {
    let session = makeSession()
    let url = sandbox.string("/bearer/refresh/?key=\(key)\(query)")
    return { _ in
        if let gate { for await _ in gate { break } }
        let cycle = try await HTTPCycle.post(url, session: session)
        let answer = try JSONDecoder().decode(TokenAnswer.self, from: cycle.response.data)
        return BearerToken(accessToken: answer.access_token, expiration: Date().addingTimeInterval(TimeInterval(answer.expires_in)))
    }
}

/// What each of `count` cycles on `/bearer/?key=` ended with: its text, or its error.
private func concurrentRequests(_ count: Int, _ sandbox: Sandbox, key: String, session: HTTPSession) async -> [Result<String, any Error>] {
    await withTaskGroup(of: Result<String, any Error>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do {
                    let cycle = try await HTTPCycle.get(sandbox.string("/bearer/?key=\(key)"), session: session)
                    return .success(cycle.response.text ?? "")
                } catch {
                    return .failure(error)
                }
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

/// What each of `count` cycles on `/bearer/?key=` ended with: its text and how often it was resent,
/// or its error.
private func concurrentRequestsWithRetries(
    _ count: Int, _ sandbox: Sandbox, key: String, session: HTTPSession
) async -> [Result<(text: String, retried: Int), any Error>] {
    await withTaskGroup(of: Result<(text: String, retried: Int), any Error>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do {
                    let cycle = try await HTTPCycle.get(sandbox.string("/bearer/?key=\(key)"), session: session)
                    return .success((cycle.response.text ?? "", cycle.retriedCount))
                } catch {
                    return .failure(error)
                }
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

/// An authenticator that never recognises its own requests: a bug that must not loop.
private struct ForgetfulAuthenticator: CredentialAuthenticator {
    func apply(_ credential: BearerToken, to request: inout HTTPRequest) {
        request.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
    }
    func refresh(_ credential: BearerToken) async throws -> BearerToken { credential }
    func isRequest(_ request: HTTPRequest, authenticatedWith credential: BearerToken) -> Bool { false }
}

private let expired = BearerToken(accessToken: "old", expiration: Date(timeIntervalSinceNow: -60))

@Suite("Authentication interceptor", .onEveryTransport)
struct AuthenticationInterceptorTests {
    @Test("10 requests with an expired token: one refresh before sending, all 10 succeed, no 401")
    func singleFlightBeforeSending() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            // The refresh takes 0.2 s, so the requests made meanwhile wait for it.
            let auth = AuthenticationInterceptor(token: expired, refresh: sandboxRefresh(sandbox, key: "e", query: "&delay=0.2"))
            session.interceptors = [auth]
            let results = await concurrentRequests(10, sandbox, key: "e", session: session)
            #expect(results.compactMap { try? $0.get() } == Array(repeating: "Hello e.1", count: 10))
            #expect(sandbox.bearerRefreshCount(forKey: "e") == 1)
            #expect(auth.refreshCount == 1)
            #expect(sandbox.bearerRejectionCount(forKey: "e") == 0)
            #expect(auth.credential?.accessToken == "e.1")
        }
    }

    @Test("10 requests with a stale token: one refresh; each request refused at most once, resent once, and succeeds")
    func singleFlightAfter401() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "stale"), refresh: sandboxRefresh(sandbox, key: "s", query: "&delay=0.25"))
            session.interceptors = [auth]
            let results = await concurrentRequestsWithRetries(10, sandbox, key: "s", session: session)
            let outcomes = results.compactMap { try? $0.get() }
            #expect(outcomes.map(\.text) == Array(repeating: "Hello s.1", count: 10))
            #expect(sandbox.bearerRefreshCount(forKey: "s") == 1)
            // How many went out with the stale token depends on how many were adapted before the
            // first 401 started the refresh (all 10 on a quiet machine, fewer under load): those
            // were refused once and resent once; the others waited for the refresh and went with
            // the new token.
            let resent = outcomes.filter { $0.retried == 1 }.count
            #expect(outcomes.allSatisfy { $0.retried <= 1 }, "retries: \(outcomes.map(\.retried))")
            #expect(resent >= 1)
            #expect(sandbox.bearerRejectionCount(forKey: "s") == resent, "retries: \(outcomes.map(\.retried))")
            // A later request goes with the new token at once.
            let later = try await HTTPCycle.get(sandbox.string("/bearer/?key=s"), session: session)
            #expect(later.response.text == "Hello s.1")
            #expect(later.retriedCount == 0)
            #expect(sandbox.bearerRefreshCount(forKey: "s") == 1)
        }
    }

    @Test("a failed refresh fails every request waiting for it with refreshFailed")
    func refreshFailureFailsAll() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let auth = AuthenticationInterceptor(token: expired, refresh: sandboxRefresh(sandbox, key: "x", query: "&fail=1&delay=0.1"))
            session.interceptors = [auth]
            let results = await concurrentRequests(10, sandbox, key: "x", session: session)
            var refreshFailures = 0
            for result in results {
                guard case .failure(AuthenticationInterceptorError.refreshFailed(let cause)) = result else {
                    Issue.record("expected refreshFailed, got \(result)")
                    continue
                }
                #expect((cause as? HTTPError)?.statusCode == 500)
                refreshFailures += 1
            }
            #expect(refreshFailures == 10)
            #expect(sandbox.bearerRefreshCount(forKey: "x") == 1)
            #expect(sandbox.bearerRejectionCount(forKey: "x") == 0, "nothing was sent with the expired token")
        }
    }

    @Test("a cycle cancelled while it waits for a refresh completes once, cancelled; the others go on")
    func cancelWhileWaiting() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let (gate, open) = AsyncStream<Void>.makeStream()
            let auth = AuthenticationInterceptor(token: expired, refresh: sandboxRefresh(sandbox, key: "c", gate: gate))
            session.interceptors = [auth]
            let url = try #require(URL(string: sandbox.string("/bearer/?key=c")))
            let cycles = (0..<3).map { _ in HTTPCycle(requestURL: url, session: session) }
            let completions = CallCounter()
            let outcomes = AsyncStream<(Int, (any Error)?)>.makeStream()
            for (index, cycle) in cycles.enumerated() {
                cycle.start { cycle, error in
                    completions.record("\(index)")
                    outcomes.continuation.yield((index, error))
                }
            }
            // GIVEN all three wait for the one refresh, held at its gate
            while auth.waitingCount < 3 { await Task.yield() }
            #expect(auth.refreshCount == 1)
            // WHEN the middle one is cancelled
            cycles[1].cancel(explicitly: false)
            // THEN it completes at once, while the refresh still waits
            var iterator = outcomes.stream.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(first.0 == 1)
            guard case HTTPError.cancelled? = first.1 else {
                Issue.record("expected a cancellation, got \(String(describing: first.1))")
                return
            }
            #expect(auth.waitingCount == 2)
            // AND the others succeed once the refresh is done
            open.yield()
            for _ in 0..<2 {
                let next = try #require(await iterator.next())
                #expect(next.1 == nil, "cycle \(next.0): \(String(describing: next.1))")
            }
            #expect(cycles[0].response.text == "Hello c.1" && cycles[2].response.text == "Hello c.1")
            #expect(cycles[1].state == .cancelled)
            await session.drain()
            #expect(completions.labels.sorted() == ["0", "1", "2"])
            #expect(sandbox.bearerRefreshCount(forKey: "c") == 1)
        }
    }

    @Test("with no credential, requests fail with missingCredential and nothing is sent")
    func missingCredential() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let auth = AuthenticationInterceptor(token: nil, refresh: sandboxRefresh(sandbox, key: "m"))
            session.interceptors = [auth]
            await #expect(throws: AuthenticationInterceptorError.self) {
                try await HTTPCycle.get(sandbox.string("/bearer/?key=m"), session: session)
            }
            #expect(sandbox.bearerRejectionCount(forKey: "m") == 0)
            // Setting the credential (after a log-in) applies to the next requests.
            auth.credential = try await sandboxRefresh(sandbox, key: "m")(BearerToken(accessToken: ""))
            let cycle = try await HTTPCycle.get(sandbox.string("/bearer/?key=m"), session: session)
            #expect(cycle.response.text == "Hello m.1")
        }
    }

    @Test("an authenticator that never recognises its requests ends in excessiveRefresh, not a loop")
    func forgetfulAuthenticator() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let auth = AuthenticationInterceptor(authenticator: ForgetfulAuthenticator(), credential: BearerToken(accessToken: "t"), maximumRefreshCount: 2)
            session.interceptors = [auth]
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/bearer/?key=forget"), session: session, completionHandler: $0)
            }
            guard case AuthenticationInterceptorError.excessiveRefresh? = result.error else {
                Issue.record("expected excessiveRefresh, got \(String(describing: result.error))")
                return
            }
            #expect(auth.refreshCount == 0)
            #expect(sandbox.bearerRejectionCount(forKey: "forget") == 3)
        }
    }

    @Test("a server that refuses every new token ends in excessiveRefresh, not a loop")
    func excessiveRefresh() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            // Each refresh hands out a token the server never issued.
            let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "t0"), maximumRefreshCount: 3) { old in
                BearerToken(accessToken: old.accessToken + "+")
            }
            session.interceptors = [auth]
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/bearer/?key=loop"), session: session, completionHandler: $0)
            }
            guard case AuthenticationInterceptorError.excessiveRefresh? = result.error else {
                Issue.record("expected excessiveRefresh, got \(String(describing: result.error))")
                return
            }
            #expect(auth.refreshCount == 3)
            #expect(sandbox.bearerRejectionCount(forKey: "loop") == 4)
        }
    }
}
