import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinAuth
import JewzruxinSandbox

@Suite("Authentication", .onEveryTransport)
struct AuthenticationTests {
    static let good = BasicAuthentication(username: "test", password: "12345")
    static let wrong = BasicAuthentication(username: "test", password: "54321")

    @Test("Authentication through the URL loading system (seed): Basic with a realm")
    func seedBasic() async throws {
        try await withSandbox { sandbox in
            let auth = BasicAuthentication(username: "test", password: "12345")
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/hello_with_basic_auth"), authentications: [auth], session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.text == "Hello World")
        }
    }

    @Test("Basic without a realm, which URLSession never challenges for on Linux (L8)")
    func basicWithoutRealm() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/hello_with_basic_auth_norealm/"), authentications: [Self.good], session: makeSession())
            #expect(cycle.response.text == "Hello World")
        }
    }

    @Test("Digest: every algorithm, with qop=auth and without qop (RFC 2069)", arguments: [
        "auth/MD5", "auth/SHA-256", "auth/MD5-sess", "auth/SHA-256-sess", "none/MD5", "none/SHA-256",
    ])
    func digest(variant: String) async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/digest_auth/\(variant)/?q=1"), authentications: [Self.good], session: makeSession())
            #expect(cycle.response.statusCode == 200)
            #expect(cycle.response.text == "Hello World")
            let sent = try #require(cycle.request.url)
            #expect(sent.query == "q=1")
        }
    }

    @Test("Digest answers carry the body's method (POST)")
    func digestPost() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.post(sandbox.string("/digest_auth/auth/SHA-256/"), requestObject: Data("payload".utf8),
                                                 requestProcessors: [HTTPDataProcessor()], authentications: [Self.good], session: makeSession())
            #expect(cycle.response.text == "Hello World")
        }
    }

    @Test("wrong credentials end in a 401 error after one answer, not a loop", arguments: [
        "/hello_with_basic_auth/", "/hello_with_basic_auth_norealm/", "/digest_auth/auth/MD5/", "/digest_auth/auth/SHA-256/",
    ])
    func wrongCredentials(path: String) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome { try HTTPCycle.get(sandbox.string(path), authentications: [Self.wrong], session: makeSession(), completionHandler: $0) }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            #expect(result.response.text == "Unauthorized")
        }
    }

    @Test("the server sees exactly two requests for wrong credentials")
    func wrongCredentialsCount() async throws {
        try await withSandbox { sandbox in
            let requests = Mutex<[String?]>([])
            sandbox.route("/guarded/") { request in
                requests.withLock { $0.append(request.headers["Authorization"]) }
                var response = SandboxResponse.text("Unauthorized", status: 401)
                response.headers.add("WWW-Authenticate", "Basic realm=\"x\"")
                return response
            }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/guarded/"), authentications: [Self.wrong], session: makeSession(), completionHandler: $0) }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            #expect(requests.withLock { $0 } == [nil, "Basic dGVzdDo1NDMyMQ=="])
        }
    }

    @Test("a stale Digest nonce earns one more answer with the new nonce")
    func staleNonce() async throws {
        try await withSandbox { sandbox in
            let attempts = Mutex(0)
            sandbox.route("/stale/") { request in
                let attempt = attempts.withLock { $0 += 1; return $0 }
                func challenge(_ nonce: String, stale: Bool) -> SandboxResponse {
                    var response = SandboxResponse.text("Unauthorized", status: 401)
                    response.headers.add("WWW-Authenticate", DigestChallenge(realm: "r", nonce: nonce, opaque: "o", stale: stale).headerValue)
                    return response
                }
                guard let header = request.headers["Authorization"], let answer = DigestAuthorization(headerValue: header) else {
                    return challenge("first", stale: false)
                }
                switch answer.verify(username: "test", password: "12345", method: request.method, issuedNonce: attempt == 2 ? "first" : "second") {
                case .valid: return attempt == 2 ? challenge("second", stale: true) : .text("fresh")
                case .staleNonce, .invalid: return challenge("second", stale: false)
                }
            }
            let cycle = try await HTTPCycle.get(sandbox.string("/stale/"), authentications: [Self.good], session: makeSession())
            #expect(cycle.response.text == "fresh")
            #expect(attempts.withLock { $0 } == 3)

            // With the sandbox's own endpoint, every nonce is stale at once: two answers, then the 401.
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/digest_auth/auth/MD5/?stale_after=0"), authentications: [Self.good], session: makeSession(), completionHandler: $0)
            }
            #expect((result.error as? HTTPError)?.statusCode == 401)
        }
    }

    @Test("without authentications a 401 stays a 401; session authentications back the cycle's")
    func sessionBacked() async throws {
        try await withSandbox { sandbox in
            let plain = try await outcome { try HTTPCycle.get(sandbox.string("/hello_with_basic_auth/"), session: makeSession(), completionHandler: $0) }
            #expect((plain.error as? HTTPError)?.statusCode == 401)

            let session = makeSession()
            session.authentications = [Self.good]
            let cycle = try await HTTPCycle.get(sandbox.string("/digest_auth/auth/SHA-256/"), session: session)
            #expect(cycle.response.text == "Hello World")
            #expect(cycle.authentications == nil)
        }
    }

    @Test("a 401 without a challenge this authentication understands ends as it is")
    func unknownScheme() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/bearer-only/") { _ in
                var response = SandboxResponse.text("need a token", status: 401)
                response.headers.add("WWW-Authenticate", "Bearer realm=\"api\"")
                return response
            }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/bearer-only/"), authentications: [Self.good], session: makeSession(), completionHandler: $0) }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            #expect(result.response.text == "need a token")
        }
    }

    @Test("Prepare request manually (seed): HTTPBasicAuthProcessor sends Authorization up front")
    func basicProcessor() async throws {
        try await withSandbox { sandbox in
            let processor = HTTPBasicAuthProcessor(username: "test", password: "12345")
            let cycle = try await HTTPCycle.get(sandbox.string("/hello_with_basic_auth/"), requestProcessors: [processor], session: makeSession())
            #expect(cycle.response.statusCode == 200)
        }
    }

    @Test("upload and download cycles authenticate too")
    func transfersAuthenticate() async throws {
        try await withSandbox { sandbox in
            let upload = try await HTTPCycle.upload(sandbox.string("/digest_auth/auth/MD5/"), source: .data(Data("x".utf8)),
                                                    authentications: [Self.good], session: makeSession())
            #expect(upload.response.statusCode == 200)
            let text = Mutex<String?>(nil)
            let session = try makeDownloadSession()
            try await HTTPCycle.download(sandbox.string("/hello_with_basic_auth/"), authentications: [Self.good], session: session) { _, location in
                text.withLock { $0 = try? String(contentsOf: location, encoding: .utf8) }
            }
            #expect(text.withLock { $0 } == "Hello World")
            // The 401's body, written before the answer, is gone too.
            await session.drain()
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("the request target keeps its trailing slash and query", arguments: [
        ("http://h/a/b/?x=1&y=2", "/a/b/?x=1&y=2"), ("http://h", "/"), ("http://h?q", "/?q"), ("http://h:8080/p#frag", "/p"),
        ("http://h/%E4%B8%AD/", "/%E4%B8%AD/"),
    ])
    func requestTarget(url: String, target: String) throws {
        #expect(BasicAuthentication.requestTarget(of: try #require(URL(string: url))) == target)
    }
}
