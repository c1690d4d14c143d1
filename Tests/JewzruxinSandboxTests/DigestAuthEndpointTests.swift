import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

/// The parameters of a sandbox Digest challenge, read with a strict pattern so the
/// exact wire format is checked too.
struct SandboxDigestChallenge {
    var qop: String?
    var algorithm: String
    var nonce: String
    var opaque: String
    var stale: Bool
    var header: String

    /// `Digest realm="sandbox", [qop="…", ]algorithm=…, nonce="<32 hex>", opaque="<24 hex>"[, stale=true]`.
    init?(_ header: String?) {
        guard let header,
              let match = header.wholeMatch(of: #/Digest realm="sandbox", (?:qop="([a-z-]+)", )?algorithm=([A-Za-z0-9-]+), nonce="([0-9a-f]{32})", opaque="([0-9a-f]{24})"(, stale=true)?/#)
        else { return nil }
        qop = match.1.map(String.init)
        algorithm = String(match.2)
        nonce = String(match.3)
        opaque = String(match.4)
        stale = match.5 != nil
        self.header = header
    }
}

@Suite("Digest authentication endpoints", .onItsOwnThread)
struct DigestAuthEndpointTests {
    static let endpoints: [(qop: String, algorithm: String)] = ["auth", "auth-int", "none"].flatMap { qop in
        ["MD5", "SHA-256", "MD5-sess", "SHA-256-sess"].map { (qop, $0) }
    }

    /// Sends a request with an optional Authorization header on a fresh connection.
    static func send(
        _ sandbox: Sandbox, _ target: String, method: String = "GET", authorization: String? = nil, body: String = ""
    ) throws -> RawResponse {
        var headers = "Content-Length: \(body.utf8.count)\r\n"
        if let authorization { headers += "Authorization: \(authorization)\r\n" }
        return try TestSupport.raw(sandbox, TestSupport.getRequest(target, method: method, extraHeaders: headers) + body)
    }

    /// Requests `target` without credentials and returns its challenge.
    static func challenge(_ sandbox: Sandbox, _ target: String) throws -> SandboxDigestChallenge {
        let response = try send(sandbox, target)
        #expect(response.status == 401)
        return try #require(SandboxDigestChallenge(response.header("WWW-Authenticate")))
    }

    /// The Authorization value answering `challenge` for `target`.
    static func answer(
        _ challenge: SandboxDigestChallenge, _ target: String, method: String = "GET", nc: UInt32 = 1,
        body: String = "", password: String = "12345"
    ) throws -> String {
        try #require(Sandbox.digestAuthorization(
            answering: challenge.header, method: method, uri: target, nonceCount: nc, body: Data(body.utf8),
            password: password))
    }

    @Test("401 challenge format for every qop and algorithm", arguments: endpoints)
    func challengeFormat(qop: String, algorithm: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try Self.send(sandbox, "/digest_auth/\(qop)/\(algorithm)/")
        #expect(response.status == 401)
        #expect(response.text == "Unauthorized")
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        let challenge = try #require(SandboxDigestChallenge(response.header("WWW-Authenticate")))
        #expect(challenge.qop == (qop == "none" ? nil : qop))
        #expect(challenge.algorithm == algorithm)
        #expect(!challenge.stale)
    }

    @Test("Full exchange: the right answer gets 200 Hello World", arguments: endpoints)
    func roundTrip(qop: String, algorithm: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/\(qop)/\(algorithm)/?x=1"
        let challenge = try Self.challenge(sandbox, target)
        let authorization = try Self.answer(challenge, target, method: "POST", body: "payload")
        let response = try Self.send(sandbox, target, method: "POST", authorization: authorization, body: "payload")
        #expect(response.status == 200)
        #expect(response.text == "Hello World")
        #expect(response.header("WWW-Authenticate") == nil)
    }

    @Test("Every challenge has a fresh nonce and the sandbox's opaque")
    func freshNonces() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let first = try Self.challenge(sandbox, "/digest_auth/auth/MD5/")
        let second = try Self.challenge(sandbox, "/digest_auth/auth/MD5")
        #expect(first.nonce != second.nonce)
        #expect(first.opaque == second.opaque)
        let other = try Sandbox.start()
        defer { other.stop() }
        #expect(try Self.challenge(other, "/digest_auth/auth/MD5/").opaque != first.opaque)
    }

    @Test("A wrong answer gets 401 with a fresh nonce and no stale flag", arguments: ["none", "auth"])
    func wrongPassword(qop: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/\(qop)/SHA-256/"
        let challenge = try Self.challenge(sandbox, target)
        let wrong = try Self.answer(challenge, target, password: "54321")
        let response = try Self.send(sandbox, target, authorization: wrong)
        #expect(response.status == 401)
        let next = try #require(SandboxDigestChallenge(response.header("WWW-Authenticate")))
        #expect(next.nonce != challenge.nonce)
        #expect(!next.stale)
        // The right answer still works with the first nonce: a wrong one does not use it up.
        #expect(try Self.send(sandbox, target, authorization: Self.answer(challenge, target)).status == 200)
    }

    @Test("Mismatched uri, method, realm, opaque, qop or algorithm get 401")
    func mismatches() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/auth/MD5/"
        let challenge = try Self.challenge(sandbox, target)
        let good = try Self.answer(challenge, target)
        let variants = [
            try Self.answer(challenge, "/digest_auth/auth/MD5/?other"),
            try Self.answer(challenge, target, method: "POST"),
            good.replacingOccurrences(of: #"realm="sandbox""#, with: #"realm="other""#),
            good.replacingOccurrences(of: challenge.opaque, with: "0123"),
            good.replacingOccurrences(of: "qop=auth", with: "qop=auth-int"),
            good.replacingOccurrences(of: "algorithm=MD5", with: "algorithm=SHA-256"),
            good.replacingOccurrences(of: #"username="test""#, with: #"username="Test""#),
            "Basic dGVzdDoxMjM0NQ==",
            "Digest garbage",
        ]
        for authorization in variants {
            let response = try Self.send(sandbox, target, authorization: authorization)
            #expect(response.status == 401, "\(authorization)")
            #expect(SandboxDigestChallenge(response.header("WWW-Authenticate"))?.stale == false)
        }
        #expect(try Self.send(sandbox, target, authorization: good).status == 200)
    }

    @Test("nc must grow for each nonce: a replayed answer is refused")
    func nonceCountReplay() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/auth/MD5-sess/"
        let challenge = try Self.challenge(sandbox, target)
        let first = try Self.answer(challenge, target, nc: 1)
        #expect(try Self.send(sandbox, target, authorization: first).status == 200)
        let replay = try Self.send(sandbox, target, authorization: first)
        #expect(replay.status == 401)
        #expect(SandboxDigestChallenge(replay.header("WWW-Authenticate"))?.stale == false)
        #expect(try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 3)).status == 200)
        #expect(try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 2)).status == 401)
    }

    @Test("stale_after=N: a nonce serves N requests, then 401 stale=true with a new nonce")
    func staleAfter() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/auth/SHA-256/?stale_after=2"
        let challenge = try Self.challenge(sandbox, target)
        #expect(try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 1)).status == 200)
        #expect(try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 2)).status == 200)
        let stale = try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 3))
        #expect(stale.status == 401)
        let renewed = try #require(SandboxDigestChallenge(stale.header("WWW-Authenticate")))
        #expect(renewed.stale)
        #expect(renewed.nonce != challenge.nonce)
        // A wrong answer with the used-up nonce is just wrong, not stale.
        let wrong = try Self.send(sandbox, target, authorization: Self.answer(challenge, target, nc: 4, password: "x"))
        #expect(SandboxDigestChallenge(wrong.header("WWW-Authenticate"))?.stale == false)
        #expect(try Self.send(sandbox, target, authorization: Self.answer(renewed, target, nc: 1)).status == 200)
    }

    @Test("stale_after applies to qop=none too, and 0 makes every nonce stale at once")
    func staleAfterWithoutQOP() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/none/MD5/?stale_after=1"
        let challenge = try Self.challenge(sandbox, target)
        let answer = try Self.answer(challenge, target)
        #expect(try Self.send(sandbox, target, authorization: answer).status == 200)
        let second = try Self.send(sandbox, target, authorization: answer)
        #expect(SandboxDigestChallenge(second.header("WWW-Authenticate"))?.stale == true)

        let never = "/digest_auth/auth/MD5/?stale_after=0"
        let neverChallenge = try Self.challenge(sandbox, never)
        let response = try Self.send(sandbox, never, authorization: Self.answer(neverChallenge, never))
        #expect(SandboxDigestChallenge(response.header("WWW-Authenticate"))?.stale == true)
    }

    @Test("A right answer for a nonce the sandbox never issued is stale")
    func unknownNonce() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/auth/MD5/"
        var challenge = try Self.challenge(sandbox, target)
        challenge.header = challenge.header.replacingOccurrences(of: challenge.nonce, with: String(repeating: "ab", count: 16))
        let response = try Self.send(sandbox, target, authorization: Self.answer(challenge, target))
        #expect(response.status == 401)
        #expect(SandboxDigestChallenge(response.header("WWW-Authenticate"))?.stale == true)
    }

    @Test("auth-int covers the body")
    func authIntBody() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/digest_auth/auth-int/SHA-256-sess/"
        let challenge = try Self.challenge(sandbox, target)
        let forOtherBody = try Self.answer(challenge, target, method: "PUT", body: "one")
        #expect(try Self.send(sandbox, target, method: "PUT", authorization: forOtherBody, body: "two").status == 401)
        let right = try Self.answer(challenge, target, method: "PUT", nc: 2, body: "two")
        #expect(try Self.send(sandbox, target, method: "PUT", authorization: right, body: "two").status == 200)
    }

    @Test("Unknown qop or algorithm in the path is 400", arguments: [
        "/digest_auth/auth/SHA-512-256/", "/digest_auth/auth-conf/MD5/", "/digest_auth/auth/", "/digest_auth",
        "/digest_auth/auth/MD5/extra",
    ])
    func badPath(path: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try Self.send(sandbox, path)
        #expect(response.status == 400)
        #expect(response.text.contains("/digest_auth/<qop>/<algorithm>/"))
    }

    @Test("stale_after must be a non-negative integer")
    func badStaleAfter() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        #expect(try Self.send(sandbox, "/digest_auth/auth/MD5/?stale_after=-1").status == 400)
        #expect(try Self.send(sandbox, "/digest_auth/auth/MD5/?stale_after=x").status == 400)
    }

    @Test("The nonce store stays bounded")
    func boundedNonces() {
        let store = DigestNonceStore()
        let first = store.issue(useLimit: nil)
        for _ in 0..<DigestNonceStore.capacity { _ = store.issue(useLimit: nil) }
        #expect(store.count == DigestNonceStore.capacity)
        #expect(!store.isCurrent(first))
        #expect(store.admit(first, nonceCount: "00000001") == .stale)
    }
}
