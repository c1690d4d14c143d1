import CJewzruxinCurl
import Foundation
import JewzruxinAuth

/// NTLM and Negotiate on the curl transport: what a transfer hands libcurl so that it runs their
/// handshake on its connection, and how the transfer tells, from the heads libcurl read, whether it
/// could.
///
/// The engine answers Basic and Digest itself, on every transport, and libcurl's own
/// authentication stays off for them. NTLM and Negotiate authenticate the connection their
/// messages go on, which only libcurl holds: for a request with their credentials
/// (``HTTPRequest/connectionCredentials``), the transfer sets `CURLOPT_HTTPAUTH` to the schemes
/// this libcurl was built with, and `CURLOPT_USERNAME` and `CURLOPT_PASSWORD`. libcurl then reads
/// several responses in the one transfer — the 401s it answers, whose bodies it skips — and the
/// head reader holds each until the next or the body shows which is the response.
///
/// With `CURLAUTH_ONLY`, libcurl sends the request as it would without credentials and starts a
/// handshake only when a 401 offers one of the schemes, as the engine answers Basic: a server
/// that asks for nothing sees no NTLM message, and a POST's body goes at once (libcurl's first
/// message of a handshake it starts unasked carries no body, which a server may refuse). A
/// connection libcurl has authenticated stays so, and the next requests on it go as they are.
struct CurlConnectionAuthentication {
    /// The schemes handed to libcurl, in the order libcurl prefers them when a server offers both:
    /// Negotiate, then NTLM.
    let schemes: [ConnectionAuthenticationScheme]
    /// `CURLOPT_HTTPAUTH`: `CURLAUTH_NEGOTIATE` and `CURLAUTH_NTLM` bits, and `CURLAUTH_ONLY`.
    let bitmask: Int
    /// `CURLOPT_USERNAME`: NTLM's `DOMAIN\user`, or Negotiate's user name; empty for Negotiate
    /// with the system's credentials (libcurl runs no authentication without a user name set).
    let username: String
    /// `CURLOPT_PASSWORD`.
    let password: String

    /// What to hand libcurl for `request`; `nil` when it has no credentials for a scheme this
    /// libcurl was built with, or carries an `Authorization` of its own (the engine's answer to
    /// another scheme, or the caller's), which libcurl would send beside its own.
    init?(for request: HTTPRequest, features: CurlLibrary.Features) {
        guard request.value(forHTTPHeaderField: "Authorization") == nil else { return nil }
        let credentials = request.connectionCredentials.filter { Self.isBuilt($0.scheme, in: features) }
        guard !credentials.isEmpty else { return nil }
        schemes = ConnectionAuthenticationScheme.allCases.reversed().filter { scheme in credentials.contains { $0.scheme == scheme } }
        bitmask = credentials.reduce(Int(JZ_AUTH_ONLY)) { $0 | Int($1.scheme == .ntlm ? JZ_AUTH_NTLM : JZ_AUTH_NEGOTIATE) }
        // One user name for both: NTLM's, which needs one, else Negotiate's.
        let account = (credentials.first { $0.scheme == .ntlm } ?? credentials.first)?.account
        if let account, let domain = account.domain, !domain.isEmpty {
            username = domain + "\\" + account.username
        } else {
            username = account?.username ?? ""
        }
        password = account?.password ?? ""
    }

    /// Whether a libcurl with `features` runs `scheme`.
    static func isBuilt(_ scheme: ConnectionAuthenticationScheme, in features: CurlLibrary.Features) -> Bool {
        switch scheme {
        case .ntlm: features.contains(.ntlm)
        case .negotiate: features.contains(.spnego)
        }
    }

    /// The challenge of a scheme handed to libcurl that the response `final` still makes, when
    /// libcurl didn't answer it during the transfer; `nil` for any other response, and for a 401
    /// that refused an answer: one of the `replaced` heads (those libcurl answered) carried a
    /// challenge message of that scheme (NTLM's type 2), so libcurl sent its credentials.
    ///
    /// libcurl answers no Negotiate challenge without a Kerberos ticket, and doesn't say so: it
    /// ends the transfer with the 401, which is how the transfer tells.
    func unanswered(final: CurlHeadReader.Head, replaced: [CurlHeadReader.Head], url: URL) -> UnansweredChallenge? {
        guard final.status == 401 else { return nil }
        let challenges = Self.challenges(in: final)
        guard let scheme = schemes.first(where: { scheme in challenges.contains { $0.hasScheme(scheme.rawValue) } }) else { return nil }
        let answered = replaced.contains { head in
            head.status == 401 && Self.challenges(in: head).contains { $0.hasScheme(scheme.rawValue) && $0.token68 != nil }
        }
        guard !answered else { return nil }
        let host = url.host ?? "the server"
        switch scheme {
        case .negotiate:
            var reason = "libcurl could not complete the Negotiate (SPNEGO) exchange with \(host): GSS-API has no Kerberos ticket "
                + "for HTTP@\(host) (none in the credential cache: kinit gets one; or the KDC doesn't know the server), "
                + "or the server refused the token"
            if schemes.contains(.ntlm), challenges.contains(where: { $0.hasScheme("NTLM") }) {
                reason += "; libcurl prefers Negotiate to NTLM when a server offers both, and doesn't fall back: "
                    + "give this server's cycles an NTLMAuthentication alone"
            }
            return UnansweredChallenge(scheme: .negotiate, reason: reason)
        case .ntlm:
            return UnansweredChallenge(
                scheme: .ntlm, reason: "libcurl could not run the NTLM handshake with \(host): the server sent no NTLM challenge "
                    + "message in answer to libcurl's negotiate message")
        }
    }

    /// The challenges of a head's `WWW-Authenticate` fields.
    private static func challenges(in head: CurlHeadReader.Head) -> [AuthenticationChallenge] {
        head.fields.filter { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, "WWW-Authenticate") }
            .flatMap { AuthenticationChallenge.parse($0.value) }
    }
}

extension CurlTransport: ConnectionAuthenticatingTransport {
    /// `nil` when the system's libcurl was built with `scheme`; otherwise why not.
    func unavailability(of scheme: ConnectionAuthenticationScheme) -> String? {
        guard let library = settings.library else {
            return "the curl transport runs \(scheme.rawValue) with libcurl, which could not be loaded"
        }
        guard !CurlConnectionAuthentication.isBuilt(scheme, in: library.features) else { return nil }
        let feature = scheme == .ntlm ? "NTLM" : "SPNEGO (GSS-API)"
        return "the system's libcurl (\(library.name) \(library.version)) was built without \(feature)"
    }
}
