import Foundation
import JewzruxinAuth

// Connection-based authentication endpoints: NTLM, which the sandbox runs for real, and
// Negotiate, which it only offers. Refusals are 401, `text/plain; charset=utf-8`, with a body
// `Unauthorized` or `Unauthorized: <why>`; any method.
//
// | Path                          | Behaviour                                                   |
// |-------------------------------|-------------------------------------------------------------|
// | /auth/ntlm/<user>/<password>/ | NTLM (MS-NLMP) for that user and password (percent-decoded): |
// |                               | no NTLM message: 401 `WWW-Authenticate: NTLM`;              |
// |                               | a negotiate message (type 1): 401 `NTLM <challenge>`, a     |
// |                               |   type 2 with a random challenge, bound to the connection; |
// |                               | an authenticate message (type 3) on that connection, for    |
// |                               |   the user (any case) with the right NTLMv2 answer: 200     |
// |                               |   JSON `{"authenticated":true,"bodyLength","domain",        |
// |                               |   "method","scheme":"NTLM","user","workstation"}`, and the  |
// |                               |   connection's later requests to the endpoint pass without  |
// |                               |   `Authorization`;                                          |
// |                               | anything else (an answer on another connection, NTLMv1, a   |
// |                               |   wrong user or password, a malformed message): 401         |
// |                               |   `WWW-Authenticate: NTLM`, the body saying why.            |
// | /auth/negotiate/              | 401 `WWW-Authenticate: Negotiate` whatever is sent: the     |
// |                               |   sandbox has no Kerberos service key to accept a token.    |

extension Sandbox {
    /// The target name of the sandbox's NTLM challenges.
    static let ntlmTargetName = "SANDBOX"

    /// Adds the NTLM and Negotiate endpoints.
    static func registerConnectionAuthEndpoints(on core: ServerCore) {
        let connections = core.ntlmConnections
        core.addRoute("/auth/ntlm/*", guarded { request throws(ParameterError) in
            try ntlmAuth(request, connections: connections)
        })
        core.addRoute("/auth/negotiate") { request in
            guard request.headers["Authorization"] != nil else { return unauthorized(challenge: "Negotiate") }
            return unauthorized(challenge: "Negotiate", because: "the sandbox can't accept a Negotiate token (it has no Kerberos key)")
        }
    }

    /// A 401 carrying `challenge`, its body `Unauthorized: <why>`.
    static func unauthorized(challenge: String, because why: String) -> SandboxResponse {
        var response = unauthorized(challenge: challenge)
        response.body = .text("Unauthorized: " + why)
        return response
    }

    /// The normalized path of an `/auth/ntlm/<user>/<password>` request, and its user and password.
    static func ntlmEndpoint(_ request: SandboxRequest) throws(ParameterError) -> (endpoint: String, user: String, password: String) {
        let endpoint = ServerCore.normalize(request.path)
        let segments = endpoint.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5, !segments[3].isEmpty else {
            throw ParameterError("use /auth/ntlm/<user>/<password>/ (percent-encoded)")
        }
        return (endpoint, SandboxRequest.percentDecode(segments[3]), SandboxRequest.percentDecode(segments[4]))
    }

    /// Runs the NTLM handshake of `request`'s connection (rules in the table at the top).
    static func ntlmAuth(_ request: SandboxRequest, connections: NTLMConnectionStore) throws(ParameterError) -> SandboxResponse {
        let (endpoint, user, password) = try ntlmEndpoint(request)
        func refusal(_ why: String) -> SandboxResponse { unauthorized(challenge: "NTLM", because: why) }
        guard let header = request.headers["Authorization"], let message = NTLM.message(inHeader: header) else {
            if let identity = connections.identity(request.connection, endpoint: endpoint) { return authenticated(identity, request) }
            return unauthorized(challenge: "NTLM")
        }
        switch NTLM.messageType(of: message) {
        case 1?:
            guard let negotiate = NTLMNegotiateMessage(bytes: message) else { return refusal("the negotiate message is malformed") }
            let challenge = ntlmChallenge(for: negotiate, serverChallenge: connections.challenge(request.connection))
            return unauthorized(challenge: NTLM.headerValue(challenge.bytes))
        case 3?:
            guard let serverChallenge = connections.takeChallenge(request.connection) else {
                return refusal("no challenge was sent on this connection")
            }
            guard let answer = NTLMAuthenticateMessage(bytes: message) else { return refusal("the authenticate message is malformed") }
            guard answer.ntResponse.count >= NTLM.minimumResponseV2ByteCount else { return refusal("only NTLMv2 answers are accepted") }
            guard NTLM.uppercased(answer.user) == NTLM.uppercased(user) else { return refusal("the answer is for another user") }
            guard NTLM.verifyResponseV2(
                answer.ntResponse, serverChallenge: serverChallenge, user: answer.user, domain: answer.domain, password: password)
            else { return refusal("the NTLMv2 answer is wrong") }
            let identity = NTLMConnectionStore.Identity(user: answer.user, domain: answer.domain, workstation: answer.workstation)
            connections.authenticate(request.connection, endpoint: endpoint, identity: identity)
            return authenticated(identity, request)
        default:
            return refusal("not an NTLM negotiate or authenticate message")
        }
    }

    /// The challenge answering `negotiate`: its string encoding (UTF-16 when it offers it),
    /// extended session security, which makes libcurl answer with NTLMv2, and target
    /// information, which NTLMv2 answers include.
    static func ntlmChallenge(for negotiate: NTLMNegotiateMessage, serverChallenge: [UInt8]) -> NTLMChallengeMessage {
        let encoding: NTLM.Flags = negotiate.flags.contains(.unicode) ? .unicode : .oem
        return NTLMChallengeMessage(
            flags: [encoding, .requestTarget, .ntlm, .alwaysSign, .targetTypeDomain, .extendedSessionSecurity, .targetInfo],
            serverChallenge: serverChallenge, targetName: ntlmTargetName,
            targetInfo: NTLM.targetInfo([
                (.netBIOSDomainName, ntlmTargetName), (.netBIOSComputerName, "JEWZRUXIN"),
                (.dnsDomainName, "sandbox.invalid"), (.dnsComputerName, "jewzruxin.sandbox.invalid"),
            ]))
    }

    /// What the NTLM endpoint answers an authenticated request: who, and the request's method and
    /// body size (a client sends the body of a POST once the handshake is over).
    struct NTLMReport: Encodable {
        let authenticated = true
        let scheme = "NTLM"
        let user: String
        let domain: String
        let workstation: String
        let method: String
        let bodyLength: Int
    }

    static func authenticated(_ identity: NTLMConnectionStore.Identity, _ request: SandboxRequest) -> SandboxResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let report = NTLMReport(
            user: identity.user, domain: identity.domain, workstation: identity.workstation, method: request.method,
            bodyLength: request.body.count)
        do {
            return .json(try encoder.encode(report))
        } catch {
            return .error(500, "cannot encode the NTLM report: \(error)")
        }
    }
}

extension Sandbox {
    /// `NTLM <negotiate message>`, as a client opens the handshake (UTF-16 offered), so the
    /// sandbox's own tests can run it.
    static func ntlmNegotiation(unicode: Bool = true) -> String {
        NTLM.headerValue(NTLMNegotiateMessage(
            flags: [unicode ? .unicode : .oem, .requestTarget, .ntlm, .alwaysSign, .extendedSessionSecurity]).bytes)
    }

    /// `NTLM <authenticate message>` answering the challenge in `challenge` (a `WWW-Authenticate`
    /// value) with NTLMv2, or `nil` when it holds no challenge message.
    static func ntlmAuthorization(
        answering challenge: String, user: String, password: String, domain: String = "", workstation: String = "TESTS"
    ) -> String? {
        guard let bytes = NTLM.message(inHeader: challenge), let parsed = NTLMChallengeMessage(bytes: bytes) else { return nil }
        let answer = NTLMAuthenticateMessage(
            answering: parsed, user: user, password: password, domain: domain, workstation: workstation,
            clientChallenge: (0..<8).map { _ in UInt8.random(in: 0...255) }, timestamp: 133_000_000_000_000_000)
        return NTLM.headerValue(answer.bytes)
    }
}
