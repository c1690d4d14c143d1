import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A native session with a short request timeout, so that a test that would hang fails fast.
private func misbehavingSession() -> HTTPSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 5
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = HTTPSession(configuration: configuration, delegateQueue: queue, transport: .native)
    session.retryPolicy.maximumRetryCount = 0
    session.networkActivityIndicator = nil
    return session
}

@Suite("Native transport: misbehaving servers")
struct NativeMisbehavingServerTests {
    /// What a case's server sends after reading the request, then it closes the connection.
    static let malformed: [(name: String, response: String, code: URLError.Code)] = [
        ("bad status line", "HTTP/1.1 OK\r\n\r\n", .badServerResponse),
        ("not HTTP at all", "SSH-2.0-OpenSSH_9.2\r\n\r\n", .badServerResponse),
        ("bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nXYZ\r\nhello\r\n0\r\n\r\n", .badServerResponse),
        ("chunk data overrunning its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n", .badServerResponse),
        ("header without a colon", "HTTP/1.1 200 OK\r\nBroken header\r\nContent-Length: 0\r\n\r\n", .badServerResponse),
        ("headers over 64 KiB", "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: " + String(repeating: "f", count: 100) + "\r\n", count: 700) + "\r\n", .badServerResponse),
        ("one header line over 64 KiB", "HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "h", count: 70_000) + "\r\n\r\n", .badServerResponse),
        ("Content-Lengths that disagree", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", .badServerResponse),
        ("body shorter than Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this", .networkConnectionLost),
        ("chunked body cut short", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", .networkConnectionLost),
        ("closed inside the headers", "HTTP/1.1 200 OK\r\nContent-Le", .networkConnectionLost),
        ("closed before a byte", "", .networkConnectionLost),
    ]

    @Test("a malformed response gives a typed error, once, and no hang", arguments: 0..<malformed.count)
    func malformedResponse(index: Int) async throws {
        let (name, response, code) = Self.malformed[index]
        try await ScriptedServer.withServer([[.readRequest, .sendText(response), .close]]) { server in
            let session = misbehavingSession()
            let result = try await outcome { try HTTPCycle.get(server.baseURL.absoluteString + "/", session: session, completionHandler: $0) }
            guard case HTTPError.transport(let error)? = result.error as? HTTPError else {
                Issue.record("\(name): expected a transport error, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == code, "\(name): \(error)")
            await session.drain()
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("bytes after a complete body: the response stands and the connection is not reused")
    func garbageAfterBody() async throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE"
        try await ScriptedServer.withServer([[.readRequest, .sendText(answer), .waitForClientClose]]) { server in
            let session = misbehavingSession()
            let first = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: session)
            #expect(first.response.text == "ok")
            let second = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: session)
            #expect(second.response.text == "ok")
            #expect(server.connectionCount == 2)
        }
    }

    /// The first connection answers once, then reads the next request and closes without answering,
    /// as a server does when it times out an idle connection just as it is reused.
    static let staleScripts: [[ScriptedServer.Step]] = [
        [.readRequest, .sendText("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"), .readRequest, .close],
        [.readRequest, .sendText("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond"), .waitForClientClose],
    ]

    @Test("an idempotent request on a connection the server closed is sent again once, on a new one")
    func staleConnectionRetried() async throws {
        try await ScriptedServer.withServer(Self.staleScripts) { server in
            let session = misbehavingSession()
            let first = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: session)
            #expect(first.response.text == "first")
            let second = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: session)
            #expect(second.response.text == "second")
            #expect(server.connectionCount == 2)
            #expect(server.requestHeads.count == 3)
        }
    }

    @Test("a POST on a connection the server closed is not sent again: it fails")
    func staleConnectionNotRetriedForPost() async throws {
        try await ScriptedServer.withServer(Self.staleScripts) { server in
            let session = misbehavingSession()
            let first = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: session)
            #expect(first.response.text == "first")
            let result = try await outcome {
                try HTTPCycle.post(server.baseURL.absoluteString + "/", requestObject: Data("once".utf8),
                                   requestProcessors: [HTTPDataProcessor()], session: session, completionHandler: $0)
            }
            guard case HTTPError.transport(let error)? = result.error as? HTTPError else {
                Issue.record("expected a transport error, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == .networkConnectionLost)
            #expect(server.connectionCount == 1)
        }
    }

    @Test("a server that accepts and never answers: the request times out")
    func silentServer() async throws {
        try await ScriptedServer.withServer([[.readRequest, .pause(10)]]) { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 0.3
            let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .native)
            session.retryPolicy.maximumRetryCount = 0
            let result = try await outcome { try HTTPCycle.get(server.baseURL.absoluteString + "/", session: session, completionHandler: $0) }
            guard case HTTPError.transport(let error)? = result.error as? HTTPError else {
                Issue.record("expected a timeout, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == .timedOut)
        }
    }
}
