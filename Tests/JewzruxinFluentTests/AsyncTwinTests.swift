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

/// The async twins of the handlers: `response()`, `data()`, `json()`, `string()`, `decode(_:)`.
@Suite("Async twins", .onEveryTransport)
struct AsyncTwinTests {
    @Test("response, data, json, string and decode return what the handlers get")
    func values() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let response = try await service.GET("/hello/").response()
            #expect(response.statusCode == 200)
            #expect(response.text == "Hello World")
            #expect(try await service.GET("/hello/").data() == Data("Hello World".utf8))
            #expect(try await service.GET("/hello/").string() == "Hello World")
            let json = try await service.searchStores(zipCode: "15217").json()
            #expect(json["0.name"]?.stringValue == "Squirrel Hill")
            #expect(try await service.searchStores(zipCode: "15217").decode([StoreModel].self) == storesIn15217)
            #expect(try await service.searchStores(zipCode: "00000").decode([StoreModel].self) == [])
        }
    }

    @Test("a failed request throws its error, with the response kept")
    func failure() async throws {
        try await withSandbox { sandbox in
            do {
                _ = try await makeService(sandbox).searchStores(zipCode: "1521").decode([StoreModel].self)
                Issue.record("a 400 must throw")
            } catch HTTPError.statusCodeSeemsToHaveErred(let response) {
                #expect(response.statusCode == 400)
                let apiError = try JSONDecoder().decode(APIError.self, from: response.data)
                #expect(apiError.code == "invalidZipCode")
            }
        }
    }

    @Test("a body that doesn't decode throws unparsableContent and fails the task for later handlers")
    func undecodable() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/")
            await #expect {
                try await task.decode([StoreModel].self)
            } throws: { error in
                (error as? ContentHandlerError)?.code == .unparsableContent
                    && (error as? ContentHandlerError)?.underlyingError is DecodingError
            }
            let recorder = Recorder()
            let done = await waitForCall { done in
                task.response { _, _ in recorder.record("response") }
                    .responseError { _ in
                        recorder.record("error")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["error"])
        }
    }

    @Test("cancelling the Swift task cancels the request: the await throws CancellationError, error handlers get HTTPError.cancelled")
    func taskCancellation() async throws {
        try await withSandbox { sandbox in
            let arrived = Event()
            let arrival = OnArrival()
            sandbox.route("/slow/") { _ in
                arrived.fire()
                arrival.fire()
                var response = SandboxResponse.text("late")
                // Ends when the sandbox stops. Long, because the cancelling Swift task may wait
                // seconds for a thread of the cooperative pool when many tests run at once.
                response.delay = 60
                return response
            }
            let recorder = Recorder()
            let handled = Event()
            let task = makeService(sandbox).GET("/slow/")
                .responseError { error in
                    if case HTTPError.cancelled = error { recorder.record("cancelled") }
                    handled.fire()
                }
            // Cancelled from the server's thread as the request arrives: not through a task of
            // the cooperative pool, which a loaded machine may delay past the answer.
            let waiting = Task { try await task.data() }
            arrival.set { waiting.cancel() }
            #expect(await arrived.wait())
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(await handled.wait())
            #expect(recorder.all == ["cancelled"])
            #expect(task.cycle?.state == .cancelled)
        }
    }

    @Test("an already cancelled Swift task sends nothing and throws CancellationError")
    func alreadyCancelled() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let made = Mutex<ServiceTask?>(nil)
            let waiting = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                let task = service.GET("/hello/")
                made.withLock { $0 = task }
                return try await task.string()
            }
            await #expect(throws: CancellationError.self) { try await waiting.value }
            // Cancelled before it could start, or — when the machine is so busy that the automatic
            // start (10 ms) came first — cancelled in flight; never run to its end.
            let state = made.withLock { $0?.cycle?.state }
            #expect(state == .idle || state == .cancelled)
        }
    }
}

@Suite("Fluent body streams and progress", .onEveryTransport)
struct FluentByteStreamTests {
    @Test("task.bytes gives the body complete and in order; task.stream() the head first")
    func bytes() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            var body = Data()
            for try await chunk in service.GET("/bytes/300000").bytes { body.append(chunk) }
            #expect(body == SandboxBody.expectedPattern(count: 300000))

            let task = service.GET("/bytes/1000")
            let progress = task.downloadProgress
            let (response, bytes) = try await task.stream()
            #expect(response.statusCode == 200)
            var count = 0
            for try await chunk in bytes { count += chunk.count }
            #expect(count == 1000)
            var last: TransferProgress?
            for await step in progress { last = step }
            #expect(last?.completedBytes == 1000)
        }
    }

    @Test("an error status throws from the first next(), with the body kept")
    func errorStatus() async throws {
        try await withSandbox { sandbox in
            do {
                for try await _ in makeService(sandbox).searchStores(zipCode: "1521").bytes {
                    Issue.record("an error status gives no byte")
                }
                Issue.record("a 400 must throw")
            } catch HTTPError.statusCodeSeemsToHaveErred(let response) {
                #expect(response.statusCode == 400)
                #expect(!response.data.isEmpty)
            }
        }
    }
}

/// An awaited task never waits for a main queue it wasn't asked to use.
@Suite("Async twins without the main queue", .onEveryTransport, .usesMainQueue)
struct AsyncTwinMainQueueTests {
    @Test("an awaited upload with a progress handler finishes while the main queue is blocked")
    func uploadWithProgress() async throws {
        try await withUploadWhileMainIsBlocked { upload, progress, blocker in
            let response = try await upload.response()
            #expect(blocker.isHolding, "the upload waited for the main queue")
            #expect(response.statusCode == 200)
            #expect(progress.value > 0)
        }
    }

    @Test("the bytes of an upload with a progress handler end while the main queue is blocked")
    func bytesOfUploadWithProgress() async throws {
        try await withUploadWhileMainIsBlocked { upload, progress, blocker in
            var total = 0
            for try await chunk in upload.bytes { total += chunk.count }
            #expect(blocker.isHolding, "the stream waited for the main queue")
            #expect(total > 0)
            #expect(progress.value > 0)
        }
    }

    /// Runs `body` with the task of a 200 kB multipart upload whose progress handler counts, on a
    /// session whose delegate queue is the main queue (as by default), while the main queue is held.
    private func withUploadWhileMainIsBlocked(_ body: (ServiceTask, Counter, MainQueueBlocker) async throws -> Void) async throws {
        try await withSandbox { sandbox in
            let session = TransportUnderTest.current.mainQueueSession()
            let service = WebService(baseURLString: sandbox.baseURL.absoluteString, session: session)
            var form = MultipartFormData()
            form.append(Data(repeating: 1, count: 200_000), name: "blob", filename: "blob.bin")
            let progress = Counter()
            let blocker = await MainQueueBlocker.block()
            defer { blocker.release() }
            let upload = service.upload(multipart: form, to: "/multipart/") { _, _, _, _ in progress.increment() }
            try await body(upload, progress, blocker)
        }
    }
}

/// A count made from any thread.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
