/// The credentials of an `Authorization: Digest …` header (RFC 7616 §3.4), built by a
/// client or parsed and checked by a server.
///
/// ```swift
/// // Server side
/// guard let header = request.headers["Authorization"],
///       let credentials = DigestAuthorization(headerValue: header) else { return challenge() }
/// switch credentials.verify(username: "test", password: "12345", method: request.method,
///                           isNonceCurrent: nonces.contains) {
/// case .valid: …
/// case .staleNonce: … // 401 with stale=true and a new nonce
/// case .invalid: …
/// }
/// ```
///
/// Verification covers the response hash and the consistency of the parameters. The
/// server must still check ``realm``, ``uri`` (against the request target),
/// ``opaque`` and that ``nonceCount`` grows for each nonce.
package struct DigestAuthorization: Sendable, Equatable {
    /// The user name as sent: plain text, or `H(username:realm)` when ``userhash``.
    /// Decoded from `username*=UTF-8''…` when the client used that form.
    package var username: String
    /// The realm the client answers for.
    package var realm: String
    /// The server nonce the client used.
    package var nonce: String
    /// The request target the client hashed (`uri`).
    package var uri: String
    /// The hex `response` hash.
    package var response: String
    /// The `algorithm` token as sent, or `nil` (meaning `MD5`).
    package var algorithmName: String?
    /// The `qop` as sent, or `nil` in the RFC 2069 form.
    package var qop: String?
    /// The `nc` value as sent (eight hex digits), when there is a qop.
    package var nonceCount: String?
    /// The client nonce (`cnonce`), when there is a qop or a `-sess` algorithm.
    package var clientNonce: String?
    /// The `opaque` value echoed from the challenge.
    package var opaque: String?
    /// Whether ``username`` is the hashed form (`userhash=true`).
    package var userhash: Bool

    /// Creates credentials from their parts.
    package init(
        username: String, realm: String, nonce: String, uri: String, response: String,
        algorithmName: String? = nil, qop: String? = nil, nonceCount: String? = nil,
        clientNonce: String? = nil, opaque: String? = nil, userhash: Bool = false
    ) {
        self.username = username
        self.realm = realm
        self.nonce = nonce
        self.uri = uri
        self.response = response
        self.algorithmName = algorithmName
        self.qop = qop
        self.nonceCount = nonceCount
        self.clientNonce = clientNonce
        self.opaque = opaque
        self.userhash = userhash
    }

    /// Reads parsed credentials; `nil` unless the scheme is `Digest` and `username`
    /// (or a decodable `username*`), `nonce`, `uri` and `response` are present.
    /// A missing `realm` reads as `""`.
    package init?(_ credentials: AuthenticationChallenge) {
        guard credentials.hasScheme("Digest"),
              let username = credentials["username"] ?? credentials["username*"].flatMap(ExtendedValue.decode),
              let nonce = credentials["nonce"], let uri = credentials["uri"], let response = credentials["response"]
        else { return nil }
        self.init(
            username: username, realm: credentials["realm"] ?? "", nonce: nonce, uri: uri, response: response,
            algorithmName: credentials["algorithm"], qop: credentials["qop"], nonceCount: credentials["nc"],
            clientNonce: credentials["cnonce"], opaque: credentials["opaque"],
            userhash: credentials["userhash"].map { AuthenticationChallenge.equalsIgnoringCase($0, "true") } ?? false
        )
    }

    /// Parses an `Authorization` header value; `nil` unless it holds Digest credentials.
    package init?(headerValue: String) {
        guard let credentials = AuthenticationChallenge.parse(headerValue).first(where: { $0.hasScheme("Digest") })
        else { return nil }
        self.init(credentials)
    }

    /// The value for an `Authorization` field.
    ///
    /// Order and quoting follow RFC 7616 §3.4 and its examples: `username`, `realm`,
    /// `uri`, `nonce`, `cnonce`, `response` and `opaque` are quoted strings;
    /// `algorithm`, `nc`, `qop` and `userhash` are tokens. Absent parts are left out.
    /// A user name that is not printable ASCII goes out as `username*=UTF-8''…`.
    package var headerValue: String {
        var parts: [String] = []
        if userhash || username.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            parts.append("username=\(AuthenticationChallenge.quoted(username))")
        } else {
            parts.append("username*=\(ExtendedValue.encode(username))")
        }
        parts.append("realm=\(AuthenticationChallenge.quoted(realm))")
        parts.append("uri=\(AuthenticationChallenge.quoted(uri))")
        if let algorithmName { parts.append("algorithm=\(algorithmName)") }
        parts.append("nonce=\(AuthenticationChallenge.quoted(nonce))")
        if let nonceCount { parts.append("nc=\(nonceCount)") }
        if let clientNonce { parts.append("cnonce=\(AuthenticationChallenge.quoted(clientNonce))") }
        if let qop { parts.append("qop=\(qop)") }
        parts.append("response=\(AuthenticationChallenge.quoted(response))")
        if let opaque { parts.append("opaque=\(AuthenticationChallenge.quoted(opaque))") }
        if userhash { parts.append("userhash=true") }
        return "Digest " + parts.joined(separator: ", ")
    }

    /// Whether these credentials name `username`, comparing hashes when ``userhash``.
    package func matches(username expected: String) -> Bool {
        guard userhash else { return username == expected }
        guard let algorithm = DigestAlgorithm(token: algorithmName) else { return false }
        return AuthenticationChallenge.equalsIgnoringCase(
            username, algorithm.userhash(username: expected, realm: realm))
    }

    /// Checks the response against the user's password (server side).
    ///
    /// - Parameters:
    ///   - username: the real user name the password belongs to (also checked
    ///     against ``username``, hashed when ``userhash``).
    ///   - password: that user's password.
    ///   - method: the request method.
    ///   - entityBody: the request body, needed for `qop=auth-int`.
    ///   - isNonceCurrent: whether the server still accepts a nonce it issued.
    /// - Returns: ``DigestVerification/valid`` when everything matches and the nonce
    ///   is current; ``DigestVerification/staleNonce`` when the response is right but
    ///   the nonce is not (or no longer) accepted, so the server should answer with
    ///   `stale=true` and a new nonce; ``DigestVerification/invalid`` otherwise,
    ///   including unsupported algorithms and qops, a malformed `nc`, or a missing
    ///   `cnonce`.
    package func verify(
        username expected: String, password: String, method: String, entityBody: [UInt8]? = nil,
        isNonceCurrent: (String) -> Bool
    ) -> DigestVerification {
        guard matches(username: expected), let algorithm = DigestAlgorithm(token: algorithmName) else {
            return .invalid
        }
        var chosenQOP: DigestQOP?
        if let qop {
            guard let parsed = DigestQOP(token: qop), let nonceCount, Self.isValidNonceCount(nonceCount),
                  let clientNonce, !clientNonce.isEmpty
            else { return .invalid }
            chosenQOP = parsed
        }
        guard let expectedResponse = algorithm.response(
            username: expected, realm: realm, password: password, method: method, uri: uri, nonce: nonce,
            qop: chosenQOP, nonceCount: nonceCount, clientNonce: clientNonce, entityBody: entityBody),
            Self.constantTimeEqual(expectedResponse, response.lowercased())
        else { return .invalid }
        return isNonceCurrent(nonce) ? .valid : .staleNonce
    }

    /// Like ``verify(username:password:method:entityBody:isNonceCurrent:)`` for a
    /// server that has one current nonce.
    package func verify(
        username expected: String, password: String, method: String, entityBody: [UInt8]? = nil,
        issuedNonce: String
    ) -> DigestVerification {
        verify(username: expected, password: password, method: method, entityBody: entityBody) {
            $0 == issuedNonce
        }
    }

    /// Whether `value` is a well-formed `nc`: exactly eight hex digits.
    package static func isValidNonceCount(_ value: String) -> Bool {
        value.utf8.count == 8 && value.utf8.allSatisfy { Hex.value($0) != nil }
    }

    /// Compares two strings without stopping at the first difference.
    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// The outcome of checking Digest credentials on the server.
package enum DigestVerification: Sendable, Equatable {
    /// The response is right and the nonce is current.
    case valid
    /// Wrong user, password, hash or parameters.
    case invalid
    /// The response is right but the nonce has expired: challenge again with `stale=true`.
    case staleNonce
}
