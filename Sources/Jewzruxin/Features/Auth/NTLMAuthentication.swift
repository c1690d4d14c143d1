import Foundation

/// Answers NTLM challenges (`WWW-Authenticate: NTLM`, MS-NLMP) with a user name, a password and
/// optionally a domain, on the transports that can run NTLM: the curl transport, with a libcurl
/// built with NTLM (`CurlLibrary.Features.ntlm`; the system's libcurl of Debian,
/// Ubuntu and Red Hat is).
///
/// ```swift
/// let session = HTTPSession(configuration: .init(), transport: .curl)
/// session.authentications = [NTLMAuthentication(username: "jane", password: "secret", domain: "CORP")]
/// let cycle = try await HTTPCycle.get("http://intranet.corp/report", session: session)
/// ```
///
/// NTLM authenticates a connection, not a request: the negotiate, challenge and authenticate
/// messages must all go on one connection, which is the transport's, not the engine's. So this
/// authentication answers no challenge itself (its
/// ``authorization(for:request:previousFailureCount:)`` is `nil`): the engine hands its credentials
/// to the transport before each request of the cycle goes, and libcurl runs the handshake when a
/// 401 asks for NTLM (a server that doesn't sees no NTLM message), NTLMv2 when the server offers
/// extended session security. The intermediate 401s never reach the content
/// handler or the response: the cycle sees the final answer only. Wrong credentials end in that
/// 401 (``HTTPError/statusCodeSeemsToHaveErred(_:)``), as with ``BasicAuthentication``.
///
/// Where NTLM can't be run — the native transport, URLSession (FoundationNetworking has no NTLM),
/// a libcurl without it — a 401 that challenges with NTLM ends the cycle with
/// ``HTTPError/authenticationUnavailable(scheme:reason:response:)`` saying so, rather than a bare
/// 401.
///
/// libcurl sends the user name, domain and password as bytes: past ASCII, they don't match the
/// UTF-16 names a Windows server compares. Put it first when a cycle has a
/// ``NegotiateAuthentication`` too and no Kerberos ticket: libcurl prefers Negotiate when a server
/// offers both, and doesn't fall back to NTLM when it fails.
public final class NTLMAuthentication: Authentication, @unchecked Sendable {
    // @unchecked: like the base class; the stored properties are immutable.

    /// The user name.
    public let username: String
    /// The password.
    public let password: String
    /// The user's domain, if any.
    public let domain: String?

    /// Creates an authentication that runs NTLM with these credentials.
    ///
    /// - Parameters:
    ///   - username: The user name. With `domain` `nil`, `DOMAIN\user` names the domain too.
    ///   - password: The password.
    ///   - domain: The user's domain (`CORP`), or `nil` for none.
    public init(username: String, password: String, domain: String? = nil) {
        self.username = username
        self.password = password
        self.domain = domain
    }

    /// `nil`: the transport answers NTLM challenges, on the connection it keeps.
    public override func authorization(
        for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int
    ) -> String? {
        nil
    }
}

extension NTLMAuthentication: ConnectionAuthenticator {
    var connectionCredential: ConnectionCredential {
        ConnectionCredential(scheme: .ntlm, account: .init(username: username, password: password, domain: domain))
    }
}
