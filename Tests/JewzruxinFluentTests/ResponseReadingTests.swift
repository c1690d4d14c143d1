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

/// A `Decodable` that records, through its decoder's `userInfo`, the queue it is decoded on, and
/// may wait at a gate while it decodes.
private struct Probed<Value: Decodable & Sendable>: Decodable, Sendable {
    /// What a decoding reports to, and waits for.
    final class Probe: Sendable {
        let recorder = Recorder()
        /// Fired when a decoding starts.
        let started = Event()
        /// When set, a decoding waits for it to be signalled.
        let gate: DispatchSemaphore?

        init(gate: DispatchSemaphore? = nil) { self.gate = gate }

        /// A decoder that reports to this probe.
        func decoder() throws -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.userInfo[try #require(probeKey)] = self
            return decoder
        }
    }

    static var probeKey: CodingUserInfoKey? { CodingUserInfoKey(rawValue: "JewzruxinFluentTests.probe") }

    let value: Value

    init(from decoder: any Decoder) throws {
        let probe = Self.probeKey.flatMap { decoder.userInfo[$0] as? Probe }
        probe?.recorder.record("decode \(currentQueueName())")
        probe?.started.fire()
        probe?.gate?.wait()
        value = try Value(from: decoder)
    }
}

/// Where and when a response is read for its handlers: parsing and decoding off every handler queue
/// (a small body where the request ended, which the probe reports as `other`; a large one, or one
/// read after a handler, on the session's worker queue), the handlers' closures on their queues,
/// one handler at a time.
@Suite("Reading responses off the handler queue", .onEveryTransport)
struct ResponseReadingTests {
    @Test("a Decodable body and an API's error document are decoded off the handler queues; handlers run on theirs")
    func decodingOnWorkerQueue() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox, session: makeSession(workerQueue: makeWorkerQueue()))
            let probe = Probed<[StoreModel]>.Probe()
            let decoder = try probe.decoder()
            let q1 = makeNamedQueue("q1")
            let done = await waitForCall { done in
                service.searchStores(zipCode: "15217")
                    .responseJSON(Probed<[StoreModel]>.self, decoder: decoder) { stores in
                        probe.recorder.record("stores \(stores.value.count) \(currentQueueName())")
                    }
                    .responseJSON(.queue(q1), Probed<[StoreModel]>.self, decoder: decoder) { stores in
                        probe.recorder.record("stores \(stores.value.count) \(currentQueueName())")
                    }
                    .responseError { error in probe.recorder.record("error \(error)") }
                    .response { _, _ in done() }
            }
            #expect(done)
            let awaited = try await service.searchStores(zipCode: "15217").decode(Probed<[StoreModel]>.self, decoder: decoder)
            #expect(awaited.value == storesIn15217)
            // The first reading where the request ended; the second, moved on from a handler on the
            // delegate queue, on the worker queue; the awaited one where its request ended.
            #expect(probe.recorder.all == ["decode other", "stores 2 delegate", "decode worker", "stores 2 q1", "decode other"])

            let errorProbe = Probed<APIError>.Probe()
            let errorDecoder = try errorProbe.decoder()
            let failed = await waitForCall { done in
                service.searchStores(zipCode: "bad")
                    .responseJSON([StoreModel].self) { _ in errorProbe.recorder.record("unexpected stores") }
                    .responseError(Probed<APIError>.self, decoder: errorDecoder) { apiError in
                        errorProbe.recorder.record("\(apiError.value.code) \(currentQueueName())")
                    }
                    .responseError { _ in done() }
            }
            #expect(failed)
            // The typed error handler is added after the task started: where the response was in by
            // then, its reading runs on the worker queue rather than where the request ended.
            let errorRecords = errorProbe.recorder.all
            #expect(errorRecords.count == 2)
            #expect(["decode other", "decode worker"].contains(errorRecords.first ?? ""))
            #expect(errorRecords.last == "invalidZipCode delegate")
        }
    }

    @Test("on a main-queue session the body is decoded off the main queue and the handlers run on main", .usesMainQueue)
    func mainQueueSession() async throws {
        _ = markMainQueue
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, workerQueue: makeWorkerQueue(), transport: TransportUnderTest.current.transport)
            #expect(session.delegateQueue === OperationQueue.main)
            let probe = Probed<[StoreModel]>.Probe()
            let decoder = try probe.decoder()
            let done = await waitForCall { done in
                WebService(baseURLString: sandbox.baseURL.absoluteString, session: session)
                    .searchStores(zipCode: "15217")
                    .responseJSON(Probed<[StoreModel]>.self, decoder: decoder) { stores in
                        probe.recorder.record("stores \(stores.value.count) \(currentQueueName())")
                    }
                    .responseJSON { json in probe.recorder.record("json \(json.arrayValue?.count ?? 0) \(currentQueueName())") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(probe.recorder.all == ["decode other", "stores 2 main", "json 2 main"])
        }
    }

    @Test("the JSON value, text and Decodables are read on the worker queue: while it is suspended, the handler queue goes on without them",
          arguments: ["json", "string", "decodable", "json()"])
    func readingWaitsForTheWorkerQueue(reader: String) async throws {
        try await withSandbox { sandbox in
            let worker = makeWorkerQueue(serial: true)
            let session = makeSession(workerQueue: worker)
            let task = makeService(sandbox, session: session).searchStores(zipCode: "15217")
            // The response is in and the chain idle: what is added now runs from `add`.
            _ = try await task.data()

            // Held without blocking a thread: operations added now wait.
            worker.isSuspended = true
            let ran = Event()
            switch reader {
            case "json": task.responseJSON { _ in ran.fire() }
            case "string": task.responseString { _ in ran.fire() }
            case "decodable": task.responseJSON([StoreModel].self) { _ in ran.fire() }
            default: Task { if (try? await task.json()) != nil { ran.fire() } }
            }
            // Read on the delegate queue, the handler would be queued there before this marker.
            let ranBeforeMarker = await withHandover { (continuation: Handover<Bool, Never>) in
                session.delegateQueue.addOperation { continuation.resume(returning: ran.hasFired) }
            }
            #expect(!ranBeforeMarker)
            worker.isSuspended = false
            #expect(await ran.wait())
        }
    }

    @Test("the handler after a decoding waits for it and for the decoded value's handler, whatever its queue")
    func oneAtATimeAcrossTheWorkerQueue() async throws {
        try await withSandbox { sandbox in
            let gate = DispatchSemaphore(value: 0)
            let probe = Probed<[StoreModel]>.Probe(gate: gate)
            let decoder = try probe.decoder()
            let q1 = makeNamedQueue("q1")
            let finished = Event()
            makeService(sandbox, session: makeSession(workerQueue: makeWorkerQueue()))
                .searchStores(zipCode: "15217")
                .responseJSON(Probed<[StoreModel]>.self, decoder: decoder) { _ in probe.recorder.record("1 \(currentQueueName())") }
                .response(.queue(q1)) { _, _ in probe.recorder.record("2 \(currentQueueName())") }
                .responseError { _ in probe.recorder.record("error") }
                .response { _, _ in
                    probe.recorder.record("3 \(currentQueueName())")
                    finished.fire()
                }
            #expect(await probe.started.wait())
            // The decoding is held: nothing after it has run, on q1 or elsewhere.
            let seenOnQ1 = await withHandover { (continuation: Handover<[String], Never>) in
                q1.async { continuation.resume(returning: probe.recorder.all) }
            }
            #expect(seenOnQ1 == ["decode other"])
            gate.signal()
            #expect(await finished.wait())
            #expect(probe.recorder.all == ["decode other", "1 delegate", "2 q1", "3 delegate"])
        }
    }

    @Test("a body larger than the inline limit is read on the worker queue, as a Decodable, a JSON value or awaited")
    func largeBodyOnWorkerQueue() async throws {
        try await withSandbox { sandbox in
            let names = (0...(ServiceTask.inlineReadLimit / 10)).map { "store \($0)" }
            let body = try JSONEncoder().encode(names)
            #expect(body.count > ServiceTask.inlineReadLimit)
            sandbox.route("/many/") { _ in .json(body) }
            let service = makeService(sandbox, session: makeSession(workerQueue: makeWorkerQueue()))
            let probe = Probed<[String]>.Probe()
            let decoder = try probe.decoder()
            let done = await waitForCall { done in
                service.GET("/many/")
                    .responseJSON(Probed<[String]>.self, decoder: decoder) { got in
                        probe.recorder.record("names \(got.value == names) \(currentQueueName())")
                    }
                    .responseJSON { json in probe.recorder.record("json \(json.arrayValue?.count == names.count)") }
                    .response { _, _ in done() }
            }
            #expect(done)
            let awaited = try await service.GET("/many/").decode(Probed<[String]>.self, decoder: decoder)
            #expect(awaited.value == names)
            #expect(probe.recorder.all == ["decode worker", "names true delegate", "json true", "decode worker"])
        }
    }

    @Test("a decoding that fails fails the task: later success handlers are skipped, every handler runs once")
    func failingDecodeGoesToErrorHandlers() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let service = makeService(sandbox, session: makeSession(workerQueue: makeWorkerQueue()))
            let all = Event()
            let count = Mutex(0)
            let total = 8
            for index in 0..<total {
                service.GET("/hello/")
                    .responseJSON([StoreModel].self) { _ in recorder.record("unexpected stores") }
                    .responseJSON { _ in recorder.record("unexpected json") }
                    .responseError(APIError.self) { _ in recorder.record("unexpected api error") }
                    .responseError { error in
                        let code = (error as? ContentHandlerError)?.code
                        recorder.record("\(index) \(code == .unparsableContent) \((error as? ContentHandlerError)?.underlyingError is DecodingError)")
                    }
                    .response { _, _ in recorder.record("unexpected response") }
                    .responseError { _ in
                        if count.withLock({ $0 += 1; return $0 }) == total { all.fire() }
                    }
            }
            #expect(await all.wait())
            #expect(recorder.all.sorted() == (0..<total).map { "\($0) true true" }.sorted())
        }
    }
}
