import Foundation
import JewzruxinAuth

/// An authenticator for a scheme the transport runs on the connection (NTLM, Negotiate): the
/// engine can't answer its challenges with a header on a new request, so it gives the transport
/// its credential with every request of the cycle (``HTTPRequest/connectionCredentials``) instead.
///
/// Its ``HTTPAuthenticator/authorization(for:request:previousFailureCount:)`` answers nothing.
/// `NTLMAuthentication` and `NegotiateAuthentication` conform.
protocol ConnectionAuthenticator: HTTPAuthenticator {
    /// The scheme and the credentials the transport is to use.
    var connectionCredential: ConnectionCredential { get }
}

/// A transport's word on the connection-based schemes: which it runs, and why it can't run the
/// others. A transport that doesn't conform runs none.
protocol ConnectionAuthenticatingTransport: HTTPTransport {
    /// Why this transport can't answer `scheme`'s challenges, in a sentence; `nil` when it hands
    /// the credentials of requests to something that runs the handshake.
    func unavailability(of scheme: ConnectionAuthenticationScheme) -> String?
}

extension HTTPCycle {
    /// The credentials of the connection-based schemes among `authentications`, the first for each
    /// scheme, in their order.
    static func connectionCredentials(in authentications: [any HTTPAuthenticator]) -> [ConnectionCredential] {
        var credentials: [ConnectionCredential] = []
        for case let authenticator as any ConnectionAuthenticator in authentications {
            let credential = authenticator.connectionCredential
            if !credentials.contains(where: { $0.scheme == credential.scheme }) { credentials.append(credential) }
        }
        return credentials
    }

    /// What a 401 that nothing answered ends the cycle with when it challenges with a
    /// connection-based scheme the request had credentials for, and that can't be used: the
    /// transport couldn't run the handshake (it said why on the head), or can't run that scheme at
    /// all. `nil` when the request had no such credentials, the 401 offers no such scheme, or the
    /// transport ran the handshake and the server refused it: the 401 then stands, as for wrong
    /// Basic credentials.
    func unavailableAuthentication(_ response: HTTPResponse, sent: HTTPRequest) -> HTTPError? {
        guard !sent.connectionCredentials.isEmpty,
              let header = response.value(forHTTPHeaderField: "WWW-Authenticate")
        else { return nil }
        let offered = Set(AuthenticationChallenge.parse(header).compactMap { ConnectionAuthenticationScheme(challengeScheme: $0.scheme) })
        let usable = sent.connectionCredentials.map(\.scheme).filter(offered.contains)
        guard let first = usable.first else { return nil }
        if let unanswered = response.unansweredChallenge {
            return .authenticationUnavailable(scheme: unanswered.scheme.rawValue, reason: unanswered.reason, response: response)
        }
        let transport = session.transport(for: sent.url)
        var reasons: [String] = []
        for scheme in usable {
            guard let reason = Self.unavailability(of: scheme, on: transport) else { return nil }
            reasons.append(reason)
        }
        return .authenticationUnavailable(scheme: first.rawValue, reason: reasons.joined(separator: "; "), response: response)
    }

    /// Why `transport` can't answer `scheme`'s challenges, `nil` when it can.
    static func unavailability(of scheme: ConnectionAuthenticationScheme, on transport: any HTTPTransport) -> String? {
        if let transport = transport as? any ConnectionAuthenticatingTransport { return transport.unavailability(of: scheme) }
        return "this session's transport (\(type(of: transport))) doesn't run \(scheme.rawValue) handshakes, which must go "
            + "on one connection from start to end; the curl transport does, with a libcurl built for \(scheme.rawValue)"
    }
}
