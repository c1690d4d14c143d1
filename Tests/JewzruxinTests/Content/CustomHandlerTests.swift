import Foundation
import Synchronization
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

/// A handler conforming to ``ContentHandler`` directly that logs every call made to it, checks
/// that no two overlap, and can be told to refuse or fail at each step.
final class RecordingHandler: ContentHandler {
    enum Event: Equatable, Sendable {
        case prepare(Int)
        case append(Int)
        case parse
        case cleanup
    }

    /// An error a step was told to throw.
    struct Planned: Error, Equatable {
        let step: String
    }

    /// What `parseContent()` does.
    enum ParseOutcome: Sendable {
        case count
        case fail
        case failKeeping(String)
    }

    private struct State {
        var events: [Event] = []
        var parseQueue: ObjectIdentifier?
    }

    /// Holds the first `parseContent()` until released, or until `limit` has passed.
    final class ParseGate: Sendable {
        let limit: TimeInterval
        private let semaphore = DispatchSemaphore(value: 0)
        private let used = Atomic<Bool>(false)

        init(limit: TimeInterval) { self.limit = limit }

        func holdFirst() {
            guard !used.exchange(true, ordering: .sequentiallyConsistent) else { return }
            _ = semaphore.wait(timeout: .now() + limit)
        }

        func release() { semaphore.signal() }
    }

    /// Only status 200 taken; others refused with `unacceptableStatus`.
    let refusesFailures: Bool
    let failsPrepare: Bool
    let failsAppend: Bool
    let parseOutcome: ParseOutcome
    /// Told of every event as it is logged.
    let observer: AsyncStream<Event>.Continuation?
    let gate: ParseGate?
    private let state = Mutex(State())
    private let busy = Atomic<Bool>(false)
    private let overlaps = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)

    init(
        refusesFailures: Bool = false, failsPrepare: Bool = false, failsAppend: Bool = false, parseOutcome: ParseOutcome = .count,
        observer: AsyncStream<Event>.Continuation? = nil, gate: ParseGate? = nil
    ) {
        self.refusesFailures = refusesFailures
        self.failsPrepare = failsPrepare
        self.failsAppend = failsAppend
        self.parseOutcome = parseOutcome
        self.observer = observer
        self.gate = gate
    }

    var events: [Event] { state.withLock { $0.events } }
    /// How many times a call began while another was in progress.
    var overlapCount: Int { overlaps.load(ordering: .sequentiallyConsistent) }
    /// The queue `parseContent()` last ran on.
    var parseQueue: ObjectIdentifier? { state.withLock { $0.parseQueue } }

    /// The log with each run of appends shown once: `["prepare 200", "append", "parse", "cleanup"]`.
    var summary: [String] {
        var summary: [String] = []
        for event in events {
            switch event {
            case .prepare(let status): summary.append("prepare \(status)")
            case .append: if summary.last != "append" { summary.append("append") }
            case .parse: summary.append("parse")
            case .cleanup: summary.append("cleanup")
            }
        }
        return summary
    }

    private func step<T>(_ event: Event, _ body: () throws -> T) rethrows -> T {
        if busy.exchange(true, ordering: .sequentiallyConsistent) { overlaps.add(1, ordering: .sequentiallyConsistent) }
        defer { busy.store(false, ordering: .sequentiallyConsistent) }
        state.withLock { $0.events.append(event) }
        observer?.yield(event)
        return try body()
    }

    func prepare(for response: HTTPResponse) throws {
        let status = response.statusCode ?? 0
        try step(.prepare(status)) {
            bytes.store(0, ordering: .sequentiallyConsistent)
            if failsPrepare { throw Planned(step: "prepare") }
            if refusesFailures, status != 200 {
                throw ContentHandlerError(.unacceptableStatus, reason: "no \(status)", response: response)
            }
        }
    }

    func append(_ data: Data) throws {
        try step(.append(data.count)) {
            bytes.add(data.count, ordering: .sequentiallyConsistent)
            if failsAppend { throw Planned(step: "append") }
        }
    }

    func parseContent() throws -> (any Sendable)? {
        try step(.parse) {
            state.withLock { $0.parseQueue = OperationQueue.current.map(ObjectIdentifier.init) }
            gate?.holdFirst()
            switch parseOutcome {
            case .count: return bytes.load(ordering: .sequentiallyConsistent)
            case .fail: throw Planned(step: "parse")
            case .failKeeping(let kept):
                throw ContentHandlerError(.unparsableContent, reason: "half done", intermediateContent: kept)
            }
        }
    }

    func cleanup() {
        step(.cleanup) {}
    }
}

extension ContentHandlingTests {
    /// The ContentHandler protocol's promises (seed 003: "Implementing your own response content handler").
    @Suite("Custom handlers and the call order")
    struct CustomHandlerTests {
        @Test("a success: prepare, the appends in order, parse on the worker queue, cleanup; the content is what parse returned")
        func success() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = RecordingHandler()
                let result = try await fetchContent(sandbox.string("/bytes/100000?chunked=1&chunk=1000"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(handler.summary == ["prepare 200", "append", "parse", "cleanup"])
                let appended = handler.events.reduce(0) { if case .append(let n) = $1 { $0 + n } else { $0 } }
                #expect(appended == 100_000)
                #expect(result.response.content as? Int == 100_000)
                #expect(result.response.data.isEmpty, "only an Accumulator's bytes become the data")
                #expect(handler.parseQueue == ObjectIdentifier(session.workerQueue))
                await settle(session)
                #expect(handler.overlapCount == 0)
            }
        }

        @Test("failures: prepare, the appends that came, cleanup; never parse", arguments: [
            ("/drop/?after=50000", false, ["prepare 200", "append", "cleanup"]),
            ("/status/404", false, ["prepare 404", "append", "cleanup"]),
            ("/status/404", true, ["prepare 404", "cleanup"]),
            ("/echo/?code=204", true, ["prepare 204", "cleanup"]),
            ("/echo/?code=299&content=x", true, ["prepare 299", "cleanup"]),
        ])
        func failures(path: String, refuses: Bool, expected: [String]) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                session.retryPolicy.maximumRetryCount = 0
                let handler = RecordingHandler(refusesFailures: refuses)
                let result = try await fetchContent(sandbox.string(path), handler: handler, session: session)
                #expect(result.error != nil)
                if path.hasPrefix("/echo/") {
                    let error = try #require(contentError(result, .unacceptableStatus))
                    #expect(error.reason.hasPrefix("no "))
                    #expect(error.response?.data == Data((path.contains("content=x") ? "x" : "").utf8))
                }
                #expect(handler.summary == expected)
                await settle(session)
                #expect(handler.summary == expected)
                #expect(handler.overlapCount == 0)
            }
        }

        @Test("an error thrown by prepare stops the transfer before any append, and is the cycle's error")
        func prepareThrows() async throws {
            try await withSandbox { sandbox in
                let producer = ProducedBytes()
                let size: Int64 = 256 << 20
                sandbox.route("/big/") { _ in SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: producer.body(count: size)) }
                let session = makeSession()
                let handler = RecordingHandler(failsPrepare: true)
                let result = try await fetchContent(sandbox.string("/big/"), handler: handler, session: session)
                #expect(result.error as? RecordingHandler.Planned == RecordingHandler.Planned(step: "prepare"))
                #expect(handler.summary == ["prepare 200", "cleanup"])
                await settle(session)
                #expect(producer.count < size / 4)
            }
        }

        @Test("an error thrown by append stops the transfer at once; cleanup follows, parse never")
        func appendThrows() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = RecordingHandler(failsAppend: true)
                let result = try await fetchContent(sandbox.string("/bytes/1000000?chunked=1&chunk=1000"), handler: handler, session: session)
                #expect(result.error as? RecordingHandler.Planned == RecordingHandler.Planned(step: "append"))
                #expect(handler.events.count == 3)
                #expect(handler.summary == ["prepare 200", "append", "cleanup"])
                await settle(session)
                #expect(handler.events.count == 3)
            }
        }

        @Test("parse failing: the error is the cycle's, and what the conversion obtained is the content")
        func parseThrows() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let plain = RecordingHandler(parseOutcome: .fail)
                let failed = try await fetchContent(sandbox.string("/hello/"), handler: plain, session: session)
                #expect(failed.error as? RecordingHandler.Planned == RecordingHandler.Planned(step: "parse"))
                #expect(failed.response.content == nil)
                #expect(plain.summary == ["prepare 200", "append", "parse", "cleanup"])

                let keeping = RecordingHandler(parseOutcome: .failKeeping("half"))
                let halfway = try await fetchContent(sandbox.string("/hello/"), handler: keeping, session: session)
                let error = try #require(contentError(halfway, .unparsableContent))
                #expect(error.intermediateContent as? String == "half")
                #expect(halfway.response.content as? String == "half")
                #expect(keeping.summary == ["prepare 200", "append", "parse", "cleanup"])
                await settle(session)
            }
        }

        @Test("a cancel mid-transfer cleans the handler up; nothing reaches it afterwards")
        func cancelMidTransfer() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = RecordingHandler()
                let result = try await fetchContent(sandbox.string("/drip/?n=200&interval=0.01"), handler: handler, session: session) {
                    $0.didWriteDataHandler = { cycle, _, _, _ in cycle.cancel(explicitly: false) }
                }
                guard case HTTPError.cancelled? = result.error else {
                    Issue.record("expected a cancel, got \(String(describing: result.error))")
                    return
                }
                #expect(handler.summary == ["prepare 200", "append", "cleanup"])
                await settle(session)
                #expect(handler.summary == ["prepare 200", "append", "cleanup"])
                #expect(handler.overlapCount == 0)
            }
        }

        @Test("a handler that cancels its own cycle from append: the cycle ends cancelled, the handler is cleaned up once")
        func cancelFromAppend() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = SelfCancellingHandler()
                let result = try await fetchContent(sandbox.string("/drip/?n=50&interval=0.01"), handler: handler, session: session) {
                    handler.cycle.withLock { [cycle = $0] in $0 = cycle }
                }
                guard case HTTPError.cancelled? = result.error else {
                    Issue.record("expected a cancel, got \(String(describing: result.error))")
                    return
                }
                await settle(session)
                #expect(handler.calls.withLock { $0 } == ["prepare", "append", "cleanup"])
            }
        }

        /// Checks a log of two responses: the first one's ends in cleanup without parse, the second
        /// one's is a full success; parse exactly once.
        static func expectReset(_ handler: RecordingHandler, first status: Int, refuses: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
            let summary = handler.summary
            let firstPart = refuses ? ["prepare \(status)", "cleanup"] : ["prepare \(status)", "append", "cleanup"]
            let accepted = refuses ? [firstPart] : [firstPart, ["prepare \(status)", "cleanup"]]
            let matches = accepted.contains { summary == $0 + ["prepare 200", "append", "parse", "cleanup"] }
            #expect(matches, "\(summary)", sourceLocation: sourceLocation)
            #expect(handler.events.filter { $0 == .parse }.count == 1, sourceLocation: sourceLocation)
            #expect(handler.overlapCount == 0, sourceLocation: sourceLocation)
        }

        @Test("a 401 answered by BasicAuthentication: the handler is cleaned up, then prepared afresh", arguments: [true, false])
        func authenticationResets(refuses: Bool) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = RecordingHandler(refusesFailures: refuses)
                let result = try await fetchContent(sandbox.string("/hello_with_basic_auth/"), handler: handler, session: session) {
                    $0.authentications = [BasicAuthentication(username: "test", password: "12345")]
                }
                #expect(result.error == nil)
                #expect(result.response.statusCode == 200)
                #expect(result.response.content as? Int == "Hello World".utf8.count)
                Self.expectReset(handler, first: 401, refuses: refuses)
                await settle(session)
            }
        }

        @Test("a 307 redirect: the handler is cleaned up, then prepared for the target", arguments: [true, false])
        func redirectResets(refuses: Bool) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = RecordingHandler(refusesFailures: refuses)
                let result = try await fetchContent(sandbox.string("/redirect/?code=307&to=/hello/"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(result.response.url?.absoluteString == sandbox.string("/hello/"))
                #expect(result.response.content as? Int == "Hello World".utf8.count)
                Self.expectReset(handler, first: 307, refuses: refuses)
                await settle(session)
            }
        }

        @Test("retries: each failed try is cleaned up, only the last response is parsed")
        func retriesReset() async throws {
            try await withSandbox { sandbox in
                let session = makeRetrySession(delay: 0.01)
                let handler = RecordingHandler(refusesFailures: true)
                let result = try await fetchContent(sandbox.string("/flaky/?key=recording&fail=2"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(result.cycle.retriedCount == 2)
                #expect(handler.summary == ["prepare 503", "cleanup", "prepare 503", "cleanup", "prepare 200", "append", "parse", "cleanup"])
                #expect(result.response.content as? Int == "ok after 2 failures".utf8.count)
                await settle(session)
                #expect(handler.overlapCount == 0)
            }
        }

        @Test("a restart while the content is being parsed: the old response is cleaned up before the new one is prepared")
        func restartDuringParse() async throws {
            try await restartDuringParseBody()
        }

        func restartDuringParseBody() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let (events, observer) = AsyncStream<RecordingHandler.Event>.makeStream()
                let gate = RecordingHandler.ParseGate(limit: 1)
                let handler = RecordingHandler(observer: observer, gate: gate)
                let (ends, finished) = AsyncStream<(any Error)?>.makeStream()
                let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/hello/")), session: session)
                cycle.contentHandler = handler
                cycle.start { _, error in finished.yield(error) }

                var iterator = events.makeAsyncIterator()
                while let event = await iterator.next(), event != .parse {}
                // The first parse is held. In a sound engine nothing reaches the handler until it
                // returns (after the gate's limit): the next event is its cleanup.
                cycle.restart()
                let next = await iterator.next()
                gate.release()
                var endings = ends.makeAsyncIterator()
                let error = await endings.next()
                #expect(error.map { $0 == nil } == true)
                await settle(session)
                #expect(next == .cleanup, "after the held parse came \(String(describing: next))")
                #expect(handler.overlapCount == 0)
                #expect(handler.summary == ["prepare 200", "append", "parse", "cleanup", "prepare 200", "append", "parse", "cleanup"])
                #expect(cycle.response.content as? Int == "Hello World".utf8.count)
            }
        }

        @Test("the library's handlers reset the same way: an Accumulator behind a 401 and a 307 holds the final body only")
        func accumulatorResets() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = Accumulator(acceptableResponses: [])
                let auth = try await fetchContent(sandbox.string("/hello_with_basic_auth/"), handler: handler, session: session) {
                    $0.authentications = [BasicAuthentication(username: "test", password: "12345")]
                }
                #expect(auth.response.content as? Data == Data("Hello World".utf8))
                let redirect = try await fetchContent(sandbox.string("/redirect/?code=307&to=/bytes/300"), handler: handler, session: session)
                #expect(redirect.response.content as? Data == SandboxBody.expectedPattern(count: 300))
                #expect(redirect.response.data == SandboxBody.expectedPattern(count: 300))
                await settle(session)
            }
        }
    }
}

/// A handler that cancels its cycle from its first ``append(_:)``, as one that has seen enough might:
/// the feed must not be locked around the call, or the cancel's cleanup waits for itself.
final class SelfCancellingHandler: ContentHandler {
    let cycle = Locked<HTTPCycle?>(nil)
    let calls = Locked<[String]>([])

    func prepare(for response: HTTPResponse) throws {
        calls.withLock { $0.append("prepare") }
    }

    func append(_ data: Data) throws {
        calls.withLock { $0.append("append") }
        // Released before the cancel: the cycle's completion may release it meanwhile.
        let cycle = self.cycle.withLock { cycle in defer { cycle = nil }; return cycle }
        cycle?.cancel(explicitly: false)
    }

    func parseContent() throws -> (any Sendable)? { nil }

    func cleanup() {
        calls.withLock { $0.append("cleanup") }
    }

    var receivedData: Data? { nil }
}
