import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The typed handlers that get the response beside the value — `responseJSON { json, response in }`,
/// `responseJSON(T.self) { value, response in }`, `responseString { text, response in }` — and
/// their async twins; the one-parameter forms still chosen for one-parameter closures.
@Suite("Typed handlers with the response", .onEveryTransport)
struct TypedResponseHandlerTests {
    /// The stores of 15217, with a header to read beside them.
    private func storesTask(_ service: WebService) -> ServiceTask {
        service.GET("/echo/", parameters: [
            "content": #"[{"name":"Squirrel Hill","zip":"15217","address":{"street":"5824 Forbes Ave","city":"Pittsburgh","zip":"15217"}}]"#,
            "header": ["Content-Type: application/json", "X-Total-Count: 41"],
        ])
    }

    @Test("responseJSON, responseJSON(T.self) and responseString with two parameters get the value and its response, on their queues")
    func valueAndResponse() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let q1 = makeNamedQueue("q1")
            let done = await waitForCall { done in
                storesTask(service)
                    .responseJSON { json, response in
                        recorder.record("json \(json["0.name"]?.stringValue ?? "-") \(response.statusCode ?? 0) \(currentQueueName())")
                    }
                    .responseJSON(.queue(q1)) { (json: JSON, response: HTTPResponse) in
                        recorder.record("json \(json.arrayValue?.count ?? 0) \(response.value(forHTTPHeaderField: "x-total-count") ?? "-") \(currentQueueName())")
                    }
                    .responseJSON([StoreModel].self) { stores, response in
                        recorder.record("stores \(stores.map(\.name)) \(response.value(forHTTPHeaderField: "X-Total-Count") ?? "-") \(currentQueueName())")
                    }
                    .responseJSON(.queue(q1), [StoreModel].self) { stores, response in
                        recorder.record("stores \(stores.count) \(response.data.count > 0) \(currentQueueName())")
                    }
                    .responseString { text, response in
                        recorder.record("text \(text.hasPrefix("[{")) \(response.value(forHTTPHeaderField: "Content-Type") ?? "-") \(currentQueueName())")
                    }
                    .responseError { error in recorder.record("error \(error)") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(recorder.all == [
                "json Squirrel Hill 200 delegate",
                "json 1 41 q1",
                #"stores ["Squirrel Hill"] 41 delegate"#,
                "stores 1 true q1",
                "text true application/json delegate",
            ])
        }
    }

    @Test("with the content a shortcut made (asJSON, asString), the two-parameter handlers get it and the response")
    func withContentShortcuts() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let jsonDone = await waitForCall { done in
                chain(on: service) { storesTask(service).asJSON() }
                    .responseJSON { json, response in
                        recorder.record("json \(response.content as? JSON == json) \(json["0.zip"]?.stringValue ?? "-")")
                        done()
                    }
            }
            let textDone = await waitForCall { done in
                chain(on: service) { service.GET("/hello/").asString() }
                    .responseString { text, response in
                        recorder.record("text \(response.content as? String == text) \(text)")
                        done()
                    }
            }
            #expect(jsonDone && textDone)
            #expect(recorder.all == ["json true 15217", "text true Hello World"])
        }
    }

    @Test("a body that doesn't decode skips the two-parameter handler and runs the error handlers")
    func undecodable() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/")
                    .responseJSON([StoreModel].self) { _, _ in recorder.record("stores") }
                    .responseJSON { _, _ in recorder.record("json") }
                    .responseError { response, error in
                        recorder.record("\((error as? ContentHandlerError)?.code.rawValue ?? "other") \(response?.text ?? "-")")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["unparsable content Hello World"])
        }
    }

    @Test("jsonWithResponse, stringWithResponse and decodeWithResponse return the value and its response")
    func asyncTwins() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let (json, jsonResponse) = try await storesTask(service).jsonWithResponse()
            #expect(json["0.address.city"]?.stringValue == "Pittsburgh")
            #expect(jsonResponse.value(forHTTPHeaderField: "X-Total-Count") == "41")

            let (text, textResponse) = try await service.GET("/hello/").stringWithResponse()
            #expect(text == "Hello World")
            #expect(textResponse.statusCode == 200)

            let decoded = try await service.searchStores(zipCode: "15217").decodeWithResponse([StoreModel].self)
            #expect(decoded.value == storesIn15217)
            #expect(decoded.response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)

            await #expect(throws: ContentHandlerError.self) { _ = try await service.GET("/hello/").decodeWithResponse([StoreModel].self) }
            await #expect(throws: HTTPError.self) { _ = try await service.GET("/status/404").jsonWithResponse() }
        }
    }

    @Test("one-parameter closures, named or $0, still get the value alone")
    func oneParameterForms() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let done = await waitForCall { done in
                service.searchStores(zipCode: "15217")
                    .responseJSON { json in recorder.record("json \(json.arrayValue?.count ?? 0)") }
                    .responseJSON { recorder.record("$0 \($0["1.name"]?.stringValue ?? "-")") }
                    .responseJSON([StoreModel].self) { stores in recorder.record("stores \(stores.map(\.name))") }
                    .responseJSON([StoreModel].self) { recorder.record("$0 \($0.count)") }
                    .responseString { text in recorder.record("text \(text.count > 2)") }
                    .responseString { recorder.record("$0 \($0.first.map(String.init) ?? "-")") }
                    .response { _, _ in done() }
            }
            #expect(done)
            #expect(recorder.all == [
                "json 2", "$0 Greenfield", #"stores ["Squirrel Hill", "Greenfield"]"#, "$0 2", "text true", "$0 [",
            ])
        }
    }
}
