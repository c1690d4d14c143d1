import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension FormTests {
    @Suite("HTTPFormProcessor")
    struct Processor {
        /// An empty POST request.
        static func post() throws -> HTTPRequest {
            HTTPRequest(url: try #require(URL(string: "http://example.com/form/")), method: .post)
        }

        /// A POST request carrying `object`, run through the processor.
        static func processed(_ object: (any Sendable)?) throws -> HTTPRequest {
            var request = try post()
            request.object = object
            try HTTPFormProcessor().processRequest(&request)
            return request
        }

        static func body(_ request: HTTPRequest) -> String? {
            request.data.map { String(decoding: $0, as: UTF8.self) }
        }

        @Test("A FormData object is sent in its order, with the Content-Type")
        func formDataObject() throws {
            let request = try Self.processed(["z": "last one", "a": "ü", "z": "again"] as FormData)
            #expect(Self.body(request) == "z=last+one&a=%C3%BC&z=again")
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        }

        @Test("A dictionary is sent with sorted keys; arrays repeat the key, nil leaves it out")
        func dictionaryObject() throws {
            let missing: String? = nil
            let object: [String: any Sendable] = [
                "q": "swift & more", "tags": ["b", "a"], "page": 2, "exact": true, "none": missing, "ratio": 0.5,
            ]
            let request = try Self.processed(object)
            #expect(Self.body(request) == "exact=true&page=2&q=swift+%26+more&ratio=0.5&tags=b&tags=a")
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
            let strings: [String: String] = ["b": "2", "a": "1"]
            #expect(Self.body(try Self.processed(strings)) == "a=1&b=2")
            #expect(Self.body(try Self.processed([String: String]())) == "")
        }

        @Test("Ordered pairs are sent in their order")
        func pairObjects() throws {
            let pairs: [(String, String)] = [("b", "1"), ("a", "2"), ("b", "3")]
            #expect(Self.body(try Self.processed(pairs)) == "b=1&a=2&b=3")
            let labeled: [(name: String, value: String)] = [(name: "x y", value: "+")]
            #expect(Self.body(try Self.processed(labeled)) == "x+y=%2B")
            let mixed: [(String, any Sendable)] = [("n", 1), ("flags", ["x", "y"]), ("s", "t")]
            #expect(Self.body(try Self.processed(mixed)) == "n=1&flags=x&flags=y&s=t")
            let keyValuePairs: KeyValuePairs<String, String> = ["b": "1", "a": "2", "b": "3"]
            #expect(Self.body(try Self.processed(keyValuePairs)) == "b=1&a=2&b=3")
            let mixedKeyValuePairs: KeyValuePairs<String, any Sendable> = ["z": 9, "a": false]
            #expect(Self.body(try Self.processed(mixedKeyValuePairs)) == "z=9&a=false")
        }

        @Test("The Content-Type replaces one already set")
        func contentTypeReplaced() throws {
            var request = try Self.post()
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            request.object = ["a": "b"] as FormData
            try HTTPFormProcessor().processRequest(&request)
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        }

        @Test("A nil object leaves the request alone")
        func nilObject() throws {
            var request = try Self.post()
            request.data = Data("kept".utf8)
            try HTTPFormProcessor().processRequest(&request)
            #expect(request.data == Data("kept".utf8))
            #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        }

        @Test("An unsupported object throws and leaves the request alone", arguments: [
            "a=b" as any Sendable, 42, Data("a=b".utf8), ["a", "b"], [1: "one"], JSON.object(["a": "b"]),
        ])
        func unsupportedObject(object: any Sendable) throws {
            var request = try Self.post()
            request.object = object
            let error = try #require(throws: HTTPProcessorError.self) {
                try HTTPFormProcessor().processRequest(&request)
            }
            #expect(error.processor == "HTTPFormProcessor")
            #expect(request.data == nil)
            #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        }

        @Test("The response body is parsed into a FormData")
        func response() throws {
            var response = HTTPResponse(data: Data("token=abc%2Fdef&scope=read+write&scope=admin&bad=%zz".utf8))
            try HTTPFormProcessor().processResponse(&response)
            let form = try #require(response.object as? FormData)
            #expect(form == ["token": "abc/def", "scope": "read write", "scope": "admin", "bad": "%zz"])
            #expect(response.data == Data("token=abc%2Fdef&scope=read+write&scope=admin&bad=%zz".utf8))

            var empty = HTTPResponse()
            try HTTPFormProcessor().processResponse(&empty)
            #expect((empty.object as? FormData)?.isEmpty == true)

            var invalid = HTTPResponse(data: Data([0x61, 0x3D, 0xFF]))
            try HTTPFormProcessor().processResponse(&invalid)
            #expect((invalid.object as? FormData)?["a"] == "\u{FFFD}")
        }
    }

    @Suite("HTTPFormProcessor against the sandbox", .onEveryTransport)
    struct EndToEnd {
        @Test("A form POST round-trips through /dumpupload/")
        func roundTrip() async throws {
            try await withSandbox { sandbox in
                let form: FormData = ["name": "Zoë O'Brien", "tags": "a&b", "tags": "c=d", "math": "1+1 = 2", "emoji": "👋"]
                let result = try await outcome {
                    try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: form,
                                       requestProcessors: [HTTPFormProcessor()], responseProcessors: [HTTPFormProcessor()],
                                       completionHandler: $0)
                }
                #expect(result.error == nil)
                #expect(result.response.statusCode == 200)
                #expect(result.response.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
                #expect(result.response.text == form.encoded)
                #expect(result.response.object as? FormData == form)
            }
        }

        @Test("A dictionary form arrives at /inspect/ with its Content-Type")
        func inspected() async throws {
            try await withSandbox { sandbox in
                let result = try await outcome {
                    try HTTPCycle.post(sandbox.string("/inspect/"), requestObject: ["b": "2 3", "a": ["x", "y"]] as [String: any Sendable],
                                       requestProcessors: [HTTPFormProcessor()], completionHandler: $0)
                }
                #expect(result.error == nil)
                let seen = try Inspection(result.response)
                #expect(seen.method == "POST")
                #expect(seen.values("content-type") == ["application/x-www-form-urlencoded"])
                #expect(seen.body == "a=x&a=y&b=2+3")
                #expect(seen.bodyLength == 13)
            }
        }

        @Test("An unsupported object ends the cycle before anything is sent")
        func unsupportedEndsCycle() async throws {
            try await withSandbox { sandbox in
                let before = sandbox.acceptedConnectionCount
                let result = try await outcome {
                    try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: 42,
                                       requestProcessors: [HTTPFormProcessor()], session: makeSession(), completionHandler: $0)
                }
                let error = try #require(result.error as? HTTPProcessorError)
                #expect(error.processor == "HTTPFormProcessor")
                #expect(result.response.statusCode == nil)
                #expect(sandbox.acceptedConnectionCount == before)
            }
        }
    }
}
