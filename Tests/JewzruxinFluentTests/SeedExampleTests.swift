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

/// Every code example of the Swallow README (seed 004), against the sandbox: `https://storelocator/`
/// and `http://httpbin.org` become the sandbox, `/get` and `/post` its `/inspect/` endpoint, which
/// answers with what it received.
@Suite("Swallow seed examples", .onEveryTransport)
struct SeedExampleTests {
    @Test("Usage: searchStores(zipCode:) then responseAsStoresModels gets the stores; no error")
    func usage() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let got = Mutex<[StoreModel]>([])
            let done = await waitForCall { done in
                makeService(sandbox)
                    .searchStores(zipCode: "15217")
                    .responseAsStoresModels { (stores: [StoreModel]) in
                        got.withLock { $0 = stores }
                        recorder.record("stores")
                        done()
                    }
                    .responseError { error in
                        recorder.record("error \(error)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["stores"])
            #expect(got.withLock { $0 } == storesIn15217)
        }
    }

    @Test("Sending HTTP requests: GET with parameters, then response gets the response and data")
    func sendingRequests() async throws {
        try await withSandbox { sandbox in
            let got = Mutex<(Int?, Data)?>(nil)
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response { (response: HTTPResponse, data: Data) in
                        got.withLock { $0 = (response.statusCode, data) }
                        done()
                    }
            }
            #expect(done)
            let (status, data) = try #require(got.withLock { $0 })
            #expect(status == 200)
            #expect(try JSONDecoder().decode([StoreModel].self, from: data) == storesIn15217)
        }
    }

    @Test("Sending HTTP requests: responseError is not called when the request succeeds")
    func errorHandlerNotCalledOnSuccess() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response { (response: HTTPResponse, data: Data) in recorder.record("response") }
                    .responseError { (error: any Error) in recorder.record("error") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(recorder.all == ["response"])
        }
    }

    @Test("Sending HTTP requests: after an error only responseError is called")
    func errorSkipsOtherHandlers() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/status/500")
                    .response { _, _ in recorder.record("response") }
                    .responseJSON { _ in recorder.record("json") }
                    .responseString { _ in recorder.record("string") }
                    .responseError { (error: any Error) in
                        recorder.record("error \((error as? HTTPError)?.statusCode ?? 0)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["error 500"])
        }
    }

    @Test("Response handlers: response, then responseJSON, in the order declared")
    func responseHandlersInOrder() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response { (response: HTTPResponse, data: Data) in
                        recorder.record("raw \(data.count > 0)")
                    }
                    .responseJSON { json in
                        recorder.record("json \(json[0]?["name"]?.stringValue ?? "?")")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["raw true", "json Squirrel Hill"])
        }
    }

    @Test("Extensions: GET then responseAsStoresModels, and responseError when the JSON isn't stores")
    func extensions() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let done = await waitForCall { done in
                service
                    .GET("/stores", parameters: ["zip": "15217"])
                    .responseAsStoresModels { (stores: [StoreModel]) in recorder.record("\(stores.count) stores") }
                    .responseError { error in recorder.record("error") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(recorder.all == ["2 stores"])

            // /inspect/ answers JSON that is no store list: the extension calls throwError.
            let failure = Mutex<(any Error)?>(nil)
            let failed = await waitForCall { done in
                service
                    .GET("/inspect/", parameters: ["zip": "15217"])
                    .responseAsStoresModels { _ in recorder.record("unexpected stores") }
                    .response { _, _ in recorder.record("unexpected response") }
                    .responseError { error in
                        failure.withLock { $0 = error }
                        done()
                    }
            }
            #expect(failed)
            #expect(failure.withLock { $0 } as? StoreError == .modelSerializationFailure)
            #expect(recorder.all == ["2 stores"])
        }
    }

    @Test("Extensions: fetchStores then responseStoreModels, and responseError { response, error in }")
    func extensionMethodsOnWebService() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let models = Mutex<[StoreModel]>([])
            let done = await waitForCall { done in
                service
                    .fetchStores(zipCode: "15217")
                    .responseStoreModels { stores in
                        models.withLock { $0 = stores }
                        done()
                    }
                    .responseError { response, error in done() }
            }
            #expect(done)
            #expect(models.withLock { $0 } == storesIn15217)

            // A malformed zip: the 400 arrives with its body, and the (response, error) handler gets both.
            let got = Mutex<(Int?, String?, Int?)?>(nil)
            let failed = await waitForCall { done in
                service
                    .fetchStores(zipCode: "bad")
                    .responseStoreModels { _ in done() }
                    .responseError { response, error in
                        got.withLock { $0 = (response?.statusCode, response?.text, (error as? HTTPError)?.statusCode) }
                        done()
                    }
            }
            #expect(failed)
            let (status, body, errorStatus) = try #require(got.withLock { $0 })
            #expect(status == 400)
            #expect(errorStatus == 400)
            #expect(body?.contains("invalidZipCode") == true)
        }
    }

    @Test("Sending parameters: GET puts them in the query, percent-encoded")
    func sendingGETParameters() async throws {
        try await withSandbox { sandbox in
            let parameters = ["foo": "bar", "percentEncoded": "this needs percent encoded"]
            let data = try await WebService(baseURLString: sandbox.baseURL.absoluteString, session: makeSession())
                .GET("/inspect/", parameters: parameters)
                .data()
            let received = try Inspection(data)
            #expect(received.method == "GET")
            #expect(received.target == "/inspect/?foo=bar&percentEncoded=this%20needs%20percent%20encoded")
            #expect(received.bodyLength == 0)
        }
    }

    @Test("Sending parameters: POST sends them as the body, percent-encoded (Content-Length 55)")
    func sendingPOSTParameters() async throws {
        try await withSandbox { sandbox in
            let parameters = ["foo": "bar", "percentEncoded": "this needs percent encoded"]
            let data = try await WebService(baseURLString: sandbox.baseURL.absoluteString, session: makeSession())
                .POST("/inspect/", parameters: parameters)
                .data()
            let received = try Inspection(data)
            #expect(received.method == "POST")
            #expect(received.target == "/inspect/")
            #expect(received.body == "foo=bar&percentEncoded=this%20needs%20percent%20encoded")
            #expect(received.bodyLength == 55)
            #expect(received.values("Content-Length") == ["55"])
            #expect(received.values("Content-Type") == ["application/x-www-form-urlencoded"])
        }
    }

    @Test("Sending parameters: POST with .parameterEncoding(.json) sends a JSON object (Content-Length 25)")
    func sendingJSONParameters() async throws {
        try await withSandbox { sandbox in
            let data = try await WebService(baseURLString: sandbox.baseURL.absoluteString, session: makeSession())
                .POST("/inspect/", parameters: ["foo": "bar", "number": 42], options: [.parameterEncoding(.json)])
                .data()
            let received = try Inspection(data)
            #expect(received.method == "POST")
            #expect(received.body == #"{"foo":"bar","number":42}"#)
            #expect(received.values("Content-Type") == ["application/json"])
            #expect(received.values("Content-Length") == ["25"])
        }
    }

    @Test("Options: JSON encoding, a custom header and the User-Agent")
    func options() async throws {
        try await withSandbox { sandbox in
            let data = try await WebService(baseURLString: sandbox.baseURL.absoluteString, session: makeSession())
                .POST("/inspect/",
                      parameters: ["foo": "bar", "number": 42],
                      options: [.parameterEncoding(.json),
                                .header("custom-header", "12345"),
                                .header(Request.Headers.userAgent, "my app ua")])
                .data()
            let received = try Inspection(data)
            #expect(received.body == #"{"foo":"bar","number":42}"#)
            #expect(received.values("Content-Type") == ["application/json"])
            #expect(received.values("custom-header") == ["12345"])
            #expect(received.values("User-Agent") == ["my app ua"])
        }
    }

    @Test("Error handling: GET /foo (a 404) calls responseError")
    func errorHandling() async throws {
        try await withSandbox { sandbox in
            let status = Mutex<Int?>(nil)
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/foo")
                    .responseError { error in
                        status.withLock { $0 = (error as? HTTPError)?.statusCode }
                        done()
                    }
            }
            #expect(done)
            #expect(status.withLock { $0 } == 404)
        }
    }

    @Test("Error handling: throwError from responseAsStoreModels reaches the error handler")
    func throwErrorFromCustomHandler() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                // Every store of the sandbox: valid models.
                makeService(sandbox)
                    .GET("/stores")
                    .responseAsStoreModels { models in recorder.record("\(models.count) models") }
                    .responseError { error in recorder.record("error") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(recorder.all == ["4 models"])

            let failed = await waitForCall { done in
                // The JSON parses, but isn't a list of stores.
                makeService(sandbox)
                    .GET("/inspect/")
                    .responseAsStoreModels { models in recorder.record("models") }
                    .responseError { error in
                        recorder.record("\(error as? StoreError == .modelSerializationFailure)")
                        done()
                    }
            }
            #expect(failed)
            #expect(recorder.all == ["4 models", "true"])
        }
    }

    @Test("Dispatch queues: response(queue) runs the handler on that (background) queue")
    func dispatchQueues() async throws {
        try await withSandbox { sandbox in
            let queue = makeNamedQueue("background", qos: .background)
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response(.queue(queue)) { (response: HTTPResponse, data: Data) in
                        recorder.record(currentQueueName())
                    }
                    .response { _, _ in
                        recorder.record(currentQueueName())
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["background", "delegate"])
        }
    }

    @Test("KillerRabbit: an extension picking the queue by name works like response(queue)")
    func killerRabbitStyleExtension() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .responseOnDispatchQueue(.background) { (response: HTTPResponse, data: Data) in
                        recorder.record(currentQueueName())
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["background"])
        }
    }
}

/// The queues of the seed's KillerRabbit extension.
enum QueueName: Sendable {
    case background

    static let backgroundQueue = makeNamedQueue("background", qos: .background)

    var queue: DispatchQueue {
        switch self {
        case .background: return Self.backgroundQueue
        }
    }
}

extension ServiceTask {
    /// The seed's `responseOnDispatchQueue(.Background)`, written over `response(queue)`.
    @discardableResult
    func responseOnDispatchQueue(
        _ name: QueueName, _ handler: @escaping @Sendable (HTTPResponse, Data) throws -> Void
    ) -> Self {
        response(.queue(name.queue), handler)
    }
}
