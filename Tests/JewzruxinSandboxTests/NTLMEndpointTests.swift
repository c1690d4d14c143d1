import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox
import JewzruxinAuth

@Suite("NTLM and Negotiate endpoints", .onItsOwnThread)
struct NTLMEndpointTests {
    /// One request on `client`'s connection, with an optional `Authorization`.
    static func send(_ client: RawHTTPClient, _ target: String, authorization: String? = nil) throws -> RawResponse {
        let header = authorization.map { "Authorization: \($0)\r\n" } ?? ""
        return try client.exchange(TestSupport.getRequest(target, extraHeaders: header))
    }

    /// Runs the handshake on `client`'s connection: negotiate, then the answer to the challenge.
    static func handshake(
        _ client: RawHTTPClient, _ target: String, user: String = "test", password: String = "12345", domain: String = ""
    ) throws -> RawResponse {
        let challenge = try send(client, target, authorization: Sandbox.ntlmNegotiation())
        #expect(challenge.status == 401)
        let header = try #require(challenge.header("WWW-Authenticate"))
        let answer = try #require(Sandbox.ntlmAuthorization(answering: header, user: user, password: password, domain: domain))
        return try send(client, target, authorization: answer)
    }

    /// The JSON of an authenticated response.
    struct Report: Decodable, Equatable {
        var authenticated: Bool
        var scheme: String
        var user: String
        var domain: String
        var workstation: String
        var method: String
        var bodyLength: Int
    }

    static func report(_ response: RawResponse) throws -> Report {
        try JSONDecoder().decode(Report.self, from: response.body)
    }

    @Test("without an NTLM message: 401 with a bare NTLM challenge")
    func bareChallenge() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        for authorization in [nil, "Basic dGVzdDoxMjM0NQ==", "NTLM", "NTLM !!!"] {
            let response = try Self.send(client, "/auth/ntlm/test/12345/", authorization: authorization)
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate") == "NTLM")
            #expect(response.text == "Unauthorized")
        }
    }

    @Test("a negotiate message gets a challenge message: random, with target information, extended session security")
    func challengeMessage() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        var challenges: Set<[UInt8]> = []
        for unicode in [true, false] {
            let response = try Self.send(client, "/auth/ntlm/test/12345/", authorization: Sandbox.ntlmNegotiation(unicode: unicode))
            #expect(response.status == 401)
            let header = try #require(response.header("WWW-Authenticate"))
            let bytes = try #require(NTLM.message(inHeader: header))
            let challenge = try #require(NTLMChallengeMessage(bytes: bytes))
            #expect(challenge.flags.isSuperset(of: [.ntlm, .extendedSessionSecurity, .targetInfo]))
            #expect(challenge.flags.contains(.unicode) == unicode)
            #expect(challenge.flags.contains(.oem) == !unicode)
            #expect(challenge.targetName == "SANDBOX")
            #expect(challenge.targetInfo.count > 4)
            challenges.insert(challenge.serverChallenge)
        }
        #expect(challenges.count == 2)
    }

    @Test("the right NTLMv2 answer on the same connection: 200 and who authenticated", arguments: [
        ("test", "12345", "", "test"), ("TEST", "12345", "SANDBOX", "test"), ("jane.doe", "p%C3%A4ss%20word", "CORP", "jane.doe"),
    ])
    func success(user: String, encodedPassword: String, domain: String, pathUser: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let target = "/auth/ntlm/\(pathUser)/\(encodedPassword)/"
        let password = try #require(encodedPassword.removingPercentEncoding)
        let response = try Self.handshake(client, target, user: user, password: password, domain: domain)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(try Self.report(response) == Report(
            authenticated: true, scheme: "NTLM", user: user, domain: domain, workstation: "TESTS", method: "GET", bodyLength: 0))
    }

    @Test("an authenticated connection's later requests pass without Authorization; another connection's don't")
    func connectionStaysAuthenticated() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        #expect(try Self.handshake(client, "/auth/ntlm/test/12345/").status == 200)
        let again = try Self.send(client, "/auth/ntlm/test/12345")
        #expect(again.status == 200)
        #expect(try Self.report(again).user == "test")
        // Another endpoint (another user or password) on the same connection is not covered.
        #expect(try Self.send(client, "/auth/ntlm/test/54321/").status == 401)
        let other = try RawHTTPClient(port: sandbox.port)
        #expect(try Self.send(other, "/auth/ntlm/test/12345/").status == 401)
    }

    @Test("refusals say why: wrong password, wrong user, answer on another connection, no challenge, replay")
    func refusals() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/auth/ntlm/test/12345/"
        let wrongPassword = try Self.handshake(try RawHTTPClient(port: sandbox.port), target, password: "54321")
        #expect(wrongPassword.status == 401)
        #expect(wrongPassword.header("WWW-Authenticate") == "NTLM")
        #expect(wrongPassword.text == "Unauthorized: the NTLMv2 answer is wrong")
        let wrongUser = try Self.handshake(try RawHTTPClient(port: sandbox.port), target, user: "other")
        #expect(wrongUser.text == "Unauthorized: the answer is for another user")

        // The challenge is bound to the connection it was sent on.
        let first = try RawHTTPClient(port: sandbox.port)
        let challenge = try Self.send(first, target, authorization: Sandbox.ntlmNegotiation())
        let header = try #require(challenge.header("WWW-Authenticate"))
        let answer = try #require(Sandbox.ntlmAuthorization(answering: header, user: "test", password: "12345"))
        let second = try RawHTTPClient(port: sandbox.port)
        #expect(try Self.send(second, target, authorization: answer).text == "Unauthorized: no challenge was sent on this connection")
        // On its own connection the answer passes, once: replayed, it finds no challenge.
        #expect(try Self.send(first, target, authorization: answer).status == 200)
        #expect(try Self.send(first, "/auth/ntlm/other/x/", authorization: answer).text
            == "Unauthorized: no challenge was sent on this connection")
    }

    @Test("malformed messages and NTLMv1 answers are refused, never a 500")
    func malformed() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = "/auth/ntlm/test/12345/"
        let client = try RawHTTPClient(port: sandbox.port)
        let truncatedNegotiate = NTLM.headerValue(Array(NTLMNegotiateMessage(flags: [.unicode]).bytes.prefix(10)))
        #expect(try Self.send(client, target, authorization: truncatedNegotiate).text
            == "Unauthorized: not an NTLM negotiate or authenticate message")
        // A type 3 cut short, after a real challenge.
        _ = try Self.send(client, target, authorization: Sandbox.ntlmNegotiation())
        let cut = NTLM.headerValue(NTLM.signature + [3, 0, 0, 0] + [UInt8](repeating: 0, count: 20))
        #expect(try Self.send(client, target, authorization: cut).text == "Unauthorized: the authenticate message is malformed")
        // A 24-byte (NTLMv1) answer.
        _ = try Self.send(client, target, authorization: Sandbox.ntlmNegotiation())
        let v1 = NTLMAuthenticateMessage(
            flags: [.unicode, .ntlm], lmResponse: [UInt8](repeating: 1, count: 24), ntResponse: [UInt8](repeating: 2, count: 24),
            domain: "", user: "test", workstation: "")
        #expect(try Self.send(client, target, authorization: NTLM.headerValue(v1.bytes)).text
            == "Unauthorized: only NTLMv2 answers are accepted")
        // A challenge message sent to the server.
        let challenge = NTLMChallengeMessage(flags: [.unicode], serverChallenge: [1, 2, 3, 4, 5, 6, 7, 8], targetName: "X", targetInfo: [])
        #expect(try Self.send(client, target, authorization: NTLM.headerValue(challenge.bytes)).status == 401)
        // The endpoint needs a user and a password.
        #expect(try Self.send(client, "/auth/ntlm/test/").status == 400)
        #expect(try Self.send(client, "/auth/ntlm/test/1/2/").status == 400)
    }

    @Test("a closed connection's handshake is forgotten")
    func forgottenOnClose() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        #expect(try Self.handshake(client, "/auth/ntlm/test/12345/").status == 200)
        #expect(sandbox.ntlmConnectionCount == 1)
        client.close()
        let deadline = Date().addingTimeInterval(5)
        while sandbox.ntlmConnectionCount > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(sandbox.ntlmConnectionCount == 0)
    }

    @Test("/auth/negotiate only ever offers Negotiate")
    func negotiate() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let bare = try Self.send(client, "/auth/negotiate/")
        #expect(bare.status == 401)
        #expect(bare.values(for: "WWW-Authenticate") == ["Negotiate"])
        #expect(bare.text == "Unauthorized")
        let token = try Self.send(client, "/auth/negotiate", authorization: "Negotiate YIIBhgYGKwYBBQUCoIIBejCCAXag")
        #expect(token.status == 401)
        #expect(token.values(for: "WWW-Authenticate") == ["Negotiate"])
        #expect(token.text.hasPrefix("Unauthorized: "))
    }
}
