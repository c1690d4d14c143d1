import Foundation

/// Answers Negotiate challenges (`WWW-Authenticate: Negotiate`, SPNEGO, RFC 4559): Kerberos with
/// the system's credentials, on the transports that can run it: the curl transport, with a
/// libcurl built with SPNEGO (`CurlLibrary.Features.spnego`, through GSS-API).
///
/// ```swift
/// // After `kinit jane@CORP.EXAMPLE`:
/// let session = HTTPSession(configuration: .init(), transport: .curl)
/// session.authentications = [NegotiateAuthentication()]
/// let cycle = try await HTTPCycle.get("https://intranet.corp.example/report", session: session)
/// ```
///
/// Like NTLM, Negotiate authenticates the connection its token goes on, and the token is made for
/// that connection's server, so this authentication answers no challenge itself
/// (``authorization(for:request:previousFailureCount:)`` is `nil`): the engine hands it to the
/// transport with each request and libcurl runs the exchange, asking GSS-API for a ticket for
/// `HTTP@host` from the user's credential cache (`KRB5CCNAME`, or the default one). The cycle sees
/// the final response only.
///
/// When libcurl can't complete the exchange — no ticket in the cache, a server the KDC doesn't
/// know, or a token the server refused — or the transport can't run Negotiate at all (native,
/// URLSession, a libcurl without SPNEGO), a 401 that challenges with Negotiate ends the cycle with
/// ``HTTPError/authenticationUnavailable(scheme:reason:response:)`` saying why, promptly.
///
/// A user name and password are for libcurls that negotiate through Windows' SSPI, which uses
/// them; with GSS-API (Linux, macOS) libcurl ignores them and the credential cache decides: get a
/// ticket with `kinit` first.
public final class NegotiateAuthentication: Authentication, @unchecked Sendable {
    // @unchecked: like the base class; the stored properties are immutable.

    /// The user name given, `nil` to use the system's credentials.
    public let username: String?
    /// The password given, `nil` to use the system's credentials.
    public let password: String?

    /// Creates an authentication that runs Negotiate with the system's credentials (the Kerberos
    /// credential cache).
    public override init() {
        username = nil
        password = nil
    }

    /// Creates an authentication that runs Negotiate with these credentials, where the system's
    /// Negotiate takes them (SSPI); GSS-API uses its credential cache whatever is given here.
    ///
    /// - Parameters:
    ///   - username: The user name (`jane@CORP.EXAMPLE`, or `CORP\jane`).
    ///   - password: The password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// `nil`: the transport answers Negotiate challenges, on the connection it keeps.
    public override func authorization(
        for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int
    ) -> String? {
        nil
    }
}

extension NegotiateAuthentication: ConnectionAuthenticator {
    var connectionCredential: ConnectionCredential {
        let account = username.map { ConnectionCredential.Account(username: $0, password: password ?? "", domain: nil) }
        return ConnectionCredential(scheme: .negotiate, account: account)
    }
}
