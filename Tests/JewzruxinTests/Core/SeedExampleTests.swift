import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The code examples of the Jewzruxin README (seed 002, "Making requests" to "Handle response") and
/// the matching ones of the Cycles docs (seeds 001 and 000), against the sandbox.
@Suite("Seed examples")
struct SeedExampleTests {
    @Test("Making requests: get returns Hello World")
    func makingRequests() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/hello/"), completionHandler: $0) }
            #expect(result.error == nil)
            #expect(result.response.text == "Hello World")
        }
    }

    @Test("Making requests: an invalid URL throws at once and never calls the handler")
    func invalidURLThrows() {
        let counter = CallCounter()
        #expect(throws: HTTPError.self) {
            try HTTPCycle.get("") { _, _ in counter.record() }
        }
        for bad in ["", "   ", "not a url", "ftp://example.com/file", "http://", "mailto:someone@example.com"] {
            do {
                try HTTPCycle.get(bad) { _, _ in counter.record() }
                Issue.record("\"\(bad)\" was accepted")
            } catch let HTTPError.invalidURL(given, reason) {
                #expect(given == bad)
                #expect(!reason.isEmpty)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(counter.count == 0)
    }

    @Test("Making requests: post, put, delete and head send their method", arguments: [
        HTTPMethod.post, .put, .delete, .head, .patch, .get,
    ])
    func otherMethods(method: HTTPMethod) async throws {
        try await withSandbox { sandbox in
            let url = sandbox.string("/inspect/")
            let result = try await outcome { handler in
                switch method {
                case .post: try HTTPCycle.post(url, completionHandler: handler)
                case .put: try HTTPCycle.put(url, completionHandler: handler)
                case .delete: try HTTPCycle.delete(url, completionHandler: handler)
                case .head: try HTTPCycle.head(url, completionHandler: handler)
                case .patch: try HTTPCycle.patch(url, completionHandler: handler)
                default: try HTTPCycle.get(url, completionHandler: handler)
                }
            }
            #expect(result.error == nil)
            #expect(result.response.statusCode == 200)
            #expect(result.cycle.request.method == method)
            if method == .head {
                #expect(result.response.data.isEmpty)
            } else {
                #expect(try Inspection(result.response).method == method.rawValue)
            }
        }
    }

    @Test("Start a HTTPCycle through two separate steps")
    func twoSteps() async throws {
        try await withSandbox { sandbox in
            let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("hello/"))
            #expect(cycle.state == .idle)
            let result = try await outcome { handler in
                cycle.start(handler)
                return cycle
            }
            #expect(result.error == nil)
            #expect(result.cycle === cycle)
            #expect(cycle.response.text == "Hello World")
            #expect(cycle.state == .finished)
        }
    }

    @Test("Custom headers reach the server")
    func customHeaders() async throws {
        try await withSandbox { sandbox in
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))))
            cycle.request.core.setValue("Jewzruxin/0.1.0", forHTTPHeaderField: "User-Agent")
            try await cycle.start()
            let seen = try Inspection(cycle.response)
            #expect(seen.values("user-agent") == ["Jewzruxin/0.1.0"])
        }
    }

    @Test("Cancelling implicitly: the handler gets a cancellation error")
    func cancellingImplicitly() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { handler in
                let cycle = try HTTPCycle.get(sandbox.string("/echo/?delay=5"), completionHandler: handler)
                cycle.cancel(explicitly: false)
                return cycle
            }
            guard case HTTPError.cancelled? = result.error else {
                Issue.record("expected HTTPError.cancelled, got \(String(describing: result.error))")
                return
            }
            #expect(result.cycle.state == .cancelled)
            #expect(result.cycle.explicitlyCanceling == false)
        }
    }

    @Test("Adding query parameters to URL")
    func queryParameters() async throws {
        try await withSandbox { sandbox in
            let single = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "dummy"], completionHandler: $0)
            }
            #expect(single.response.text == "dummy")
            #expect(single.cycle.request.url?.query == "content=dummy")

            let many = try await outcome {
                try HTTPCycle.get(sandbox.string("/inspect/"), parameters: ["content": ["dummy", 71] as [any Sendable]], completionHandler: $0)
            }
            #expect(try Inspection(many.response).query == "content=dummy&content=71")

            // Cycles README: several values for one key.
            let repeated = try await outcome {
                try HTTPCycle.get(sandbox.string("/inspect/"), parameters: ["key1": ["value1", "value1a"]], completionHandler: $0)
            }
            #expect(try Inspection(repeated.response).query == "key1=value1&key1=value1a")
        }
    }

    @Test("stringByMergingQueryParameters, today mergingQueryParameters")
    func mergingQueryParameters() {
        let echo = "http://127.0.0.1:8000/echo/"
        #expect(echo.mergingQueryParameters(["content": "dummy"]) == echo + "?content=dummy")
        #expect("/hello/?key2=value2".mergingQueryParameters(["key1": "value1"]) == "/hello/?key1=value1&key2=value2")
        #expect("http://httpbin.org/get".mergingQueryParameters(["key1": ["value1"]]) == "http://httpbin.org/get?key1=value1")
        #expect("http://httpbin.org/get?key2=value2".mergingQueryParameters(["key1": ["value1"]])
            == "http://httpbin.org/get?key1=value1&key2=value2")
    }

    @Test("POST raw data with HTTPDataProcessor, and by setting request.data")
    func postRawData() async throws {
        try await withSandbox { sandbox in
            let viaProcessor = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: Data("Hello World".utf8),
                                   requestProcessors: [HTTPDataProcessor()], completionHandler: $0)
            }
            #expect(viaProcessor.error == nil)
            #expect(viaProcessor.response.text == "Hello World")

            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/dumpupload/"))), requestMethod: "POST")
            cycle.request.data = Data("Hello World".utf8)
            let manual = try await outcome { handler in
                cycle.start(handler)
                return cycle
            }
            #expect(manual.error == nil)
            #expect(manual.response.text == "Hello World")
        }
    }

    @Test("Send JSON request: the body is JSON and Content-Type application/json")
    func sendJSON() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: ["key1": "value1"],
                                   requestProcessors: [HTTPJSONProcessor()], completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.text == #"{"key1":"value1"}"#)
            #expect(result.cycle.request.value(forHTTPHeaderField: "content-type") == "application/json")
            #expect(result.response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        }
    }

    @Test("Handle response: status code, text, case-insensitive headers")
    func handleResponse() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/hello/"), completionHandler: $0) }
            #expect(result.response.statusCode == 200)
            #expect(result.response.text == "Hello World")
            let contentType = result.response.value(forHTTPHeaderField: "Content-Type")
            #expect(contentType?.hasPrefix("text/plain") == true)
            #expect(result.response.value(forHTTPHeaderField: "cOnTEnt-Type") == contentType)
            #expect(result.response.value(forHTTPHeaderField: "content-type") == contentType)
            #expect(result.response.headers.contains { $0.key.lowercased() == "content-type" && $0.value == contentType })
        }
    }

    @Test("JSON response: the JSON processor makes response.object")
    func jsonResponse() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: ["k1": "v1", "k2": 9, "k3": [17, "v3"]] as JSON,
                                   requestProcessors: [HTTPJSONProcessor()], responseProcessors: [HTTPJSONProcessor()],
                                   completionHandler: $0)
            }
            #expect(result.error == nil)
            let object = try #require(result.response.object as? JSON)
            #expect(object == ["k3": [17, "v3"], "k2": 9, "k1": "v1"])
            #expect(object["k3"]?[0]?.intValue == 17)
            #expect(object.value(atKeyPath: "k3.1")?.stringValue == "v3")
            #expect(result.response.text == #"{"k1":"v1","k2":9,"k3":[17,"v3"]}"#)
        }
    }

    @Test("Error originates from HTTP status: 404 is an error, the response stays readable")
    func statusError() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?code=404&content=missing"), completionHandler: $0) }
            guard case HTTPError.statusCodeSeemsToHaveErred(let response)? = result.error else {
                Issue.record("expected a status error, got \(String(describing: result.error))")
                return
            }
            #expect(response.statusCode == 404)
            #expect(response.text == "missing")
            #expect(result.response.statusCode == 404)
            #expect(result.response.text == "missing")
        }
    }
}
