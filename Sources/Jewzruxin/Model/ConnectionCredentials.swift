import Foundation

/// An authentication scheme whose handshake is bound to one connection, so that the transport
/// runs it rather than the engine: NTLM, and Negotiate (SPNEGO, usually Kerberos).
///
/// The engine answers Basic and Digest by resending the request with an `Authorization` header,
/// possibly on another connection. NTLM authenticates the connection its messages go on, and a
/// Negotiate token is made by the system's GSS-API for the connection's server: the transport must
/// send every message of the handshake itself, on the connection it keeps.
enum ConnectionAuthenticationScheme: String, Sendable, Hashable, CaseIterable {
    case ntlm = "NTLM"
    case negotiate = "Negotiate"

    /// The scheme a challenge's scheme name (any case) stands for, if it is one of these.
    init?(challengeScheme name: String) {
        guard let scheme = Self.allCases.first(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.rawValue, name) }) else {
            return nil
        }
        self = scheme
    }
}

/// The credentials a cycle has for a connection-based scheme, as the engine hands them to the
/// transport with each request (``HTTPRequest/connectionCredentials``).
struct ConnectionCredential: Sendable, Hashable {
    /// A user name and password, and the domain NTLM may name.
    struct Account: Sendable, Hashable {
        var username: String
        var password: String
        var domain: String?
    }

    let scheme: ConnectionAuthenticationScheme
    /// The account to use; `nil` for the system's credentials (Negotiate's Kerberos tickets).
    let account: Account?
}

/// A challenge of a scheme the transport was given credentials for and could not answer: carried
/// by the head of the final 401 (``HTTPResponseHead/unansweredChallenge``), for the engine to end
/// the cycle with ``HTTPError/authenticationUnavailable(scheme:reason:response:)``.
struct UnansweredChallenge: Sendable, Hashable {
    let scheme: ConnectionAuthenticationScheme
    /// Why, in a sentence that names the scheme.
    let reason: String
}
