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

/// How a ``WebService`` turns a path, parameters and options into the request the server gets.
@Suite("Request encoding", .onEveryTransport)
struct RequestEncodingTests {
    @Test("paths join the base URL with one slash, keep their query; absolute URLs are used as they are", arguments: [
        ("http://host", "/stores", "http://host/stores"),
        ("http://host/", "/stores", "http://host/stores"),
        ("http://host/", "stores", "http://host/stores"),
        ("http://host", "stores", "http://host/stores"),
        ("http://host/api//", "//stores/", "http://host/api/stores/"),
        ("http://host/api", "/stores?zip=15217", "http://host/api/stores?zip=15217"),
        ("http://host/stores/", "?zip=15217", "http://host/stores/?zip=15217"),
        ("http://host/api/", "", "http://host/api/"),
        ("http://host/api", "https://other.example/x?y=1", "https://other.example/x?y=1"),
        ("http://host", "HTTP://Other.example", "HTTP://Other.example"),
    ])
    func joining(base: String, path: String, expected: String) {
        #expect(WebService(baseURLString: base).absoluteURLString(path) == expected)
    }

    @Test("paths join the base URL by HTTPService's rule: an empty base leaves the path as it is", arguments: [
        ("", "stores", "stores"),
        ("", "/stores", "/stores"),
        ("http://host/api", "#top", "http://host/api#top"),
        ("http://host", "/a://b", "http://host/a://b"),
    ])
    func joiningLikeHTTPService(base: String, path: String, expected: String) {
        #expect(WebService(baseURLString: base).absoluteURLString(path) == expected)
        #expect(URLJoining.join(base, path) == expected)
    }

    @Test("GET and HEAD merge their parameters with the path's query, keys sorted",
          arguments: [HTTPMethod.get, .head])
    func queryMethods(method: HTTPMethod) async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).request(
                method, "/inspect/?b=path", parameters: ["c": "x y", "a": ["1", "2"], "flag": true])
            let response = try await task.response()
            let target = "/inspect/?a=1&a=2&b=path&c=x%20y&flag=true"
            #expect(task.cycle?.request.url?.absoluteString == sandbox.baseURL.absoluteString + target)
            #expect(response.statusCode == 200)
            if method != .head {
                let received = try Inspection(response.data)
                #expect(received.method == method.rawValue)
                #expect(received.target == target)
                #expect(received.bodyLength == 0)
                #expect(received.values("Content-Type").isEmpty)
            }
        }
    }

    @Test("PUT, PATCH and DELETE send their parameters as the body, like POST (seed 004: all but GET and HEAD)",
          arguments: [HTTPMethod.put, .patch, .delete, "PROPPATCH"])
    func bodyMethods(method: HTTPMethod) async throws {
        try await withSandbox { sandbox in
            let data = try await makeService(sandbox)
                .request(method, "/inspect/?q=1", parameters: ["name": "café & co", "n": 1.5])
                .data()
            let received = try Inspection(data)
            #expect(received.method == method.rawValue)
            #expect(received.target == "/inspect/?q=1")
            #expect(received.body == "n=1.5&name=caf%C3%A9%20%26%20co")
            #expect(received.values("Content-Type") == ["application/x-www-form-urlencoded"])
        }
    }

    @Test(".parameterEncoding(.query) puts the parameters in the query for any method, with no body",
          arguments: [HTTPMethod.delete, .post, .put, .patch, "PROPPATCH", .get])
    func queryEncoding(method: HTTPMethod) async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).request(
                method, "/inspect/?b=path", parameters: ["c": "x y", "a": ["1", "2"], "flag": true],
                options: [.parameterEncoding(.query)])
            let received = try Inspection(try await task.data())
            #expect(received.method == method.rawValue)
            #expect(received.target == "/inspect/?a=1&a=2&b=path&c=x%20y&flag=true")
            #expect(received.bodyLength == 0)
            #expect(received.values("Content-Type").isEmpty)
        }
    }

    @Test("a DELETE's parameters follow the encoding: a form body by default, JSON, or the query", arguments: [
        (nil, "/inspect/", "n=1&name=a%20b", "application/x-www-form-urlencoded"),
        (Request.ParameterEncoding.percent, "/inspect/", "n=1&name=a%20b", "application/x-www-form-urlencoded"),
        (.json, "/inspect/", #"{"n":1,"name":"a b"}"#, "application/json"),
        (.query, "/inspect/?n=1&name=a%20b", "", nil),
    ] as [(Request.ParameterEncoding?, String, String, String?)])
    func deleteEncodings(encoding: Request.ParameterEncoding?, target: String, body: String, contentType: String?) async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let parameters: [String: any Sendable] = ["name": "a b", "n": 1]
            let task = encoding.map { service.DELETE("/inspect/", parameters: parameters, options: [.parameterEncoding($0)]) }
                ?? service.DELETE("/inspect/", parameters: parameters)
            let received = try Inspection(try await task.data())
            #expect(received.method == "DELETE")
            #expect(received.target == target)
            #expect(received.body == body)
            #expect(received.values("Content-Type") == (contentType.map { [$0] } ?? []))
            if let encoding { #expect(encoding.contentType == contentType) }
        }
    }

    @Test(".parameterEncoding(.query) with .body(Data): the parameters in the query, the data as the body")
    func queryEncodingWithRawBody() async throws {
        try await withSandbox { sandbox in
            let data = try await makeService(sandbox)
                .DELETE("/inspect/", parameters: ["id": 7], options: [
                    .parameterEncoding(.query), .body(Data("raw bytes".utf8)), .header(Request.Headers.contentType, "text/plain"),
                ])
                .data()
            let received = try Inspection(data)
            #expect(received.target == "/inspect/?id=7")
            #expect(received.body == "raw bytes")
            #expect(received.values("Content-Type") == ["text/plain"])
        }
    }

    @Test("a percent-encoded body is the query a GET sends: the core's query rule, not the form rule")
    func percentBodyIsTheQueryRule() async throws {
        try await withSandbox { sandbox in
            let parameters: [String: any Sendable] = ["q": "a b*c~d+e", "tags": ["x", "y"]]
            let service = makeService(sandbox)
            let posted = try Inspection(try await service.POST("/inspect/", parameters: parameters).data())
            let got = try Inspection(try await service.GET("/inspect/", parameters: parameters).data())
            #expect(posted.body == "q=a%20b%2Ac~d%2Be&tags=x&tags=y")
            #expect(posted.body == got.query)
            #expect(posted.body == URLEncoding.serialize(URLEncoding.pairs(parameters), .query))
            #expect(posted.body != FormData(URLEncoding.pairs(parameters).map { (name: $0.0, value: $0.1) }).encoded)
            #expect(FormData(parsing: posted.body) == FormData(parsing: FormData([(name: "q", value: "a b*c~d+e"), (name: "tags", value: "x"), (name: "tags", value: "y")]).encoded))
        }
    }

    @Test("a POST without parameters has no body and no Content-Type")
    func noParameters() async throws {
        try await withSandbox { sandbox in
            let received = try Inspection(try await makeService(sandbox).POST("/inspect/").data())
            #expect(received.bodyLength == 0)
            #expect(received.values("Content-Type").isEmpty)
        }
    }

    @Test(".body(Data) is sent as it is instead of the parameters; .header sets its Content-Type")
    func rawBody() async throws {
        try await withSandbox { sandbox in
            let response = try await makeService(sandbox)
                .POST("/dumpupload/", parameters: ["ignored": "yes"], options: [
                    .body(Data("raw bytes".utf8)), .header(Request.Headers.contentType, "text/x-raw"),
                ])
                .response()
            #expect(response.text == "raw bytes")
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/x-raw")
        }
    }

    @Test("a Content-Type header wins over the encoding's; a repeated header keeps its last value")
    func headersWin() async throws {
        try await withSandbox { sandbox in
            let data = try await makeService(sandbox)
                .POST("/inspect/", parameters: ["a": 1], options: [
                    .header("Content-Type", "application/vnd.api+json"), .parameterEncoding(.json),
                    .header("X-Twice", "first"), .header("X-Twice", "second"),
                    .header(Request.Headers.accept, "application/json"),
                ])
                .data()
            let received = try Inspection(data)
            #expect(received.body == #"{"a":1}"#)
            #expect(received.values("Content-Type") == ["application/vnd.api+json"])
            #expect(received.values("X-Twice") == ["second"])
            #expect(received.values("Accept") == ["application/json"])
        }
    }

    @Test("JSON parameters may nest arrays and objects; keys are sorted")
    func nestedJSON() async throws {
        try await withSandbox { sandbox in
            let data = try await makeService(sandbox)
                .PATCH("/inspect/", parameters: ["z": [1, 2], "a": ["y": true, "b": JSON.null] as [String: any Sendable]], options: [.parameterEncoding(.json)])
                .data()
            #expect(try Inspection(data).body == #"{"a":{"b":null,"y":true},"z":[1,2]}"#)
        }
    }

    @Test(".cachePolicy and .timeout reach the cycle's request")
    func cachePolicyAndTimeout() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/", options: [
                .cachePolicy(.reloadIgnoringLocalCacheData), .timeout(7),
            ])
            let request = try #require(task.cycle?.request)
            #expect(request.core.cachePolicy == .reloadIgnoringLocalCacheData)
            #expect(request.core.timeoutInterval == 7)
            #expect(try await task.string() == "Hello World")
        }
    }

    @Test("an invalid URL neither crashes nor throws: the task fails with invalidURL and only error handlers run",
          arguments: ["", "   ", "not a url", "ftp://example.com", "http://"])
    func invalidBaseURL(base: String) async throws {
        let service = WebService(baseURLString: base, session: makeSession())
        let recorder = Recorder()
        let task = service.GET("/stores", parameters: ["zip": "15217"])
        #expect(task.cycle == nil)
        let done = await waitForCall { done in
            task
                .response { _, _ in recorder.record("response") }
                .responseError { error in
                    if case HTTPError.invalidURL(let given, let reason) = error {
                        recorder.record("invalidURL \(given) \(!reason.isEmpty)")
                    } else {
                        recorder.record("other \(error)")
                    }
                }
                .responseError { response, _ in
                    recorder.record("response \(response == nil ? "nil" : "present")")
                    done()
                }
        }
        #expect(done)
        #expect(recorder.all == ["invalidURL \(service.absoluteURLString("/stores")) true", "response nil"])
        await #expect(throws: HTTPError.self) { try await task.data() }
    }

    @Test("a parameter with no JSON form fails the task with the core's error, nothing sent")
    func unencodableParameter() async throws {
        struct Opaque: Sendable {}
        try await withSandbox { sandbox in
            let task = makeService(sandbox).POST("/inspect/", parameters: ["x": Opaque()], options: [.parameterEncoding(.json)])
            #expect(task.cycle == nil)
            await #expect(throws: HTTPProcessorError.self) { try await task.response() }
            #expect(sandbox.acceptedConnectionCount == 0)
        }
    }
}
