import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPBasicAuthProcessor`` and ``HTTPBearerProcessor``.
@Suite("Authorization processors", .onEveryTransport)
struct AuthProcessorTests {
    static func request() throws -> HTTPRequest {
        HTTPRequest(url: try #require(URL(string: "https://api.example.com/user/")))
    }

    /// The Authorization header `processor` sets on a fresh request.
    static func authorization(_ processor: HTTPProcessor) throws -> String? {
        var request = try request()
        try processor.processRequest(&request)
        return request.value(forHTTPHeaderField: "Authorization")
    }

    // MARK: Basic

    @Test("Basic: RFC 7617 examples and UTF-8 credentials", arguments: [
        ("Aladdin", "open sesame", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("test", "123£", "Basic dGVzdDoxMjPCow=="),
        ("user", "pass", "Basic dXNlcjpwYXNz"),
        ("", "", "Basic Og=="),
        ("user", "pa:ss", "Basic dXNlcjpwYTpzcw=="),
    ])
    func basicHeader(username: String, password: String, expected: String) throws {
        #expect(try Self.authorization(HTTPBasicAuthProcessor(username: username, password: password)) == expected)
    }

    @Test("Basic: replaces an Authorization header already set")
    func basicReplaces() throws {
        var request = try Self.request()
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        try HTTPBasicAuthProcessor(username: "Aladdin", password: "open sesame").processRequest(&request)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("Basic: credentials RFC 7617 forbids throw and set nothing", arguments: [
        ("us:er", "pass"), ("user\r\n", "pass"), ("user", "pa\nss"), ("user", "pass\u{7F}"), ("\u{0}", ""),
    ])
    func basicInvalid(username: String, password: String) throws {
        var request = try Self.request()
        let error = try #require(throws: HTTPProcessorError.self) {
            try HTTPBasicAuthProcessor(username: username, password: password).processRequest(&request)
        }
        #expect(error.processor == "HTTPBasicAuthProcessor")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("Basic: the response is left alone")
    func basicResponse() throws {
        var response = HTTPResponse(data: Data("body".utf8))
        try HTTPBasicAuthProcessor(username: "a", password: "b").processResponse(&response)
        #expect(response.object == nil)
        #expect(response.data == Data("body".utf8))
    }

    // MARK: Bearer

    @Test("Bearer: token68 tokens are sent as they are", arguments: [
        "mF_9.B5f-4.1JqM",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        "abc+/~==",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "x",
    ])
    func bearerHeader(token: String) throws {
        #expect(try Self.authorization(HTTPBearerProcessor(token: token)) == "Bearer " + token)
    }

    @Test("Bearer: a token that isn't a token68 throws and sets nothing", arguments: [
        "abc\r\nX-Injected: yes", "abc\n", "abc\r", "", "=", "==abc", "a=b", "has space", "tab\t",
        "quote\"", "comma,", "semi;", "ümlaut", "nul\u{0}", "del\u{7F}", " leading",
    ])
    func bearerInvalid(token: String) throws {
        var request = try Self.request()
        let error = try #require(throws: HTTPProcessorError.self) {
            try HTTPBearerProcessor(token: token).processRequest(&request)
        }
        #expect(error.processor == "HTTPBearerProcessor")
        #expect(!error.description.contains(token) || token.isEmpty, "the error doesn't repeat the token")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("Bearer: the response is left alone")
    func bearerResponse() throws {
        var response = HTTPResponse(data: Data("body".utf8))
        try HTTPBearerProcessor(token: "t").processResponse(&response)
        #expect(response.object == nil)
        #expect(response.data == Data("body".utf8))
    }

    // MARK: Against the sandbox

    @Test("The Basic header arrives at /inspect/")
    func basicEndToEnd() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/inspect/"),
                                  requestProcessors: [HTTPBasicAuthProcessor(username: "test", password: "123£")],
                                  completionHandler: $0)
            }
            #expect(result.error == nil)
            let seen = try Inspection(result.response)
            #expect(seen.values("authorization") == ["Basic dGVzdDoxMjPCow=="])
        }
    }

    @Test("The Bearer header arrives at /inspect/, with a JSON response processor as in the seed example")
    func bearerEndToEnd() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/inspect/"),
                                  requestProcessors: [HTTPBearerProcessor(token: "mF_9.B5f-4.1JqM")],
                                  responseProcessors: [HTTPJSONProcessor()], completionHandler: $0)
            }
            #expect(result.error == nil)
            let json = try #require(result.response.object as? JSON)
            let headers = try #require(json["headers"]?.arrayValue)
            let authorization = headers.filter { $0[0]?.stringValue?.lowercased() == "authorization" }.map { $0[1]?.stringValue }
            #expect(authorization == ["Bearer mF_9.B5f-4.1JqM"])
        }
    }

    @Test("A token with CR/LF ends the cycle before anything is sent")
    func bearerInvalidEndToEnd() async throws {
        try await withSandbox { sandbox in
            let before = sandbox.acceptedConnectionCount
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/inspect/"),
                                  requestProcessors: [HTTPBearerProcessor(token: "abc\r\nX-Injected: yes")],
                                  session: makeSession(), completionHandler: $0)
            }
            let error = try #require(result.error as? HTTPProcessorError)
            #expect(error.processor == "HTTPBearerProcessor")
            #expect(result.response.statusCode == nil)
            #expect(sandbox.acceptedConnectionCount == before)
        }
    }
}
