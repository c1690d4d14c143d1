import Foundation
import HTTPTypes
import Jewzruxin
import JewzruxinHTTPTypes
import JewzruxinSandbox
import Testing

/// `session.send` and `session.stream` with swift-http-types' request and response, against the
/// sandbox.
@Suite struct HTTPSessionHTTPTypesTests {
    private func request(_ sandbox: Sandbox, _ path: String, method: HTTPTypes.HTTPRequest.Method = .get) throws -> HTTPTypes.HTTPRequest {
        HTTPTypes.HTTPRequest(method: method, url: try #require(sandbox.url(path)))
    }

    @Test func sendsAndReturnsTheWholeBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await TestSessions.make().send(try request(sandbox, "/hello/"))
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == "Hello World")
            #expect(response.headerFields[.contentType]?.hasPrefix("text/plain") == true)
        }
    }

    @Test func returnsAnErrorStatusRatherThanThrowingIt() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await TestSessions.make().send(try request(sandbox, "/status/404"))
            #expect(response.status == .notFound)
            #expect(String(decoding: body, as: UTF8.self) == "status 404")
        }
    }

    @Test func sendsABodyAndItsHeaders() async throws {
        try await Sandbox.withSandbox { sandbox in
            var post = try request(sandbox, "/dumpupload/", method: .post)
            post.headerFields[.contentType] = "application/x-test"
            let (response, body) = try await TestSessions.make().send(post, body: Data("payload".utf8))
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "application/x-test")
            #expect(body == Data("payload".utf8))
        }
    }

    @Test func streamsABodyAsItArrives() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await TestSessions.make().stream(try request(sandbox, "/bytes/300000"))
            #expect(response.status == .ok)
            #expect(body.expectedLength == 300_000)
            var total = 0
            for try await chunk in body { total += chunk.count }
            #expect(total == 300_000)
        }
    }

    @Test func streamsTheBodyOfAnErrorStatusWhole() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await TestSessions.make().stream(try request(sandbox, "/status/500"))
            #expect(response.status == .internalServerError)
            #expect(body.expectedLength == 10)
            var chunks: [Data] = []
            for try await chunk in body { chunks.append(chunk) }
            #expect(chunks == [Data("status 500".utf8)])
        }
    }

    @Test func letsTheCallerConfigureTheCycle() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a POST to an endpoint that answers 503 once, made resendable for this call
            let key = TestSessions.uniqueKey()
            let post = try request(sandbox, "/flaky/?key=\(key)&fail=1", method: .post)
            let (response, _) = try await TestSessions.make().send(post) { cycle in cycle.retryableMethods = [.post] }
            #expect(response.status == .ok)
            #expect(sandbox.requestCount(forFlakyKey: key) == 2)
        }
    }
}

extension HTTPSessionHTTPTypesTests {
    @Test func returnsTheHeadBeforeTheBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a body of two bytes, the first 5 s after the head
            let start = ContinuousClock.now
            let (response, body) = try await TestSessions.make().stream(try request(sandbox, "/drip/?n=2&interval=5"))
            // THEN the call returns long before it; the body, dropped unread, cancels the request
            #expect(ContinuousClock.now - start < .seconds(4))
            #expect(response.status == .ok)
            #expect(body.expectedLength == 2)
        }
    }
}
