/// A user name and password that answer Digest challenges (the client side of
/// RFC 7616, with RFC 2617 and RFC 2069 compatibility).
///
/// ```swift
/// let credentials = DigestCredentials(username: "test", password: "12345")
/// let challenges = AuthenticationChallenge.parse(wwwAuthenticate)
/// if let challenge = DigestChallenge.preferred(in: challenges),
///    let answer = credentials.authorization(for: challenge, method: "GET", uri: "/a?b=c") {
///     request.setValue(answer.headerValue, forHTTPHeaderField: "Authorization")
/// }
/// ```
///
/// Reusing a nonce for later requests (preemptive authentication) needs an increasing
/// `nonceCount` per nonce; that bookkeeping is the caller's.
package struct DigestCredentials: Sendable, Equatable {
    /// The user name, in plain text.
    package var username: String
    /// The password.
    package var password: String

    /// Creates credentials.
    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Answers `challenge` for one request.
    ///
    /// Picks `qop=auth` when offered (`auth-int` only when that is all the server
    /// offers and `entityBody` is given), and the RFC 2069 form when the challenge has
    /// no `qop`. With `userhash=true` the user name is sent as `H(username:realm)`; a
    /// user name that is not plain printable ASCII is otherwise sent as
    /// `username*=UTF-8''…` (RFC 7616 §3.4, RFC 8187).
    ///
    /// - Parameters:
    ///   - challenge: the server's challenge.
    ///   - method: the request method, such as `GET`.
    ///   - uri: the request target as sent on the request line (path and query).
    ///   - entityBody: the request body, if known (empty for a request without one);
    ///     only used for `auth-int`.
    ///   - clientNonce: the `cnonce`; a fresh random one when `nil`.
    ///   - nonceCount: how many requests (this one included) used this nonce; sent as
    ///     eight hex digits.
    /// - Returns: the credentials to send, or `nil` when the challenge cannot be
    ///   answered: an unsupported algorithm or no usable qop.
    package func authorization(
        for challenge: DigestChallenge, method: String, uri: String,
        entityBody: [UInt8]? = nil, clientNonce: String? = nil, nonceCount: UInt32 = 1
    ) -> DigestAuthorization? {
        guard let algorithm = challenge.algorithm else { return nil }
        let qop: DigestQOP?
        switch challenge.chooseQOP(bodyIsKnown: entityBody != nil) {
        case .withoutQOP: qop = nil
        case let .qop(chosen): qop = chosen
        case .unusable: return nil
        }
        let usesClientNonce = qop != nil || algorithm.isSession
        let cnonce = usesClientNonce ? (clientNonce ?? Self.makeClientNonce()) : nil
        let nc = qop == nil ? nil : Self.formatNonceCount(nonceCount)
        guard let response = algorithm.response(
            username: username, realm: challenge.realm, password: password,
            method: method, uri: uri, nonce: challenge.nonce,
            qop: qop, nonceCount: nc, clientNonce: cnonce, entityBody: entityBody)
        else { return nil }
        let sentName = challenge.userhash
            ? algorithm.userhash(username: username, realm: challenge.realm)
            : username
        return DigestAuthorization(
            username: sentName, realm: challenge.realm, nonce: challenge.nonce, uri: uri,
            response: response,
            // RFC 2069 servers predate `algorithm`; echo it only when they sent one.
            algorithmName: qop == nil && challenge.algorithmName == nil ? nil : algorithm.name,
            qop: qop?.rawValue, nonceCount: nc, clientNonce: cnonce, opaque: challenge.opaque,
            userhash: challenge.userhash
        )
    }

    /// A random client nonce: `byteCount` random bytes as lowercase hex.
    ///
    /// Uses the system's cryptographically secure generator.
    package static func makeClientNonce(byteCount: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<max(byteCount, 1)).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// `count` as the eight lowercase hex digits of an `nc` value (`1` → `00000001`).
    package static func formatNonceCount(_ count: UInt32) -> String {
        let digits = String(count, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
