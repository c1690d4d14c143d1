import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A processor that records the queue it runs on and adds a header.
final class QueueRecordingProcessor: HTTPProcessor, @unchecked Sendable {
    let queues = Mutex<[String]>([])

    override func processRequest(_ request: inout HTTPRequest) throws {
        queues.withLock { $0.append(OperationQueue.current?.name ?? "none") }
        request.setValue("yes", forHTTPHeaderField: "X-Processed")
    }

    override func processResponse(_ response: inout HTTPResponse) throws {
        queues.withLock { $0.append(OperationQueue.current?.name ?? "none") }
    }
}

@Suite("Sessions, queues, timeouts and activity", .onEveryTransport)
struct SessionFeatureTests {
    @Test("Timeout (seed): 1 s timeouts against a 2 s delay end in timedOut", .usesMainQueue)
    func seedTimeout() async throws {
        try await withSandbox { sandbox in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 1
            configuration.timeoutIntervalForResource = 1
            let session = HTTPSession(configuration: configuration, transport: TransportUnderTest.current.transport)
            session.retryPolicy.maximumRetryCount = 0
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo?delay=2"))), session: session)
            let result = try await outcome { handler in
                cycle.start(handler)
                return cycle
            }
            // The idle timeout and the deadline both pass after 1 s: either ends the cycle.
            #expect((result.error as? HTTPError)?.isTimeout == true, "expected a timeout, got \(String(describing: result.error))")
        }
    }

    @Test("the overall deadline fires although bytes keep arriving within the idle timeout (L10)")
    func deadline() async throws {
        try await withSandbox { sandbox in
            let session = makeSession { $0.timeoutIntervalForRequest = 5 }
            let counter = CallCounter()
            let result = try await outcome { handler in
                // 100 bytes 0.1 s apart: without the deadline the transfer would succeed after 10 s.
                let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/drip/?n=100&interval=0.1"))), session: session)
                cycle.timeoutIntervalForResource = 0.5
                cycle.start { cycle, error in
                    counter.record()
                    handler(cycle, error)
                }
                return cycle
            }
            guard case HTTPError.deadlineExceeded(let interval)? = result.error else {
                Issue.record("expected the deadline, got \(String(describing: result.error))")
                return
            }
            #expect(interval == 0.5)
            #expect(result.response.data.count < 100)
            await session.drain()
            #expect(counter.count == 1)
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("the deadline covers retry waits too")
    func deadlineDuringRetries() async throws {
        try await withSandbox { sandbox in
            let configuration = URLSessionConfiguration.ephemeral
            // Long enough for the first attempt to reach the server on a loaded machine (3 s once
            // wasn't, beside the whole suite in a slow spell), far shorter than the wait before the
            // second.
            configuration.timeoutIntervalForResource = 8
            let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: TransportUnderTest.current.transport)
            session.retryPolicy = RetryPolicy(maximumRetryCount: 100, retryDelay: 60)
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/flaky/?key=dl&fail=100"), session: session, completionHandler: $0) }
            guard case HTTPError.deadlineExceeded(let interval)? = result.error else {
                Issue.record("expected the deadline, got \(String(describing: result.error))")
                return
            }
            #expect(interval == 8)
            #expect(sandbox.requestCount(forFlakyKey: "dl") == 1)
        }
    }

    @Test("processors run on the worker queue, off the delegate queue, for data, upload and download cycles")
    func processorsOffDelegateQueue() async throws {
        try await withSandbox { sandbox in
            let worker = OperationQueue()
            worker.name = "test.worker"
            let delegate = OperationQueue()
            delegate.name = "test.delegate"
            delegate.maxConcurrentOperationCount = 1
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: delegate, workerQueue: worker, transport: TransportUnderTest.current.transport)
            let processor = QueueRecordingProcessor()
            session.requestProcessors = [processor]
            session.responseProcessors = [processor]

            let data = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            #expect(try Inspection(data.response).values("X-Processed") == ["yes"])
            let upload = try await HTTPCycle.upload(sandbox.string("/inspect/"), source: .data(Data("u".utf8)), session: session)
            #expect(try Inspection(upload.response).values("X-Processed") == ["yes"])
            let downloaded = Mutex<Data?>(nil)
            try await HTTPCycle.download(sandbox.string("/inspect/"), session: session) { _, location in
                downloaded.withLock { $0 = try? Data(contentsOf: location) }
            }
            let inspected = try JSONDecoder().decode(Inspection.self, from: try #require(downloaded.withLock { $0 }))
            #expect(inspected.values("X-Processed") == ["yes"])
            // 3 request processings and 2 response processings (downloads keep no body to process).
            #expect(processor.queues.withLock { $0 } == Array(repeating: "test.worker", count: 5))
        }
    }

    @Test("HTTPSession: the default session and a session backing a cycle's properties", .usesMainQueue)
    func sessions() async throws {
        try await withSandbox { sandbox in
            #expect(HTTPSession.default === HTTPSession.default)
            #expect(HTTPSession.default.delegateQueue === OperationQueue.main)
            let session = HTTPSession()
            #expect(session.delegateQueue === OperationQueue.main)
            #expect(session.workerQueue !== OperationQueue.main)
            let auth = HTTPBasicAuthProcessor(username: "u", password: "p")
            session.requestProcessors = [auth]
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))), session: session)
            #expect(cycle.requestProcessors == nil)
            try await cycle.start()
            #expect(try Inspection(cycle.response).values("Authorization") == ["Basic dTpw"])
        }
    }

    @Test("Resend: a cycle refused for want of a token is restarted once the token is there")
    func resend() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/needs-token/") { request in
                request.headers["X-Token"] == "secret" ? .text("welcome") : .text("no token", status: 403)
            }
            let session = makeSession()
            let counter = CallCounter()
            let cycle = try HTTPCycle.get(sandbox.string("/needs-token/"), session: session) { cycle, error in
                counter.record(error == nil ? cycle.response.text ?? "" : "\(cycle.response.statusCode ?? 0)")
            }
            await session.drain()
            cycle.request.setValue("secret", forHTTPHeaderField: "X-Token")
            cycle.restart()
            await session.drain()
            #expect(counter.labels == ["403", "welcome"])
        }
    }
}

@Suite("Network activity", .serialized)
struct NetworkActivityTests {
    @Test("the counter goes back to 0 after 500 mixed cycles and never below")
    func mixedCycles() async throws {
        try await withSandbox { sandbox in
            let indicator = NetworkActivityIndicator()
            let negative = CallCounter()
            indicator.observer = { count in if count < 0 { negative.record() } }
            let session = makeRetrySession(count: 1)
            session.networkActivityIndicator = indicator
            let (completions, completed) = AsyncStream<Void>.makeStream()
            var cycles: [HTTPCycle] = []
            for index in 0..<500 {
                let path: String
                switch index % 5 {
                case 0: path = "/hello/"
                case 1: path = "/echo/?code=404"
                case 2: path = "/drop/?after=10"
                case 3: path = "/flaky/?key=activity\(index)&fail=1"
                default: path = "/echo/?delay=5"
                }
                cycles.append(try HTTPCycle.get(sandbox.string(path), session: session) { _, _ in completed.yield() })
            }
            #expect(indicator.count > 0)
            // Every fifth cycle is cancelled, half of them explicitly (no completion for those).
            var explicit = 0
            for (index, cycle) in cycles.enumerated() where index % 5 == 4 {
                cycle.cancel(explicitly: index % 2 == 0)
                if index % 2 == 0 { explicit += 1 }
            }
            var received = 0
            for await _ in completions {
                received += 1
                if received == cycles.count - explicit { break }
            }
            #expect(indicator.count == 0)
            #expect(!indicator.isActive)
            #expect(negative.count == 0)
            #expect(cycles.allSatisfy { $0.state == .finished || $0.state == .cancelled })
        }
    }

    @Test("the observer sees every change, in order")
    func observerOrder() async {
        let indicator = NetworkActivityIndicator()
        let (values, sink) = AsyncStream<Int>.makeStream()
        indicator.observer = { sink.yield($0) }
        indicator.increase()
        indicator.increase()
        indicator.decrease()
        indicator.decrease()
        indicator.decrease()
        var seen: [Int] = []
        for await value in values {
            seen.append(value)
            if seen.count == 4 { break }
        }
        #expect(seen == [1, 2, 1, 0])
    }

    @Test("decrease never goes below zero; sessions can opt out (seed: networkActivityIndicator = nil)")
    func optOutAndFloor() async throws {
        let indicator = NetworkActivityIndicator()
        indicator.decrease()
        #expect(indicator.count == 0)
        indicator.increase()
        indicator.increase()
        indicator.decrease()
        #expect(indicator.count == 1)
        try await withSandbox { sandbox in
            let session = makeSession()
            #expect(session.networkActivityIndicator === NetworkActivityIndicator.shared)
            let watched = NetworkActivityIndicator()
            let changes = CallCounter()
            watched.observer = { _ in changes.record() }
            session.networkActivityIndicator = watched
            session.networkActivityIndicator = nil
            _ = try await HTTPCycle.get(sandbox.string("/echo/?delay=0.1"), session: session)
            #expect(watched.count == 0)
            #expect(changes.count == 0)
        }
    }
}
