import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Synchronization
import Testing
import JewzruxinTestSupport

/// Where and when a ``ServiceTask`` runs its handlers and starts: handlers in a row on the same
/// queue, handlers added from the delegate queue, and the start of tasks nobody adds a handler to.
@Suite("Service task scheduling", .onEveryTransport)
struct ServiceTaskSchedulingTests {
    @Test("handlers in a row on the same queue run in declaration order, each on its queue")
    func sameQueueInARow() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let q1 = makeNamedQueue("q1")
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response { _, _ in recorder.record("1 \(currentQueueName())") }
                    .responseJSON { _ in recorder.record("2 \(currentQueueName())") }
                    .response(.queue(q1)) { _, _ in recorder.record("3 \(currentQueueName())") }
                    .responseString(.queue(q1)) { _ in recorder.record("4 \(currentQueueName())") }
                    .responseError { _ in recorder.record("never") }
                    .response { _, _ in
                        recorder.record("5 \(currentQueueName())")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["1 delegate", "2 delegate", "3 q1", "4 q1", "5 delegate"])
        }
    }

    @Test("a handler added from the delegate queue once the chain is idle runs after add returns, not inside it")
    func lateHandlerNeverInline() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let task = makeService(sandbox, session: session).GET("/stores", parameters: ["zip": "15217"])
            let answered = await waitForCall { done in task.response { _, _ in done() } }
            #expect(answered)
            let recorder = Recorder()
            let done = await waitForCall { done in
                session.delegateQueue.addOperation {
                    task.response { _, _ in
                        recorder.record("handler \(currentQueueName())")
                        done()
                    }
                    recorder.record("add returned")
                }
            }
            #expect(done)
            #expect(recorder.all == ["add returned", "handler delegate"])
        }
    }

    @Test("tasks made and released with no handler each send their request")
    func manyStartOnTheirOwn() async throws {
        try await withSandbox { sandbox in
            let total = 12
            // Locked, not Mutex: the sandbox's threads append at once, and TSan doesn't see
            // Mutex's futex wait, so it would report the appends as a race.
            let arrivals = Locked(0)
            let all = Event()
            sandbox.route("/record/") { _ in
                if arrivals.withLock({ $0 += 1; return $0 }) == total { all.fire() }
                return .text("ok")
            }
            let service = makeService(sandbox)
            for index in 0..<total { service.POST("/record/", parameters: ["n": index]) }
            #expect(await all.wait())
            #expect(arrivals.withLock { $0 } == total)
        }
    }

    @Test("a task kept with no handler waits for one, however long the chain takes to write; resume() starts it without")
    func keptTaskWaitsForItsChain() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let task = service.GET("/image/png", parameters: ["width": 3, "height": 2])
            // However slow the thread writing the chain, nothing has gone yet: the shortcut applies.
            await Task.yield()
            #expect(task.cycle?.state == .idle)
            let image = try await task.asImage().image()
            #expect(image.width == 3)

            let arrived = recordArrival(on: sandbox)
            let kept = service.POST("/record/", parameters: ["n": 1])
            #expect(kept.cycle?.state == .idle)
            kept.resume()
            #expect(await arrived.wait())
            let recorder = Recorder()
            let done = await waitForCall { done in
                kept.response { _, data in
                    recorder.record(String(decoding: data, as: UTF8.self))
                    done()
                }
            }
            #expect(done)
            #expect(recorder.all == ["ok"])
        }
    }

    @Test("a task cancelled before it starts never sends its request, released or not")
    func cancelledBeforeAutomaticStart() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/")
            task.cancel()
            try await Task.sleep(for: .milliseconds(60))
            #expect(task.cycle?.state == .idle)
            #expect(sandbox.acceptedConnectionCount == 0)
        }
    }

    @Test("a task released with no handler on a suspended handler queue sends its request: it needs nothing from that queue")
    func releasedNeedsNoHandlerQueue() async throws {
        try await withSandbox { sandbox in
            let arrived = recordArrival(on: sandbox)
            let session = makeSession()
            session.delegateQueue.isSuspended = true
            defer { session.delegateQueue.isSuspended = false }
            makeService(sandbox, session: session).POST("/record/", parameters: ["n": 1])
            #expect(await arrived.wait())
        }
    }

    @Test("a task of a main-queue session with no handler starts on its own too", .usesMainQueue)
    func unattendedOnMainQueueSession() async throws {
        try await withSandbox { sandbox in
            let arrived = Event()
            let arrival = Locked<ContinuousClock.Instant?>(nil)
            sandbox.route("/record/") { _ in
                arrival.withLock { $0 = .now }
                arrived.fire()
                return .text("ok")
            }
            let session = HTTPSession(configuration: .ephemeral, transport: TransportUnderTest.current.transport)
            #expect(session.delegateQueue === OperationQueue.main)
            WebService(baseURLString: sandbox.baseURL.absoluteString, session: session).POST("/record/", parameters: ["n": 1])
            #expect(await arrived.wait())
            #expect(arrival.withLock { $0 } != nil)
        }
    }

    @Test("a handler starts its task at once, with the handler queue suspended: starting needs nothing from that queue")
    func handlerStartsWithoutTheHandlerQueue() async throws {
        try await withSandbox { sandbox in
            let arrived = recordArrival(on: sandbox)
            let session = makeSession()
            session.delegateQueue.isSuspended = true
            let handled = Event()
            makeService(sandbox, session: session).GET("/record/").response { _, _ in handled.fire() }
            #expect(await arrived.wait())
            #expect(!handled.hasFired)
            session.delegateQueue.isSuspended = false
            #expect(await handled.wait())
        }
    }

    @Test("a GET without options gets its URL, query and method, like one with options")
    func requestWithoutOptions() throws {
        let service = WebService(baseURLString: "https://storelocator.example/api/")
        let plain = service.GET("/stores", parameters: ["zip": "15217"])
        let withOption = service.GET("/stores", parameters: ["zip": "15217"], options: [.timeout(30)])
        plain.cancel()
        withOption.cancel()
        let request = try #require(plain.cycle?.request)
        #expect(request.url?.absoluteString == "https://storelocator.example/api/stores?zip=15217")
        #expect(request.url == withOption.cycle?.request.url)
        #expect(request.method == .get)
        #expect(request.data == nil)
        let delete = service.DELETE("/stores/1")
        delete.cancel()
        #expect(delete.cycle?.request.method == .delete)
        let invalid = service.GET("http://")
        #expect(invalid.cycle == nil)
    }
}

/// Routes `/record/` on `sandbox` to an `ok` that fires the returned event when a request arrives.
private func recordArrival(on sandbox: Sandbox) -> Event {
    let arrived = Event()
    sandbox.route("/record/") { _ in
        arrived.fire()
        return .text("ok")
    }
    return arrived
}
