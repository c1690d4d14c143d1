/// A Digest authentication algorithm (RFC 7616 §3.3, §6.1), and the `response`
/// computation shared by clients and servers.
///
/// `MD5` is the default when a challenge names none. The `-sess` variants mix the
/// server and client nonces into `HA1`. SHA-512-256 is not supported (RFC 7616 does not
/// require it, and its own §3.9.2 example is disputed, erratum 4897).
package enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// `MD5` (RFC 2617; RFC 7616 keeps it for backward compatibility).
    case md5 = "MD5"
    /// `MD5-sess`.
    case md5Session = "MD5-sess"
    /// `SHA-256` (RFC 7616).
    case sha256 = "SHA-256"
    /// `SHA-256-sess` (RFC 7616).
    case sha256Session = "SHA-256-sess"

    /// The algorithm named by a challenge's `algorithm` parameter.
    ///
    /// Matching is ASCII case-insensitive. A missing parameter (`nil`) means `MD5`.
    /// Returns `nil` for algorithms this library cannot compute, such as
    /// `SHA-512-256`: the caller cannot answer that challenge.
    package init?(token: String?) {
        guard let token else {
            self = .md5
            return
        }
        guard let match = Self.allCases.first(where: { AuthenticationChallenge.equalsIgnoringCase($0.rawValue, token) })
        else { return nil }
        self = match
    }

    /// The token sent on the wire, for example `SHA-256-sess`.
    package var name: String { rawValue }

    /// Whether this is a `-sess` variant.
    package var isSession: Bool {
        self == .md5Session || self == .sha256Session
    }

    /// `H(text)`: the lowercase hex digest of the UTF-8 encoding of `text`.
    package func hexHash(_ text: String) -> String {
        switch self {
        case .md5, .md5Session: MD5.hexHash(text)
        case .sha256, .sha256Session: SHA256.hexHash(text)
        }
    }

    /// `H(bytes)`: the lowercase hex digest of `bytes` (the entity body for `auth-int`).
    package func hexHash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        switch self {
        case .md5, .md5Session: MD5.hexHash(bytes)
        case .sha256, .sha256Session: SHA256.hexHash(bytes)
        }
    }

    /// The `response` parameter (RFC 7616 §3.4.1–§3.4.3, RFC 2617 §3.2.2.1, RFC 2069).
    ///
    /// ```
    /// HA1 = H(username:realm:password)            (-sess: H(H(username:realm:password):nonce:cnonce))
    /// HA2 = H(method:uri)                         (auth-int: H(method:uri:H(entity-body)))
    /// response = H(HA1:nonce:nc:cnonce:qop:HA2)   (no qop, RFC 2069: H(HA1:nonce:HA2))
    /// ```
    ///
    /// `username` is the real user name even when the header carries its `userhash`.
    /// Strings are hashed as UTF-8 (RFC 7616 `charset=UTF-8`).
    ///
    /// - Parameters:
    ///   - nonceCount: the `nc` value exactly as sent, such as `00000001`.
    ///   - entityBody: the request body, needed for `auth-int`.
    /// - Returns: the lowercase hex response, or `nil` when a needed input is missing:
    ///   `nc` and `cnonce` with a qop, `cnonce` with a `-sess` algorithm, or the body
    ///   with `auth-int`.
    package func response(
        username: String, realm: String, password: String,
        method: String, uri: String, nonce: String,
        qop: DigestQOP?, nonceCount: String?, clientNonce: String?,
        entityBody: [UInt8]? = nil
    ) -> String? {
        var ha1 = hexHash("\(username):\(realm):\(password)")
        if isSession {
            guard let clientNonce else { return nil }
            ha1 = hexHash("\(ha1):\(nonce):\(clientNonce)")
        }
        let ha2: String
        switch qop {
        case .authInt:
            guard let entityBody else { return nil }
            ha2 = hexHash("\(method):\(uri):\(hexHash(entityBody))")
        case .auth, nil:
            ha2 = hexHash("\(method):\(uri)")
        }
        guard let qop else {
            return hexHash("\(ha1):\(nonce):\(ha2)")
        }
        guard let nonceCount, let clientNonce else { return nil }
        return hexHash("\(ha1):\(nonce):\(nonceCount):\(clientNonce):\(qop.rawValue):\(ha2)")
    }

    /// The `userhash` form of a user name: `H(username:realm)` (RFC 7616 §3.4.4).
    package func userhash(username: String, realm: String) -> String {
        hexHash("\(username):\(realm)")
    }
}

/// A Digest quality of protection (`qop`) value.
package enum DigestQOP: String, Sendable, CaseIterable {
    /// Authentication only.
    case auth
    /// Authentication with integrity protection of the request body.
    case authInt = "auth-int"

    /// The qop named by `token`, ASCII case-insensitive, or `nil` if unknown.
    package init?(token: String) {
        guard let match = Self.allCases.first(where: { AuthenticationChallenge.equalsIgnoringCase($0.rawValue, token) })
        else { return nil }
        self = match
    }

    /// The tokens of a challenge's `qop` list, such as `"auth, auth-int"` → `["auth", "auth-int"]`.
    ///
    /// Empty elements are dropped; unknown tokens are kept so callers can see them.
    package static func options(from list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingASCIIWhitespace() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
