import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinPrimitives
import JewzruxinSandbox
import JewzruxinTestSupport

/// Server-sent events and line streams against the sandbox's `/events/` and `/stream/N`, on every
/// transport: reconnection with `Last-Event-ID` and `retry`, a connection cut mid-event, cancel.
@Suite("Event streams and line streams", .onEveryTransport)
struct EventStreamTests {
    /// Reconnects at once unless the server says otherwise.
    private static let quick = HTTPCycle.EventStreamReconnection(maximumAttempts: 3, delay: 0)

    private func collect(_ stream: HTTPCycle.EventStream, limit: Int = 100) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in stream {
            events.append(event)
            if events.count == limit { break }
        }
        return events
    }

    private static func expected(_ range: ClosedRange<Int>) -> [ServerSentEvent] {
        range.map { ServerSentEvent(type: "tick", data: "{\"n\":\($0)}\nsecond line", id: "\($0)") }
    }

    @Test("events split over chunks and line ends of every kind; the sequence ends at the server's 204")
    func eventsInChunks() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            for eol in ["lf", "crlf", "cr", "mixed"] {
                let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/events/?multiline=1&n=4&chunk=7&bom=1&eol=\(eol)"))), session: session)
                let events = try await collect(cycle.events(reconnection: Self.quick))
                #expect(events == Self.expected(1...4), "eol \(eol)")
                #expect(cycle.request.value(forHTTPHeaderField: "Accept") == "text/event-stream")
                // The reconnection that got the 204 said where the stream was.
                #expect(cycle.request.value(forHTTPHeaderField: "Last-Event-ID") == "4")
            }
        }
    }

    @Test("a stream sent one byte at a time, every event split at every byte boundary, CRLFs included, gives the same events")
    func oneByteAtATime() async throws {
        try await withSandbox { sandbox in
            let url = try #require(URL(string: sandbox.string("/events/?multiline=1&n=2&bom=1&eol=mixed&drip_ms=0.2")))
            let events = try await collect(HTTPCycle(requestURL: url, session: makeSession()).events(reconnection: Self.quick))
            #expect(events == Self.expected(1...2))
        }
    }

    @Test("a stream that ends after every two events resumes from Last-Event-ID, waiting the server's retry")
    func reconnectsWithRetry() async throws {
        try await withSandbox { sandbox in
            let seenIDs = Locked([String]())
            sandbox.route("/seen-events/") { request in
                seenIDs.withLock { $0.append(request.headers["Last-Event-ID"] ?? "none") }
                return .error(404, "not used")
            }
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/events/?multiline=1&n=6&per=2&retry=150"))), session: makeSession())
            let started = Date()
            let events = try await collect(cycle.events(reconnection: Self.quick))
            let elapsed = Date().timeIntervalSince(started)
            #expect(events == Self.expected(1...6))
            // Three waits of the server's 150 ms (the client's own delay is 0): after the
            // connections that brought 1-2, 3-4 and 5-6, before the 204.
            #expect(elapsed >= 0.45, "reconnected after \(elapsed) s in all")
        }
    }

    @Test("a connection cut in the middle of an event: that event is dropped, and the stream resumes after the last whole one")
    func cutMidEvent() async throws {
        try await withSandbox { sandbox in
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/events/?multiline=1&n=5&per=2&drop=1"))), session: makeSession())
            let events = try await collect(cycle.events(reconnection: Self.quick))
            #expect(events == Self.expected(1...5))
            #expect(!events.contains { $0.data == "cut short" })
        }
    }

    @Test("reconnections that bring nothing give up after the limit with the last error; with none allowed the stream ends with its connection")
    func reconnectionLimit() async throws {
        try await withSandbox { sandbox in
            let connections = Locked(0)
            sandbox.route("/empty-events/") { _ in
                connections.withLock { $0 += 1 }
                return SandboxResponse(headers: ["Content-Type": "text/event-stream"], body: .text(": nothing\n"))
            }
            let session = makeSession()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/empty-events/"))), session: session)
            do {
                _ = try await collect(cycle.events(reconnection: HTTPCycle.EventStreamReconnection(maximumAttempts: 2, delay: 0.01)))
                Issue.record("the stream didn't fail")
            } catch let error as EventStreamError {
                #expect(error.code == .reconnectionFailed)
            }
            #expect(connections.withLock { $0 } == 3)

            let once = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/events/?multiline=1&n=2"))), session: session)
            #expect(try await collect(once.events(reconnection: .never)) == Self.expected(1...2))
        }
    }

    @Test("an error status throws without reconnecting; a body that isn't an event stream is refused")
    func refusals() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let missing = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/status/404"))), session: session)
            await #expect(throws: HTTPError.self) { try await collect(missing.events(reconnection: Self.quick)) }
            let text = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/hello/"))), session: session)
            do {
                _ = try await collect(text.events(reconnection: Self.quick))
                Issue.record("a text/plain body was taken for events")
            } catch let error as EventStreamError {
                #expect(error.code == .notAnEventStream)
                #expect(error.response?.statusCode == 200)
            }
        }
    }

    @Test("leaving the loop, or cancelling the task, mid-stream cancels the request")
    func cancelMidStream() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let url = try #require(URL(string: sandbox.string("/events/?multiline=1&n=50&drip_ms=1")))
            let cycle = HTTPCycle(requestURL: url, session: session)
            let first = try await collect(cycle.events(reconnection: Self.quick), limit: 1)
            #expect(first == Self.expected(1...1))
            #expect(await eventually { cycle.state == .cancelled || cycle.state == .finished })

            let second = HTTPCycle(requestURL: url, session: session)
            let (firstEvent, gotFirst) = AsyncStream<Void>.makeStream()
            let reading = Task {
                var count = 0
                for try await _ in second.events(reconnection: Self.quick) {
                    count += 1
                    if count == 1 { gotFirst.yield() }
                }
                return count
            }
            var arrivals = firstEvent.makeAsyncIterator()
            _ = await arrivals.next()
            reading.cancel()
            await #expect(throws: CancellationError.self) { try await reading.value }
            #expect(await eventually { second.state != .running })
        }
    }

    @Test("an EventStreamParser hands each event over as it arrives; its content is the count")
    func contentHandler() async throws {
        try await withSandbox { sandbox in
            let received = Locked([ServerSentEvent]())
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/events/?multiline=1&n=3&chunk=5"))), session: makeSession())
            cycle.contentHandler = EventStreamParser { event in received.withLock { $0.append(event) } }
            let response = try await cycle.start()
            #expect(received.withLock { $0 } == Self.expected(1...3))
            #expect(response.content as? Int == 3)
            // A body of another type is refused, with its bytes kept.
            let refused = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/hello/"))), session: makeSession())
            refused.contentHandler = EventStreamParser()
            await #expect(throws: ContentHandlerError.self) { try await refused.start() }
        }
    }

    @Test("NDJSON line by line: /stream/N, CRLF lines, a last line without its end, and the line limit")
    func lines() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let (_, bytes) = try await HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/stream/5"))), session: session).stream()
            var ids: [Int] = []
            for try await line in bytes.lines {
                ids.append(try #require(try JSON(data: Data(line.utf8))["id"]?.intValue))
            }
            #expect(ids == [0, 1, 2, 3, 4])

            sandbox.route("/crlf-lines/") { _ in
                var response = SandboxResponse(headers: ["Content-Type": "text/plain"], body: .text("one\r\ntwo\n\nthree"))
                response.transferEncoding = .chunked(chunkSize: 2)
                return response
            }
            let (_, mixed) = try await HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/crlf-lines/"))), session: session).stream()
            var lines: [String] = []
            for try await line in mixed.lines { lines.append(line) }
            #expect(lines == ["one", "two", "", "three"])

            let (_, long) = try await HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/stream/3"))), session: session).stream()
            await #expect(throws: HTTPCycle.LineTooLongError.self) {
                for try await _ in long.lines(maximumLength: 10) {}
            }
        }
    }
}
