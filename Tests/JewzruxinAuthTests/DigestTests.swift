import Foundation
import Testing
@testable import JewzruxinAuth

@Suite("Digest authentication: client choices and server checks")
struct DigestTests {
    static let credentials = DigestCredentials(username: "test", password: "12345")

    static func challenge(
        qop: [String] = ["auth"], algorithm: String? = "MD5", userhash: Bool = false
    ) -> DigestChallenge {
        DigestChallenge(realm: "sandbox", nonce: "nonce1", opaque: "op", qopOptions: qop,
                        algorithmName: algorithm, userhash: userhash)
    }

    @Test("Algorithm tokens match case-insensitively; absent means MD5; unknown is nil")
    func algorithmTokens() {
        #expect(DigestAlgorithm(token: nil) == .md5)
        #expect(DigestAlgorithm(token: "md5-SESS") == .md5Session)
        #expect(DigestAlgorithm(token: "sha-256") == .sha256)
        #expect(DigestAlgorithm(token: "SHA-256-sess") == .sha256Session)
        #expect(DigestAlgorithm(token: "SHA-512-256") == nil)
        #expect(DigestAlgorithm(token: "") == nil)
        #expect(DigestAlgorithm.allCases.map(\.name) == ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess"])
    }

    @Test("qop choice: auth preferred, auth-int only with a body, none → RFC 2069")
    func qopChoice() {
        #expect(Self.challenge(qop: ["auth-int", "auth"]).chooseQOP(bodyIsKnown: true) == .qop(.auth))
        #expect(Self.challenge(qop: ["auth-int"]).chooseQOP(bodyIsKnown: true) == .qop(.authInt))
        #expect(Self.challenge(qop: ["auth-int"]).chooseQOP(bodyIsKnown: false) == .unusable)
        #expect(Self.challenge(qop: ["token", "other"]).chooseQOP(bodyIsKnown: true) == .unusable)
        #expect(Self.challenge(qop: []).chooseQOP(bodyIsKnown: false) == .withoutQOP)
        #expect(DigestQOP.options(from: " auth ,, AUTH-INT,") == ["auth", "AUTH-INT"])
    }

    @Test("Unusable challenges give no answer")
    func noAnswer() {
        let credentials = Self.credentials
        #expect(credentials.authorization(for: Self.challenge(algorithm: "SHA3"), method: "GET", uri: "/") == nil)
        #expect(credentials.authorization(for: Self.challenge(qop: ["auth-int"]), method: "GET", uri: "/") == nil)
        #expect(credentials.authorization(for: Self.challenge(qop: ["x"]), method: "GET", uri: "/") == nil)
    }

    @Test("auth-int hashes the body (value from Python hashlib)")
    func authInt() throws {
        let body = Array("hello body".utf8)
        let uri = "/digest_auth/auth-int/MD5/?x=1"
        let answer = try #require(Self.credentials.authorization(
            for: Self.challenge(qop: ["auth-int"]), method: "POST", uri: uri, entityBody: body, clientNonce: "cn1"))
        #expect(answer.qop == "auth-int")
        #expect(answer.response == "113e95cfd94f425e8e6c4eef86dabb7d")
        let received = try #require(DigestAuthorization(headerValue: answer.headerValue))
        #expect(received.verify(username: "test", password: "12345", method: "POST", entityBody: body,
                                issuedNonce: "nonce1") == .valid)
        #expect(received.verify(username: "test", password: "12345", method: "POST", entityBody: body + [0],
                                issuedNonce: "nonce1") == .invalid)
        #expect(received.verify(username: "test", password: "12345", method: "POST",
                                issuedNonce: "nonce1") == .invalid)
    }

    @Test("-sess algorithms and nonce counts (values from Python hashlib)", arguments: [
        ("MD5-sess", UInt32(2), "00000002", "be5f68d963f1ed93d49c56f5e2ef781c"),
        ("SHA-256-sess", UInt32(10), "0000000a",
         "0a1b0e62d5468a9ef0be1c63ad01f2f1f823807f3be12db84938f911229e1f80"),
    ])
    func session(algorithm: String, count: UInt32, nc: String, response: String) throws {
        let answer = try #require(Self.credentials.authorization(
            for: Self.challenge(algorithm: algorithm), method: "GET", uri: "/digest_auth/auth/\(algorithm)/",
            clientNonce: "cn1", nonceCount: count))
        #expect(answer.nonceCount == nc)
        #expect(answer.algorithmName == algorithm)
        #expect(answer.response == response)
        #expect(answer.headerValue.contains("nc=\(nc), cnonce=\"cn1\", qop=auth,"))
    }

    @Test("MD5-sess without qop still sends its cnonce (value from Python hashlib)")
    func sessionWithoutQOP() throws {
        let answer = try #require(Self.credentials.authorization(
            for: Self.challenge(qop: [], algorithm: "MD5-sess"), method: "GET", uri: "/p", clientNonce: "cn1"))
        #expect(answer.response == "68c6c51a32bbf5ff724f42bc06b102ce")
        #expect(answer.clientNonce == "cn1" && answer.nonceCount == nil && answer.qop == nil)
        let received = try #require(DigestAuthorization(headerValue: answer.headerValue))
        #expect(received.verify(username: "test", password: "12345", method: "GET", issuedNonce: "nonce1") == .valid)
    }

    @Test("userhash sends H(username:realm) and the server matches it (RFC 7616 §3.9.2 inputs, SHA-256)")
    func userhash() throws {
        let challenge = DigestChallenge(
            realm: "api@example.org", nonce: "5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK",
            opaque: "HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", algorithmName: "SHA-256",
            charset: "UTF-8", userhash: true)
        let parsedBack = try #require(DigestChallenge.preferred(in: AuthenticationChallenge.parse(challenge.headerValue)))
        #expect(parsedBack == challenge)
        let credentials = DigestCredentials(username: "Jäsøn Doe", password: "Secret, or not?")
        let answer = try #require(credentials.authorization(
            for: parsedBack, method: "GET", uri: "/doe.json",
            clientNonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v"))
        #expect(answer.username == "5a1a8a47df5c298551b9b42ba9b05835174a5bd7d511ff7fe9191d8e946fc4e7")
        #expect(answer.response == "b6d5cb9c3000ea2385250005e294d7132b260b8fd08940d2377373493cee8cc4")
        #expect(answer.headerValue.hasSuffix(", userhash=true"))
        let received = try #require(DigestAuthorization(headerValue: answer.headerValue))
        #expect(received.userhash && received.matches(username: "Jäsøn Doe"))
        #expect(!received.matches(username: "Jason Doe"))
        #expect(received.verify(username: "Jäsøn Doe", password: "Secret, or not?", method: "GET",
                                issuedNonce: challenge.nonce) == .valid)
    }

    @Test("A non-ASCII user name without userhash goes out as username* (RFC 8187)")
    func extendedUsername() throws {
        #expect(ExtendedValue.encode("Jäsøn Doe") == "UTF-8''J%C3%A4s%C3%B8n%20Doe")
        #expect(ExtendedValue.decode("utf-8'en'J%C3%A4s%C3%B8n%20Doe") == "Jäsøn Doe")
        #expect(ExtendedValue.decode("ISO-8859-1''%E4") == "ä")
        #expect(ExtendedValue.decode("UTF-8''%C3") == nil)
        #expect(ExtendedValue.decode("UTF-8''%G0") == nil)
        #expect(ExtendedValue.decode("KOI8-R''abc") == nil)
        #expect(ExtendedValue.decode("no delimiters") == nil)
        let credentials = DigestCredentials(username: "Jäsøn Doe", password: "pw")
        let answer = try #require(credentials.authorization(for: Self.challenge(), method: "GET", uri: "/"))
        #expect(answer.headerValue.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm="))
        let received = try #require(DigestAuthorization(headerValue: answer.headerValue))
        #expect(received.username == "Jäsøn Doe")
        #expect(received.verify(username: "Jäsøn Doe", password: "pw", method: "GET", issuedNonce: "nonce1") == .valid)
    }

    @Test("Quotes and backslashes in values are escaped and survive a round trip")
    func escaping() throws {
        let challenge = DigestChallenge(realm: #"a "b" \c"#, nonce: "n", opaque: #"o"1"#)
        let parsed = try #require(DigestChallenge.preferred(in: AuthenticationChallenge.parse(challenge.headerValue)))
        #expect(parsed == challenge)
        let answer = try #require(DigestCredentials(username: #"u"s\r"#, password: "p")
            .authorization(for: parsed, method: "GET", uri: "/a?b=\"c\""))
        let received = try #require(DigestAuthorization(headerValue: answer.headerValue))
        #expect(received == answer)
        #expect(received.verify(username: #"u"s\r"#, password: "p", method: "GET", issuedNonce: "n") == .valid)
    }

    @Test("Challenge parsing: stale, userhash, charset, domain; first supported challenge preferred")
    func challengeParsing() throws {
        let header = #"Digest realm="r", nonce="a", algorithm=SHA-512-256, "#
            + #"Digest realm="r", domain="/a /b", qop="auth", algorithm=SHA-256, nonce="b", stale=TRUE, "#
            + #"charset=UTF-8, userhash=true, Digest realm="r", nonce="c", Basic realm="r""#
        let preferred = try #require(DigestChallenge.preferred(in: AuthenticationChallenge.parse(header)))
        #expect(preferred.nonce == "b")
        #expect(preferred.algorithm == .sha256)
        #expect(preferred.stale && preferred.userhash)
        #expect(preferred.charset == "UTF-8")
        #expect(preferred.domain == "/a /b")
        #expect(DigestChallenge(AuthenticationChallenge(scheme: "Digest", parameters: [.init(name: "realm", value: "r")])) == nil)
        #expect(DigestChallenge(AuthenticationChallenge(scheme: "Basic", parameters: [.init(name: "nonce", value: "n")])) == nil)
        var stale = Self.challenge()
        stale.stale = true
        #expect(stale.headerValue == #"Digest realm="sandbox", qop="auth", algorithm=MD5, nonce="nonce1", opaque="op", stale=true"#)
    }

    @Test("Server rejects malformed or inconsistent credentials")
    func serverRejects() throws {
        let answer = try #require(Self.credentials.authorization(
            for: Self.challenge(), method: "GET", uri: "/x", clientNonce: "cn"))
        let verify = { (change: (inout DigestAuthorization) -> Void) -> DigestVerification in
            var copy = answer
            change(&copy)
            return copy.verify(username: "test", password: "12345", method: "GET", issuedNonce: "nonce1")
        }
        #expect(verify { _ in } == .valid)
        #expect(verify { $0.response = $0.response.uppercased() } == .valid)
        #expect(verify { $0.nonceCount = "1" } == .invalid)
        #expect(verify { $0.nonceCount = "0000000g" } == .invalid)
        #expect(verify { $0.nonceCount = nil } == .invalid)
        #expect(verify { $0.clientNonce = nil } == .invalid)
        #expect(verify { $0.clientNonce = "other" } == .invalid)
        #expect(verify { $0.qop = "auth-conf" } == .invalid)
        #expect(verify { $0.qop = nil } == .invalid)
        #expect(verify { $0.algorithmName = "SHA-256" } == .invalid)
        #expect(verify { $0.algorithmName = "SHA-512-256" } == .invalid)
        #expect(verify { $0.uri = "/y" } == .invalid)
        #expect(verify { $0.realm = "other" } == .invalid)
        #expect(verify { $0.username = "TEST" } == .invalid)
        #expect(verify { $0.response = "" } == .invalid)
        #expect(DigestAuthorization(headerValue: "Basic dGVzdDoxMjM0NQ==") == nil)
        #expect(DigestAuthorization(headerValue: #"Digest username="u", nonce="n", uri="/""#) == nil)
        #expect(DigestAuthorization(headerValue: "") == nil)
    }

    @Test("Client nonces are random lowercase hex; nc is eight hex digits")
    func clientNonce() {
        let first = DigestCredentials.makeClientNonce(), second = DigestCredentials.makeClientNonce()
        #expect(first.count == 32 && first != second)
        #expect(Hex.decode(first)?.count == 16)
        #expect(first == first.lowercased())
        #expect(DigestCredentials.makeClientNonce(byteCount: 4).count == 8)
        #expect(DigestCredentials.formatNonceCount(1) == "00000001")
        #expect(DigestCredentials.formatNonceCount(0xABCDEF12) == "abcdef12")
        #expect(DigestAuthorization.isValidNonceCount("0000000A"))
        #expect(!DigestAuthorization.isValidNonceCount("000000001"))
    }

    @Test("A fresh random cnonce is generated when none is given")
    func generatedClientNonce() throws {
        let first = try #require(Self.credentials.authorization(for: Self.challenge(), method: "GET", uri: "/"))
        let second = try #require(Self.credentials.authorization(for: Self.challenge(), method: "GET", uri: "/"))
        #expect(first.clientNonce?.count == 32)
        #expect(first.clientNonce != second.clientNonce)
        #expect(first.response != second.response)
    }
}
