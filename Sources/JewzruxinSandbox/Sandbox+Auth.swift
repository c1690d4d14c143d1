import Foundation
import JewzruxinAuth

// Authentication endpoints. User `test`, password `12345`, realm `sandbox`; any method.
// Unauthorized answers are 401, `text/plain; charset=utf-8`, body `Unauthorized`;
// authorized ones 200 `Hello World`.
//
// | Path                           | Challenge (WWW-Authenticate)                              |
// |--------------------------------|-----------------------------------------------------------|
// | /hello_with_basic_auth/        | Basic realm="sandbox"                                     |
// | /hello_with_basic_auth_norealm/| Basic                                                     |
// | /digest_auth/<qop>/<alg>/      | Digest realm="sandbox", qop="<qop>", algorithm=<alg>,     |
// |   qop: auth, auth-int, none    |   nonce="<32 hex>", opaque="<24 hex>"[, stale=true]       |
// |   alg: MD5, SHA-256, MD5-sess, |   (no qop parameter for `none`: RFC 2069 answers)         |
// |        SHA-256-sess            |   query stale_after=N: each nonce serves N requests       |
//
// Digest requests are accepted when the Authorization header has username `test`, realm
// `sandbox`, the issued opaque, uri equal to the request target, the endpoint's algorithm
// and qop, an `nc` (eight hex digits) greater than any accepted before for that nonce, and
// the right response for a nonce that is current. A right response with an unknown,
// forgotten or used-up nonce gets 401 with `stale=true` and a fresh nonce; anything else
// gets 401 with a fresh challenge.

extension Sandbox {
    /// The user name the authentication endpoints accept.
    static let authUsername = "test"
    /// The password the authentication endpoints accept.
    static let authPassword = "12345"
    /// The realm of every authentication challenge.
    static let authRealm = "sandbox"
    /// The largest `/digest_auth/…?stale_after=`.
    static let maximumNonceUses: Int64 = 1_000_000

    /// Adds the Basic and Digest endpoints, sharing the sandbox's nonce store.
    static func registerAuthEndpoints(on core: ServerCore) {
        core.addRoute("/hello_with_basic_auth") { basicAuth($0, challenge: "Basic realm=\"\(authRealm)\"") }
        core.addRoute("/hello_with_basic_auth_norealm") { basicAuth($0, challenge: "Basic") }
        let nonces = core.digestNonces
        core.addRoute("/digest_auth/*", guarded { request throws(ParameterError) in
            try digestAuth(request, nonces: nonces)
        })
    }

    /// A 401 carrying `challenge` in `WWW-Authenticate`.
    static func unauthorized(challenge: String) -> SandboxResponse {
        var response = SandboxResponse.text("Unauthorized", status: 401)
        response.headers.add("WWW-Authenticate", challenge)
        return response
    }

    /// `Hello World` for `Authorization: Basic` with `test` / `12345`, otherwise a 401
    /// carrying `challenge`.
    static func basicAuth(_ request: SandboxRequest, challenge: String) -> SandboxResponse {
        let expected = BasicCredentials(username: authUsername, password: authPassword)
        guard let header = request.headers["Authorization"], BasicCredentials(authorization: header) == expected else {
            return unauthorized(challenge: challenge)
        }
        return .text("Hello World")
    }

    /// The qop (`nil` for `none`) and algorithm named by a `/digest_auth/<qop>/<algorithm>`
    /// path; throws for anything else.
    static func digestEndpoint(_ request: SandboxRequest) throws(ParameterError) -> (DigestQOP?, DigestAlgorithm) {
        let segments = ServerCore.normalize(request.path).split(separator: "/", omittingEmptySubsequences: false)
        let usage = "use /digest_auth/<qop>/<algorithm>/ with qop auth, auth-int or none "
            + "and algorithm MD5, SHA-256, MD5-sess or SHA-256-sess"
        guard segments.count == 4, let algorithm = DigestAlgorithm(token: String(segments[3])) else {
            throw ParameterError(usage)
        }
        switch segments[2] {
        case "none": return (nil, algorithm)
        case "auth": return (.auth, algorithm)
        case "auth-int": return (.authInt, algorithm)
        default: throw ParameterError(usage)
        }
    }

    /// Checks `Authorization: Digest` against the endpoint's qop and algorithm and the
    /// nonces in `nonces` (rules in the table at the top of this file).
    static func digestAuth(_ request: SandboxRequest, nonces: DigestNonceStore) throws(ParameterError) -> SandboxResponse {
        let (qop, algorithm) = try digestEndpoint(request)
        let staleAfter: Int? = request.queryValue("stale_after") == nil
            ? nil : Int(try integer(request, "stale_after", default: 0, in: 0...maximumNonceUses))
        /// A 401 with a fresh nonce.
        func challenge(stale: Bool) -> SandboxResponse {
            let challenge = DigestChallenge(
                realm: authRealm, nonce: nonces.issue(useLimit: staleAfter), opaque: nonces.opaque,
                qopOptions: qop.map { [$0.rawValue] } ?? [], algorithmName: algorithm.name, stale: stale)
            return unauthorized(challenge: challenge.headerValue)
        }
        guard let header = request.headers["Authorization"],
              let credentials = DigestAuthorization(headerValue: header),
              credentials.realm == authRealm, credentials.opaque == nonces.opaque,
              credentials.uri == request.target || credentials.uri == originForm(request),
              DigestAlgorithm(token: credentials.algorithmName) == algorithm,
              credentials.qop.flatMap(DigestQOP.init(token:)) == qop, (qop == nil) == (credentials.qop == nil)
        else { return challenge(stale: false) }
        let verdict = credentials.verify(
            username: authUsername, password: authPassword, method: request.method,
            entityBody: qop == .authInt ? [UInt8](request.body) : nil, isNonceCurrent: nonces.isCurrent)
        switch verdict {
        case .invalid:
            return challenge(stale: false)
        case .staleNonce:
            return challenge(stale: true)
        case .valid:
            switch nonces.admit(credentials.nonce, nonceCount: qop == nil ? nil : credentials.nonceCount) {
            case .accepted: return .text("Hello World")
            case .stale: return challenge(stale: true)
            case .replayed: return challenge(stale: false)
            }
        }
    }

    /// The path and query of the request target, for absolute-form targets.
    static func originForm(_ request: SandboxRequest) -> String {
        request.rawQuery.isEmpty ? request.path : request.path + "?" + request.rawQuery
    }
}

extension Sandbox {
    /// Answers a `/digest_auth/` challenge as user `test`, so the sandbox's own tests
    /// can run the whole exchange (FoundationNetworking's URLSession cannot answer
    /// Digest challenges).
    ///
    /// - Parameters:
    ///   - challenge: the `WWW-Authenticate` value of a 401.
    ///   - method: the method of the request to authorize.
    ///   - uri: its request target.
    ///   - nonceCount: the `nc` to send.
    ///   - body: its body (used with `auth-int`).
    ///   - password: the password to use; pass a wrong one to get a wrong answer.
    /// - Returns: an `Authorization` value, or `nil` if `challenge` cannot be answered.
    static func digestAuthorization(
        answering challenge: String, method: String = "GET", uri: String, nonceCount: UInt32 = 1,
        body: Data = Data(), password: String = authPassword
    ) -> String? {
        guard let parsed = DigestChallenge.preferred(in: AuthenticationChallenge.parse(challenge)) else { return nil }
        return DigestCredentials(username: authUsername, password: password)
            .authorization(for: parsed, method: method, uri: uri, entityBody: [UInt8](body), nonceCount: nonceCount)?
            .headerValue
    }
}
