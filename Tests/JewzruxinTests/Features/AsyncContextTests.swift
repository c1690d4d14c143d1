import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value a caller sets around a request, as a trace id or a `ServiceContext` would be.
enum TraceID {
    @TaskLocal static var current: String?
}

/// Records the task-local trace id each interceptor call sees.
final class TraceRecorder: HTTPInterceptor {
    private let seen = Mutex<[String]>([])

    var adapted: [String] { seen.withLock { $0.filter { $0.hasPrefix("adapt:") } } }
    var decided: [String] { seen.withLock { $0.filter { $0.hasPrefix("retry:") } } }

    func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        seen.withLock { $0.append("adapt:" + (TraceID.current ?? "nil")) }
        return request
    }

    func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision {
        seen.withLock { $0.append("retry:" + (TraceID.current ?? "nil")) }
        return .doNotRetry
    }
}

/// `async` calls never wait for the main queue unless asked, and keep the caller's task-locals.
@Suite("Async calls and their context", .onEveryTransport, .usesMainQueue)
struct AsyncContextTests {
    /// A session on the transport under test whose delegate queue is the main queue (the default).
    private func mainQueueSession() -> HTTPSession { TransportUnderTest.current.mainQueueSession() }

    @Test("an async download with a progress handler finishes while the main queue is blocked")
    func downloadWithoutMain() async throws {
        try await withSandbox { sandbox in
            let progress = CallCounter()
            let files = CallCounter()
            let blocker = await MainQueueBlocker.block()
            defer { blocker.release() }
            let cycle = try await HTTPCycle.download(
                sandbox.string("/bytes/200000"), session: mainQueueSession(),
                didWriteDataHandler: { _, _, _, _ in progress.record() },
                downloadFileHandler: { _, _ in files.record() })
            #expect(blocker.isHolding, "the download waited for the main queue")
            #expect(cycle.response.statusCode == 200)
            #expect(progress.count > 0)
            #expect(files.count == 1)
        }
    }

    @Test("an async upload with a progress handler finishes while the main queue is blocked")
    func uploadWithoutMain() async throws {
        try await withSandbox { sandbox in
            let progress = CallCounter()
            let blocker = await MainQueueBlocker.block()
            defer { blocker.release() }
            let cycle = try await HTTPCycle.upload(
                sandbox.string("/echo/"), source: .data(Data(repeating: 7, count: 100_000)), session: mainQueueSession(),
                didSendBodyDataHandler: { _, _, _, _ in progress.record() })
            #expect(blocker.isHolding, "the upload waited for the main queue")
            #expect(cycle.response.statusCode == 200)
            #expect(progress.count > 0)
        }
    }

    @Test("the stream of an upload with a progress handler ends while the main queue is blocked")
    func streamWithoutMain() async throws {
        try await withSandbox { sandbox in
            let progress = CallCounter()
            let blocker = await MainQueueBlocker.block()
            defer { blocker.release() }
            let cycle = HTTPCycle(
                requestURL: try #require(URL(string: sandbox.string("/dumpupload/"))), requestMethod: .post, session: mainQueueSession())
            cycle.uploadSource = .data(Data(repeating: 7, count: 100_000))
            cycle.didSendBodyDataHandler = { _, _, _, _ in progress.record() }
            let (response, bytes) = try await cycle.stream()
            var total = 0
            for try await chunk in bytes { total += chunk.count }
            #expect(blocker.isHolding, "the stream waited for the main queue")
            #expect(response.statusCode == 200)
            #expect(total == 100_000, "the body echoed whole")
            #expect(progress.count > 0)
        }
    }

    @Test("handlers asked to run on main still do, and the task waits for them")
    func mainWhenAsked() async throws {
        try await withSandbox { sandbox in
            // The main queue's blocks may run on a thread other than the process's first on Linux:
            // the queue is told by a value set on it.
            let key = DispatchSpecificKey<String>()
            DispatchQueue.main.setSpecific(key: key, value: "main")
            let onMain = Mutex<[Bool]>([])
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/bytes/100000"))), session: mainQueueSession())
            cycle.handlerQueue = .main
            cycle.didWriteDataHandler = { _, _, _, _ in onMain.withLock { $0.append(DispatchQueue.getSpecific(key: key) == "main") } }
            try await cycle.start()
            let calls = onMain.withLock { $0 }
            #expect(!calls.isEmpty)
            #expect(calls.allSatisfy { $0 })
        }
    }

    @Test("a task-local value reaches the interceptors of every attempt, retries included")
    func taskLocalsSurviveRetries() async throws {
        try await withSandbox { sandbox in
            let recorder = TraceRecorder()
            let session = makeRetrySession(count: 2)
            session.interceptors = [recorder]
            let cycle = try await TraceID.$current.withValue("trace-1") {
                try await HTTPCycle.get(sandbox.string("/flaky/?key=tl&fail=2"), session: session)
            }
            #expect(cycle.response.statusCode == 200)
            #expect(recorder.adapted == ["adapt:trace-1", "adapt:trace-1", "adapt:trace-1"])
            #expect(recorder.decided == ["retry:trace-1", "retry:trace-1"])
        }
    }

    @Test("and so through a callback start made inside a task")
    func taskLocalsThroughCallbacks() async throws {
        try await withSandbox { sandbox in
            let recorder = TraceRecorder()
            let session = makeRetrySession(count: 1)
            let result = try await TraceID.$current.withValue("trace-2") {
                try await outcome { handler in
                    let cycle = HTTPCycle(requestURL: URL(string: sandbox.string("/flaky/?key=cb&fail=1"))!, session: session)
                    cycle.interceptors = [recorder]
                    cycle.start(handler)
                    return cycle
                }
            }
            #expect(result.error == nil)
            #expect(recorder.adapted == ["adapt:trace-2", "adapt:trace-2"])
        }
    }
}
