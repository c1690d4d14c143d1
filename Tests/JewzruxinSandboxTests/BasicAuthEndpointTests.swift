import Foundation
import JewzruxinPrimitives
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers every authentication challenge with `test` / `12345` and records them.
final class CredentialDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let seen = Locked<[String]>([])

    /// `"<authentication method> <realm>"` for each challenge received.
    var challenges: [String] { seen.withLock { $0 } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        seen.withLock { $0.append("\(space.authenticationMethod) \(space.realm ?? "-")") }
        guard challenge.previousFailureCount == 0 else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(user: "test", password: "12345", persistence: .forSession))
    }
}

@Suite("Basic authentication endpoints", .onItsOwnThread)
struct BasicAuthEndpointTests {
    static let goodHeader = "Basic dGVzdDoxMjM0NQ=="

    // Checked with the raw client: on Swift 6.3.1's FoundationNetworking a URLSession
    // task that gets 401 with a `Basic realm=…` challenge and has no delegate answering
    // it never completes (swift-corelibs-foundation issue #5456).
    @Test("Without credentials: 401, Basic realm=\"sandbox\", body Unauthorized",
          arguments: ["/hello_with_basic_auth", "/hello_with_basic_auth/"])
    func challenge(path: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.status == 401)
        #expect(response.values(for: "WWW-Authenticate") == [#"Basic realm="sandbox""#])
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text == "Unauthorized")
    }

    @Test("The right credentials get 200 Hello World, for any method", arguments: [
        ("GET", goodHeader), ("POST", goodHeader), ("DELETE", goodHeader), ("GET", "basic   dGVzdDoxMjM0NQ=="),
    ])
    func accepted(method: String, authorization: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(
            "/hello_with_basic_auth/", method: method,
            extraHeaders: "Authorization: \(authorization)\r\nContent-Length: 0\r\n"))
        #expect(response.status == 200)
        #expect(response.text == "Hello World")
        #expect(response.header("WWW-Authenticate") == nil)
    }

    @Test("Wrong or malformed credentials get the challenge again", arguments: [
        "Basic dGVzdDoxMjM0", "Basic dGVzdDoxMjM0NTY=", "Basic VGVzdDoxMjM0NQ==", "Basic !!!", "Basic",
        "Bearer dGVzdDoxMjM0NQ==", #"Digest username="test", realm="sandbox""#, "",
    ])
    func rejected(authorization: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(
            "/hello_with_basic_auth", extraHeaders: "Authorization: \(authorization)\r\n"))
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate") == #"Basic realm="sandbox""#)
        #expect(response.text == "Unauthorized")
    }

    @Test("URLSession answers the realm challenge through its delegate")
    func urlSessionDelegate() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let delegate = CredentialDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await TestSupport.fetch(
            try #require(sandbox.url("/hello_with_basic_auth/")), session: session)
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello World")
        #expect(delegate.challenges.first?.hasSuffix(" sandbox") == true)
    }

    @Test("URLSession with an explicit Authorization header")
    func urlSessionHeader() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.fetch(
            try #require(sandbox.url("/hello_with_basic_auth")), headers: ["Authorization": Self.goodHeader])
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello World")
    }

    @Test("The no-realm variant challenges with a bare `Basic`", arguments: [
        "/hello_with_basic_auth_norealm", "/hello_with_basic_auth_norealm/",
    ])
    func noRealm(path: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let challenge = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(challenge.status == 401)
        #expect(challenge.values(for: "WWW-Authenticate") == ["Basic"])
        #expect(challenge.text == "Unauthorized")
        let accepted = try TestSupport.raw(sandbox, TestSupport.getRequest(
            path, extraHeaders: "Authorization: \(Self.goodHeader)\r\n"))
        #expect(accepted.status == 200)
        #expect(accepted.text == "Hello World")
    }

    @Test("HEAD gets the 401 headers without a body")
    func head() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/hello_with_basic_auth/", method: "HEAD"), head: true)
        #expect(response.status == 401)
        #expect(response.header("Content-Length") == "12")
        #expect(response.body.isEmpty)
    }
}
