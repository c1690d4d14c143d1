import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Hostile servers (issue 29): responses whose framing or fields break RFC 9110/9112, and servers that
// stream without end. Every transport must give the same answer: the response read as the RFC says,
// or `HTTPError.transport(URLError(.badServerResponse))` with the reason in its description, never
// a response the server did not frame. Each case runs on a `ScriptedServer` (loopback, port 0) and
// under a deadline, so a transport that hangs fails the case within seconds.

/// How a hostile case must end.
enum HostileExpectation: Sendable, CustomStringConvertible {
    /// The cycle succeeds with this body.
    case text(String)
    /// `HTTPError.transport(URLError(.badServerResponse))` whose description contains this.
    case rejected(String)
    /// `HTTPError.statusCodeSeemsToHaveErred` with this status and body.
    case status(Int, String)

    var description: String {
        switch self {
        case .text(let text): "success with \"\(text)\""
        case .rejected(let reason): "badServerResponse (\(reason))"
        case .status(let status, _): "status \(status)"
        }
    }
}

/// One hostile response: what the server sends after reading the request, then it closes.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let response: String
    let expectation: HostileExpectation
    /// Why URLSession (FoundationNetworking) can't be made to agree: the case is then a known
    /// issue there.
    var urlSessionIssue: String?

    var testDescription: String { name }
}

/// The reasons the transports give, as `ResponseDecodingError` words them.
private enum Reason {
    static let contentLength = "Content-Length"
    static let field = "header field"
    static let transferEncoding = "Transfer-Encoding"
    static let upgrade = "101"
    static let chunk = "chunked body"
    static let headTooLarge = "header section is larger"
    static let statusLine = "status line"
}

private let ok = "HTTP/1.1 200 OK\r\n"

let hostileCases: [HostileCase] = [
    // Content-Length (RFC 9112 §6.3): one length, written as digits; repeats of it are allowed.
    HostileCase(name: "two Content-Length fields that disagree", response: ok + "Content-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "one Content-Length field with two lengths", response: ok + "Content-Length: 5, 7\r\n\r\nhello!!",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "Content-Length with a plus sign", response: ok + "Content-Length: +5\r\n\r\nhello",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "negative Content-Length", response: ok + "Content-Length: -5\r\n\r\nhello",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "hexadecimal Content-Length", response: ok + "Content-Length: 0x5\r\n\r\nhello",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "Content-Length of 26 digits", response: ok + "Content-Length: 12345678901234567890123456\r\n\r\nhello",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "empty Content-Length", response: ok + "Content-Length: \r\n\r\nhello",
                expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "the same Content-Length twice (allowed)", response: ok + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
                expectation: .text("hello")),
    HostileCase(name: "Content-Length: 5, 5 (allowed)", response: ok + "Content-Length: 5, 5\r\n\r\nhello", expectation: .text("hello")),
    // Field lines (RFC 9110 §5.5, RFC 9112 §5).
    HostileCase(name: "a bare CR inside a field value", response: ok + "X-Cr: a\rSet-Cookie: injected=1\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    HostileCase(name: "a NUL inside a field value", response: ok + "X-Nul: a\u{0}b\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    HostileCase(name: "a field line without a colon", response: ok + "Broken header\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    HostileCase(name: "whitespace between a field name and its colon", response: ok + "Content-Length : 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    HostileCase(name: "a space inside a field name", response: ok + "X Bad: 1\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    HostileCase(name: "an empty field name", response: ok + ": nameless\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    // A user agent unfolds an obs-fold (RFC 9112 §5.2); a fold with no field before it is an error.
    HostileCase(name: "obsolete line folding (unfolded)", response: ok + "X-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
                expectation: .text("ok")),
    HostileCase(name: "a folded Content-Length that contradicts itself",
                response: ok + "Content-Length: 2\r\n 3\r\n\r\nok", expectation: .rejected(Reason.contentLength)),
    HostileCase(name: "a folded line before any field", response: ok + " X-Lead: a\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.field)),
    // Status.
    HostileCase(name: "an unsolicited 101 Switching Protocols",
                response: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{05}hello",
                expectation: .rejected(Reason.upgrade)),
    HostileCase(name: "an empty line before the status line", response: "\r\n" + ok + "Content-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.statusLine)),
    HostileCase(name: "a CR inside the reason phrase", response: "HTTP/1.1 200 O\rK\r\nContent-Length: 2\r\n\r\nok",
                expectation: .rejected(Reason.statusLine),
                urlSessionIssue: "FoundationNetworking hands on the reason phrase's CR, and URLSession gives no reason phrase to check"),
    HostileCase(name: "interim responses, then the response (allowed)",
                response: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" + ok
                    + "Content-Length: 2\r\n\r\nok",
                expectation: .text("ok")),
    // Transfer-Encoding (RFC 9112 §6.1, §7): chunked, last and once; no coding the client did not ask for in TE.
    HostileCase(name: "Transfer-Encoding: chunked, x-unknown", response: ok + "Transfer-Encoding: chunked, x-unknown\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.transferEncoding)),
    HostileCase(name: "Transfer-Encoding: gzip, chunked",
                response: ok + "Transfer-Encoding: gzip, chunked\r\n\r\n5\r\n\u{1F}\u{8B}\u{08}\u{00}\u{00}\r\n0\r\n\r\n",
                expectation: .rejected(Reason.transferEncoding)),
    HostileCase(name: "Transfer-Encoding: x-unknown", response: ok + "Transfer-Encoding: x-unknown\r\n\r\nok",
                expectation: .rejected(Reason.transferEncoding)),
    HostileCase(name: "Transfer-Encoding: chunked, chunked", response: ok + "Transfer-Encoding: chunked, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.transferEncoding)),
    HostileCase(name: "Transfer-Encoding in two fields, chunked first", response: ok + "Transfer-Encoding: chunked\r\nTransfer-Encoding: x-unknown\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.transferEncoding)),
    HostileCase(name: "Transfer-Encoding: Chunked (any case, allowed)", response: ok + "Transfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                expectation: .text("ok")),
    HostileCase(name: "chunked and a Content-Length (chunked wins)", response: ok + "Content-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                expectation: .text("ok")),
    // Chunk sizes (RFC 9112 §7.1).
    HostileCase(name: "a chunk size that overflows", response: ok + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.chunk)),
    HostileCase(name: "a negative chunk size", response: ok + "Transfer-Encoding: chunked\r\n\r\n-2\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.chunk)),
    HostileCase(name: "a chunk size that is not hexadecimal", response: ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n",
                expectation: .rejected(Reason.chunk)),
]

/// A session on the transport under test that gives up on a hang within seconds.
private func hostileSession(requestTimeout: TimeInterval = 4, deadline: TimeInterval = 6) -> HTTPSession {
    let session = makeSession {
        $0.timeoutIntervalForRequest = requestTimeout
        $0.timeoutIntervalForResource = deadline
    }
    session.retryPolicy.maximumRetryCount = 0
    session.networkActivityIndicator = nil
    return session
}

/// Checks how a cycle ended.
private func check(
    _ result: Outcome, against expectation: HostileExpectation, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let name = "\(name) on \(TransportUnderTest.current)"
    switch expectation {
    case .text(let text):
        #expect(result.error == nil, "\(name): expected success, got \(String(describing: result.error))", sourceLocation: sourceLocation)
        #expect(result.response.text == text, "\(name)", sourceLocation: sourceLocation)
    case .rejected(let reason):
        guard case HTTPError.transport(let error)? = result.error as? HTTPError else {
            let body = result.response.text ?? "none"
            Issue.record("\(name): expected \(expectation), got \(String(describing: result.error)), status \(result.response.statusCode), body \(body)",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .badServerResponse, "\(name): \(error)", sourceLocation: sourceLocation)
        #expect(error.localizedDescription.contains(reason), "\(name): \(error.localizedDescription)", sourceLocation: sourceLocation)
    case .status(let status, let body):
        guard case HTTPError.statusCodeSeemsToHaveErred(let response)? = result.error as? HTTPError else {
            Issue.record("\(name): expected \(expectation), got \(String(describing: result.error))", sourceLocation: sourceLocation)
            return
        }
        #expect(response.statusCode == status, "\(name)", sourceLocation: sourceLocation)
        #expect(response.text == body, "\(name)", sourceLocation: sourceLocation)
    }
}

/// Runs `body`, as a known issue on URLSession when `issue` is set (intermittent: a fix makes it pass).
private func checking(_ issue: String?, _ body: () -> Void) {
    if let issue, TransportUnderTest.current == .urlSession {
        withKnownIssue(Comment(rawValue: issue), isIntermittent: true) { body() }
    } else {
        body()
    }
}

@Suite("Hostile servers: one set of message rules on every transport", .onEveryTransport)
struct HostileServerTests {
    @Test("a response that breaks the framing or field rules is refused alike", arguments: hostileCases)
    func hostileResponse(_ hostile: HostileCase) async throws {
        try await ScriptedServer.withServer([[.readRequest, .sendText(hostile.response), .close]]) { server in
            let session = hostileSession()
            let result = try await outcome { try HTTPCycle.get(server.baseURL.absoluteString + "/", session: session, completionHandler: $0) }
            checking(hostile.urlSessionIssue) { check(result, against: hostile.expectation, hostile.name) }
            await session.drain()
            #expect(session.runningTaskCount == 0)
        }
    }

    /// What a server streams for ever instead of a response, and the reason it is refused for.
    static let endless: [(name: String, text: String, reason: String)] = [
        ("103 Early Hints for ever", "HTTP/1.1 103 Early Hints\r\n\r\n", Reason.headTooLarge),
        ("100 Continue with a field, for ever", "HTTP/1.1 100 Continue\r\nX-Again: 1\r\n\r\n", Reason.headTooLarge),
        // Not a status line: refused at the first.
        ("empty lines for ever", "\r\n", Reason.statusLine),
    ]

    @Test("a server that streams interim heads or empty lines for ever is refused within the head limit",
          arguments: 0..<endless.count)
    func endlessHead(index: Int) async throws {
        let (name, text, reason) = Self.endless[index]
        try await ScriptedServer.withServer([[.readRequest, .sendForever(text)]]) { server in
            // No idle timeout can fire (bytes keep coming): only the deadline would end a loop.
            // URLSession reaches libcurl's 300 KiB limit through FoundationNetworking's queues,
            // seconds late on a loaded machine (7 s seen): its deadline leaves room for that.
            let session = hostileSession(requestTimeout: 30, deadline: TransportUnderTest.current == .urlSession ? 40 : 8)
            let started = ContinuousClock.now
            // Timed where the completion handler runs, not where this task resumes: in a full run
            // the suites that block their threads on purpose (slow content handlers, held queues)
            // can delay a task's resumption by seconds, which is not the transport's doing.
            let ended = Locked<ContinuousClock.Instant?>(nil)
            let result = try await outcome { done in
                try HTTPCycle.get(server.baseURL.absoluteString + "/", session: session) { cycle, error in
                    ended.withLock { $0 = ContinuousClock.now }
                    done(cycle, error)
                }
            }
            let elapsed = try #require(ended.withLock { $0 }) - started
            check(result, against: .rejected(reason), name)
            // The error shows the deadline did not end it. URLSession's completion comes through
            // FoundationNetworking's busy queues, seconds late on a loaded machine: no bound there.
            if TransportUnderTest.current != .urlSession {
                // Milliseconds alone; the error check above already tells the limit from the deadline.
                #expect(elapsed < .seconds(6), "\(name) on \(TransportUnderTest.current): took \(elapsed)")
            }
            await session.drain()
        }
    }

    /// A response with no body, then bytes that would be a second response on a reused connection.
    static let strayAfterBodiless: [(name: String, method: HTTPMethod, response: String)] = [
        ("204", .get, "HTTP/1.1 204 No Content\r\n\r\n"),
        ("304", .get, "HTTP/1.1 304 Not Modified\r\n\r\n"),
        ("HEAD", .head, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"),
    ]

    @Test("stray bytes after a bodiless response: the connection is not reused, the next request succeeds at once",
          arguments: 0..<strayAfterBodiless.count)
    func strayBytesAfterBodilessResponse(index: Int) async throws {
        if TransportUnderTest.current == .urlSession {
            let reason = "FoundationNetworking's libcurl drops the stray bytes it read with the head and keeps the connection; "
                + "URLSession gives the transport no hold on its connections, so the next request waits on it"
            withKnownIssue(Comment(rawValue: reason)) {
                Issue.record("not run on URLSession: its next request would wait for the request timeout")
            }
            return
        }
        let (name, method, response) = Self.strayAfterBodiless[index]
        let label = "\(name) on \(TransportUnderTest.current)"
        let smuggled = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled"
        let scripts: [[ScriptedServer.Step]] = [
            // The first connection answers, then sends bytes nobody asked for, and answers nothing
            // more: a request sent on it again is read (and counted), never answered.
            [.readRequest, .sendText(response + smuggled), .readRequest, .waitForClientClose],
            [.readRequest, .sendText("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond"), .waitForClientClose],
        ]
        try await ScriptedServer.withServer(scripts) { server in
            let session = hostileSession(requestTimeout: 3, deadline: 5)
            let url = server.baseURL.absoluteString + "/"
            let first = try await outcome { handler in
                let cycle = HTTPCycle(requestURL: try #require(URL(string: url)), session: session)
                cycle.request.method = method
                cycle.start(handler)
                return cycle
            }
            #expect(first.error == nil || (first.error as? HTTPError)?.statusCode == 304, "\(label): \(String(describing: first.error))")
            let second = try await outcome { try HTTPCycle.get(url, session: session, completionHandler: $0) }
            #expect(second.error == nil, "\(label): \(String(describing: second.error))")
            #expect(second.response.text == "second", "\(label): the next request got \(String(describing: second.response.text))")
            // A reused connection would give "smuggled", or take the request and wait for the 3 s
            // timeout before a retry on a new one: the server would then have read three requests.
            // Counted rather than timed: the suite's load can delay any request by seconds.
            #expect(server.requestHeads.count == 2, "\(label): the next request went out on the first connection")
            #expect(server.connectionCount == 2, "\(label)")
            await session.drain()
        }
    }

    @Test("a server that answers a large upload early (413) and closes: the response is delivered")
    func earlyAnswerToUpload() async throws {
        let answer = "HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo much"
        // The server reads the head, answers, and a moment later closes with the body unread: the
        // client, blocked sending into full buffers, then gets a reset, after the whole response
        // arrived. (libcurl reads while it sends, so it sees the 413 before the reset and stops
        // sending; the native transport finds it after its write failed.)
        try await ScriptedServer.withServer([[.readRequestHead, .sendText(answer), .pause(0.3), .reset]]) { server in
            let session = hostileSession()
            let body = Data(count: 32 << 20)
            let result = try await outcome { handler in
                let cycle = HTTPCycle(requestURL: try #require(URL(string: server.baseURL.absoluteString + "/upload")), session: session)
                cycle.request.method = .post
                cycle.request.data = body
                cycle.start(handler)
                return cycle
            }
            check(result, against: .status(413, "too much"), "early 413")
            await session.drain()
        }
    }
}
