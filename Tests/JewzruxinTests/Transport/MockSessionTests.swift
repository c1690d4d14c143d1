import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session on a mock transport, its handlers on a private serial queue.
private func makeMockSession(_ mock: MockSession, retries: Int = 0) -> HTTPSession {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = HTTPSession(delegateQueue: queue, transport: mock)
    session.retryPolicy = RetryPolicy(maximumRetryCount: retries, retryDelay: 0.001)
    session.networkActivityIndicator = nil
    return session
}

@Suite("MockSession: the engine on a substitute transport, no server")
struct MockSessionTests {
    @Test("a stubbed JSON answer goes through the content handler; the request is recorded")
    func stubbedJSON() async throws {
        let mock = MockSession()
        mock.stub(.get, "/stores/", status: 200, headers: ["Content-Type": "application/json"],
                  body: Data(#"[{"name":"Shadyside","address":{"zip":"15217"}}]"#.utf8))
        let session = makeMockSession(mock)
        let cycle = HTTPCycle(requestURL: try #require(URL(string: "https://api.example.com/stores?zip=15217")), session: session)
        cycle.contentHandler = JSONParser()
        try await cycle.start()
        let json = try #require(cycle.response.content as? JSON)
        #expect(json["0.address.zip"]?.stringValue == "15217")
        #expect(mock.requests.count == 1)
        #expect(mock.requests.first?.url?.query == "zip=15217")
        await session.drain()
        #expect(session.runningTaskCount == 0)
    }

    @Test("a request no stub matches fails with noStub, naming the method and URL")
    func noStub() async throws {
        let mock = MockSession()
        mock.stub(.post, "/stores", status: 201)
        let session = makeMockSession(mock)
        let result = try await outcome { try HTTPCycle.get("https://api.example.com/stores", session: session, completionHandler: $0) }
        let error = try #require(result.error as? MockSessionError)
        #expect(String(describing: error) == "MockSession has no stub for GET https://api.example.com/stores")
    }

    @Test("stubs with a count step aside: a 503 then a 200 is retried to success")
    func countedStubsAndRetry() async throws {
        let mock = MockSession()
        mock.stub(.get, "/flaky", status: 200, body: Data("ok".utf8))
        mock.stub(.get, "/flaky", status: 503, times: 2)
        let session = makeMockSession(mock, retries: 3)
        let cycle = try await HTTPCycle.get("https://api.example.com/flaky", session: session)
        #expect(cycle.response.text == "ok")
        #expect(cycle.retriedCount == 2)
        #expect(mock.requests.count == 3)
    }

    @Test("a stubbed error reaches the handler as a transport error")
    func stubbedError() async throws {
        let mock = MockSession()
        mock.stub(.get, "/slow", error: URLError(.timedOut))
        let session = makeMockSession(mock)
        let result = try await outcome { try HTTPCycle.get("https://api.example.com/slow", session: session, completionHandler: $0) }
        guard case HTTPError.transport(let error)? = result.error else {
            Issue.record("expected a transport error, got \(String(describing: result.error))")
            return
        }
        #expect(error.code == .timedOut)
    }

    @Test("a 401 is answered by the engine's authentication; the second request carries it")
    func challengeAnswered() async throws {
        let mock = MockSession()
        mock.stub(.get, "/private", status: 200, body: Data("secret".utf8))
        mock.stub(.get, "/private", status: 401, headers: ["WWW-Authenticate": #"Basic realm="api""#], times: 1)
        let session = makeMockSession(mock)
        session.authentications = [BasicAuthentication(username: "test", password: "12345")]
        let cycle = try await HTTPCycle.get("https://api.example.com/private", session: session)
        #expect(cycle.response.text == "secret")
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Basic dGVzdDoxMjM0NQ=="])
    }

    @Test("a 307 is followed by the engine with the method and body")
    func redirectFollowed() async throws {
        let mock = MockSession()
        mock.stub(.post, "/old", status: 307, headers: ["Location": "/new"])
        mock.stub(.post, "/new", status: 201)
        let session = makeMockSession(mock)
        let cycle = HTTPCycle(requestURL: try #require(URL(string: "https://api.example.com/old")), requestMethod: .post, session: session)
        cycle.request.data = Data("payload".utf8)
        try await cycle.start()
        #expect(cycle.response.statusCode == 201)
        #expect(mock.requests.map { $0.url?.path } == ["/old", "/new"])
        #expect(mock.requests.last?.data == Data("payload".utf8))
    }

    @Test("cancelling during a stub's delay ends the cycle at once, exactly once")
    func cancelDuringDelay() async throws {
        let mock = MockSession()
        mock.stub(.get, "/wait", status: 200, delay: 30)
        let session = makeMockSession(mock)
        let counter = CallCounter()
        let cycle = try HTTPCycle.get("https://api.example.com/wait", session: session) { _, error in
            counter.record(String(describing: error.map { "\($0)" } ?? "nil"))
        }
        cycle.cancel(explicitly: false)
        await session.drain()
        #expect(counter.labels == ["the cycle was cancelled"])
        #expect(session.runningTaskCount == 0)
    }

    @Test("an upload's body is recorded and reported as sent")
    func uploadRecorded() async throws {
        let mock = MockSession()
        mock.stub(.put, "/files/a", status: 204)
        let session = makeMockSession(mock)
        let sent = CallCounter()
        let result = try await outcome {
            try HTTPCycle.upload("https://api.example.com/files/a", source: .data(Data("abc".utf8)), method: .put, session: session,
                                 didSendBodyDataHandler: { _, _, total, _ in sent.record("\(total)") }, completionHandler: $0)
        }
        #expect(result.error == nil)
        #expect(mock.requests.first?.data == Data("abc".utf8))
        await session.drain()
        #expect(sent.labels == ["3"])
    }
}
