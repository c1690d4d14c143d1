import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

@Suite("Cycle lifecycle: cancel, restart, async", .onEveryTransport)
struct CycleLifecycleTests {
    @Test("cancel(explicitly: true) never calls the completion handler")
    func explicitCancel() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let cycle = try HTTPCycle.get(sandbox.string("/echo/?delay=30"), session: session) { _, _ in counter.record() }
            cycle.cancel(explicitly: true)
            // GIVEN the cancelled task has reported its end and the delegate queue is drained
            await session.drain()
            // THEN nothing was delivered
            #expect(counter.count == 0)
            #expect(cycle.state == .cancelled)
            #expect(cycle.explicitlyCanceling)
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("cancelling a finished or idle cycle does nothing")
    func cancelIdleOrFinished() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let idle = HTTPCycle(requestURL: sandbox.baseURL, session: session)
            idle.cancel(explicitly: false)
            #expect(idle.state == .idle)

            let finished = try await outcome { handler in
                try HTTPCycle.get(sandbox.string("/hello/"), session: session) { cycle, error in
                    counter.record()
                    handler(cycle, error)
                }
            }
            finished.cycle.cancel(explicitly: false)
            await session.drain()
            #expect(finished.cycle.state == .finished)
            #expect(counter.count == 1)
        }
    }

    @Test("Task cancellation cancels the cycle and throws CancellationError")
    func asyncTaskCancellation() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=30"))), session: session)
            let task = Task { try await cycle.start() }
            // Cancel as soon as the request is on its way.
            while cycle.state == .idle { await Task.yield() }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(cycle.state == .cancelled)
            await session.drain()
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("an explicit cancel from elsewhere ends an awaiting caller with CancellationError")
    func asyncExplicitCancel() async throws {
        try await withSandbox { sandbox in
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=30"))), session: makeSession())
            let task = Task { try await cycle.start() }
            while cycle.state == .idle { await Task.yield() }
            cycle.cancel(explicitly: true)
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test("an already cancelled task does not send the request")
    func asyncAlreadyCancelled() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=30"))), session: session)
            let (gate, opener) = AsyncStream<Void>.makeStream()
            let task = Task {
                for await _ in gate { break }
                return try await cycle.start()
            }
            task.cancel()
            opener.yield()
            opener.finish()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(cycle.state == .cancelled)
        }
    }

    @Test("async start returns the response; status errors keep it")
    func asyncStart() async throws {
        try await withSandbox { sandbox in
            let response = try await HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/hello/")))).start()
            #expect(response.text == "Hello World")

            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "async"])
            #expect(cycle.response.text == "async")

            do {
                try await HTTPCycle.get(sandbox.string("/echo/?code=503&content=busy"))
                Issue.record("a 503 succeeded")
            } catch let HTTPError.statusCodeSeemsToHaveErred(response) {
                #expect(response.statusCode == 503)
                #expect(response.text == "busy")
            }
        }
    }

    @Test("async start resumes from where the run ends: it needs no turn of the delegate queue", .timeLimit(.minutes(1)))
    func asyncStartSkipsTheDelegateQueue() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let url = try #require(URL(string: sandbox.string("/hello/")))
            session.delegateQueue.isSuspended = true
            defer { session.delegateQueue.isSuspended = false }
            let response = try await HTTPCycle(requestURL: url, session: session).start()
            #expect(response.text == "Hello World")
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "async"], session: session)
            #expect(cycle.response.text == "async")
        }
    }

    @Test("startInline: the completion runs where the run ends, with the delegate queue suspended; after a download, right after the download handler, on its queue")
    func inlineCompletion() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let url = try #require(URL(string: sandbox.string("/hello/")))
            session.delegateQueue.isSuspended = true
            let inline = await withHandover { (continuation: Handover<(String?, Bool, Bool), Never>) in
                HTTPCycle(requestURL: url, session: session).startInline { cycle, error in
                    continuation.resume(returning: (cycle.response.text, error == nil, OperationQueue.current === session.delegateQueue))
                }
            }
            #expect(inline.0 == "Hello World")
            #expect(inline.1)
            #expect(!inline.2)
            session.delegateQueue.isSuspended = false

            let order = Locked<[String]>([])
            let download = HTTPCycle(requestURL: url, session: session)
            download.configure { settings in
                settings.download = HTTPCycle.download { _, file in
                    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? "unreadable"
                    order.withLock { $0.append("download \(text) \(OperationQueue.current === session.delegateQueue)") }
                }
            }
            await withHandover { (continuation: Handover<Void, Never>) in
                download.startInline { _, error in
                    order.withLock { $0.append("completion \(error == nil) \(OperationQueue.current === session.delegateQueue)") }
                    continuation.resume()
                }
            }
            #expect(order.withLock { $0 } == ["download Hello World true", "completion true true"])
        }
    }

    @Test("restart after finish sends the request again and calls the same handler once more")
    func restartAfterFinish() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let cycle = try HTTPCycle.get(sandbox.string("/hello/"), session: session) { cycle, error in
                counter.record("\(cycle.response.text ?? "nil") \(error == nil)")
            }
            await session.drain()
            #expect(counter.labels == ["Hello World true"])
            #expect(cycle.state == .finished)
            let connectionsBefore = sandbox.acceptedConnectionCount

            cycle.restart()
            await session.drain()
            #expect(counter.labels == ["Hello World true", "Hello World true"])
            #expect(cycle.state == .finished)
            // The second run reused the kept-alive connection.
            #expect(sandbox.acceptedConnectionCount == connectionsBefore)
        }
    }

    @Test("restart while running: the first run is dropped silently, the handler runs once")
    func restartWhileRunning() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=0.3&content=slow"))), session: session)
            cycle.start { cycle, error in counter.record("\(cycle.response.text ?? "nil") \(error == nil)") }
            cycle.request.core.url = URL(string: sandbox.string("/echo/?content=fast"))
            cycle.restart()
            await session.drain()
            #expect(counter.labels == ["fast true"])
        }
    }

    @Test("start while running is refused with alreadyRunning; the running handler still runs once")
    func startWhileRunning() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=0.2&content=x"))), session: session)
            cycle.start { _, error in counter.record(error == nil ? "first ok" : "first \(error!)") }
            cycle.start { _, error in
                if case HTTPError.alreadyRunning? = error { counter.record("second refused") } else { counter.record("second \(String(describing: error))") }
            }
            await session.drain()
            #expect(counter.labels.sorted() == ["first ok", "second refused"])
        }
    }

    @Test("a cycle nobody keeps still completes")
    func unretainedCycleCompletes() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { handler in
                try HTTPCycle.get(sandbox.string("/echo/?delay=0.1&content=kept"), session: makeSession(), completionHandler: handler)
            }
            #expect(result.response.text == "kept")
        }
    }
}
