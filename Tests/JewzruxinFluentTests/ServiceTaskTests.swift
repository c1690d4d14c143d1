import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Synchronization
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The chain of a ``ServiceTask`` against the sandbox: order, queues, errors, late handlers,
/// starting and cancelling.
@Suite("Service tasks", .onEveryTransport)
struct ServiceTaskTests {
    private struct Thrown: Error, Equatable {
        let name: String
    }

    @Test("handlers on different queues still run one after another, in declaration order")
    func orderAcrossQueues() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let (q1, q2) = (makeNamedQueue("q1"), makeNamedQueue("q2"))
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response(.queue(q1)) { _, _ in
                        // Slow on purpose: the next handler, on another queue, must wait for it.
                        Thread.sleep(forTimeInterval: 0.05)
                        recorder.record("1 \(currentQueueName())")
                    }
                    .responseJSON(.queue(q2)) { _ in recorder.record("2 \(currentQueueName())") }
                    .responseString { _ in recorder.record("3 \(currentQueueName())") }
                    .responseJSON(.queue(q1), [StoreModel].self) { stores in recorder.record("4 \(currentQueueName()) \(stores.count)") }
                    .response(.queue(q2)) { _, _ in
                        recorder.record("5 \(currentQueueName())")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["1 q1", "2 q2", "3 delegate", "4 q1 2", "5 q2"])
        }
    }

    @Test("error handlers run on their own queue too")
    func errorHandlerQueues() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let queue = makeNamedQueue("errors")
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/status/404")
                    .responseError(.queue(queue)) { (error: any Error) in recorder.record("1 \(currentQueueName())") }
                    .responseError { response, error in recorder.record("2 \(currentQueueName()) \(response?.statusCode ?? 0)") }
                    .responseError(.queue(queue)) { response, error in
                        recorder.record("3 \(currentQueueName())")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["1 errors", "2 delegate 404", "3 errors"])
        }
    }

    @Test("a success handler that throws skips the success handlers after it; error handlers get its error")
    func thrownErrorSkipsSuccessHandlers() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/hello/")
                    .responseString { text in
                        recorder.record(text)
                        throw Thrown(name: "bad text")
                    }
                    .response { _, _ in recorder.record("skipped response") }
                    .responseError { response, error in
                        recorder.record("\(response?.statusCode ?? 0) \((error as? Thrown)?.name ?? "?")")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["Hello World", "200 bad text"])
        }
    }

    @Test("throwError from a handler: the rest of the handler runs, later success handlers don't; the first error stands")
    func throwErrorFromHandler() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let task = makeService(sandbox).GET("/hello/")
            let done = await waitForCall { done in
                task
                    .response { _, _ in
                        task.throwError(Thrown(name: "first"))
                        task.throwError(Thrown(name: "second"))
                        recorder.record("after throwError")
                    }
                    .responseString { _ in recorder.record("skipped") }
                    .responseError { error in
                        recorder.record((error as? Thrown)?.name ?? "?")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["after throwError", "first"])
            await #expect(throws: Thrown(name: "first")) { try await task.data() }
        }
    }

    @Test("handlers added after the response arrived still run, in order")
    func lateHandlers() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let task = makeService(sandbox).GET("/stores", parameters: ["zip": "15217"])
            // The response has arrived and every handler so far has run.
            let data = try await task.data()
            #expect(task.cycle?.state == .finished)
            let done = await waitForCall { done in
                task
                    .response { _, late in recorder.record("response \(late == data)") }
                    .responseError { _ in recorder.record("error") }
                    .responseJSON([StoreModel].self) { stores in
                        recorder.record("stores \(stores == storesIn15217)")
                        done()
                    }
            }
            #expect(done)
            let more = await waitForCall { done in
                task.responseString { _ in
                    recorder.record("string")
                    done()
                }
            }
            #expect(more)
            #expect(recorder.all == ["response true", "stores true", "string"])
            #expect(sandbox.acceptedConnectionCount == 1)
        }
    }

    @Test("decodable success and the typed error body of /stores/?zip=bad")
    func decodableSuccessAndTypedError() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let done = await waitForCall { done in
                service.GET("/stores", parameters: ["zip": "15232"])
                    .responseJSON([StoreModel].self) { stores in recorder.record(stores.map(\.name).joined()) }
                    .responseError(APIError.self) { _ in recorder.record("unexpected api error") }
                    .response { _, _ in done() }
            }
            #expect(done)

            let apiError = Mutex<APIError?>(nil)
            let failed = await waitForCall { done in
                service.GET("/stores", parameters: ["zip": "bad"])
                    .responseJSON([StoreModel].self) { _ in recorder.record("unexpected stores") }
                    .responseError(APIError.self) { error in apiError.withLock { $0 = error } }
                    // A body that doesn't decode as the type: that handler is skipped.
                    .responseError([StoreModel].self) { _ in recorder.record("unexpected stores error") }
                    .responseError { _ in done() }
            }
            #expect(failed)
            #expect(recorder.all == ["Shadyside"])
            let error = try #require(apiError.withLock { $0 })
            #expect(error.code == "invalidZipCode")
            #expect(error.message == #"zip must be five digits, not "bad""#)
        }
    }

    @Test("the typed error handler is skipped when the error has no body (a thrown error)")
    func typedErrorNeedsABody() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox).GET("/stores", parameters: ["zip": "15217"])
                    .response { _, _ in throw Thrown(name: "x") }
                    .responseError(APIError.self) { _ in recorder.record("unexpected") }
                    .responseError { error in
                        recorder.record("\(error is Thrown)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["true"])
        }
    }

    @Test("a JSON handler on a body that isn't JSON fails the task with unparsableContent")
    func responseJSONOnText() async throws {
        try await withSandbox { sandbox in
            let code = Mutex<ContentHandlerError.Code?>(nil)
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/")
                    .responseJSON { _ in Issue.record("not JSON") }
                    .responseError { error in
                        code.withLock { $0 = (error as? ContentHandlerError)?.code }
                        done()
                    }
            }
            #expect(done)
            #expect(code.withLock { $0 } == .unparsableContent)
        }
    }

    @Test("a body that isn't JSON fails responseJSON and json() with the core's error: reason, decoding error and raw bytes")
    func malformedJSONErrorShape() async throws {
        try await withSandbox { sandbox in
            let raw = Data("Hello World".utf8)
            let got = Mutex<ContentHandlerError?>(nil)
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/")
                    .responseJSON { _ in Issue.record("not JSON") }
                    .responseError { error in
                        got.withLock { $0 = error as? ContentHandlerError }
                        done()
                    }
            }
            #expect(done)
            let handled = try #require(got.withLock { $0 })
            let awaited = await #expect(throws: ContentHandlerError.self) { try await makeService(sandbox).GET("/hello/").json() }
            for error in [handled, try #require(awaited)] {
                #expect(error.code == .unparsableContent)
                #expect(error.reason == JSON.invalidBodyReason)
                #expect(error.underlyingError is DecodingError)
                #expect(error.intermediateContent as? Data == raw)
                #expect(error.response?.data == raw)
                #expect(error.statusCode == 200)
            }
        }
    }

    @Test("a transport error: error handlers get it and no response")
    func transportError() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let base = closed.url("")
        let got = Mutex<(Bool, Bool)?>(nil)
        let done = await waitForCall { done in
            WebService(baseURLString: base, session: makeSession()).GET("/hello/")
                .response { _, _ in Issue.record("no server: no response") }
                .responseError { response, error in
                    var isTransport = false
                    if case HTTPError.transport = error { isTransport = true }
                    got.withLock { $0 = (response == nil, isTransport) }
                    done()
                }
        }
        #expect(done)
        #expect(got.withLock { $0 }.map { [$0.0, $0.1] } == [true, true])
    }

    @Test("a task with no handler sends its request on its own: POST alone")
    func startsWithoutHandlers() async throws {
        try await withSandbox { sandbox in
            let arrived = Event()
            let body = Mutex<String?>(nil)
            sandbox.route("/record/") { request in
                body.withLock { $0 = String(decoding: request.body, as: UTF8.self) }
                arrived.fire()
                return .text("ok")
            }
            makeService(sandbox).POST("/record/", parameters: ["foo": "bar"])
            #expect(await arrived.wait())
            #expect(body.withLock { $0 } == "foo=bar")
        }
    }

    @Test("the request is sent once, however many handlers and awaits there are")
    func sentOnce() async throws {
        try await withSandbox { sandbox in
            let count = Mutex(0)
            sandbox.route("/count/") { _ in
                .text("\(count.withLock { n in n += 1; return n })")
            }
            let task = makeService(sandbox).GET("/count/")
            task.response { _, _ in }.responseString { _ in }
            async let first = task.string()
            async let second = task.data()
            let (text, data) = try await (first, second)
            let again = try await task.string()
            #expect(text == "1")
            #expect(data == Data("1".utf8))
            #expect(again == "1")
            #expect(count.withLock { $0 } == 1)
        }
    }

    @Test("cancel() while the request is in flight: error handlers get HTTPError.cancelled, nothing else runs")
    func cancelInFlight() async throws {
        try await withSandbox { sandbox in
            let arrival = OnArrival()
            sandbox.route("/slow/") { _ in
                arrival.fire()
                var response = SandboxResponse.text("late")
                response.delay = 10  // ends when the sandbox stops
                return response
            }
            let session = makeSession()
            let recorder = Recorder()
            let task = makeService(sandbox, session: session).GET("/slow/")
            arrival.set { task.cancel() }
            let done = await waitForCall { done in
                task
                    .response { _, _ in recorder.record("response") }
                    .responseError { error in
                        if case HTTPError.cancelled = error { recorder.record("cancelled") } else { recorder.record("\(error)") }
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["cancelled"])
            #expect(task.cycle?.state == .cancelled)
        }
    }

    @Test("cancel() before the task starts: nothing is sent and error handlers get HTTPError.cancelled")
    func cancelBeforeStart() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/")
            task.cancel()
            let recorder = Recorder()
            let done = await waitForCall { done in
                task
                    .response { _, _ in recorder.record("response") }
                    .responseError { error in
                        if case HTTPError.cancelled = error { recorder.record("cancelled") }
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["cancelled"])
            #expect(task.cycle?.state == .idle)
            #expect(sandbox.acceptedConnectionCount == 0)
        }
    }

    @Test("without a queue, handlers run on the session's delegate queue: the main queue by default", .usesMainQueue)
    func mainQueueByDefault() async throws {
        _ = markMainQueue
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, transport: TransportUnderTest.current.transport)
            #expect(session.delegateQueue === OperationQueue.main)
            let recorder = Recorder()
            let other = makeNamedQueue("other")
            let done = await waitForCall { done in
                WebService(baseURLString: sandbox.baseURL.absoluteString, session: session)
                    .GET("/hello/")
                    .response { _, _ in recorder.record(currentQueueName()) }
                    .response(.queue(other)) { _, _ in recorder.record(currentQueueName()) }
                    .response(.main) { _, _ in recorder.record(currentQueueName()) }
                    .responseString { text in
                        recorder.record("\(currentQueueName()) \(text)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["main", "other", "main", "main Hello World"])
        }
    }
}
