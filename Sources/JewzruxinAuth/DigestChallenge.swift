/// A `WWW-Authenticate: Digest …` challenge (RFC 7616 §3.3, RFC 2617 §3.2.1).
///
/// Clients read one from a parsed ``AuthenticationChallenge``; servers build one and
/// send its ``headerValue``.
///
/// ```swift
/// let challenge = DigestChallenge.preferred(in: AuthenticationChallenge.parse(header))
/// challenge?.algorithm     // .sha256, or nil if the server asked for an unknown one
/// challenge?.qopOptions    // ["auth", "auth-int"]; empty: RFC 2069 server
/// ```
package struct DigestChallenge: Sendable, Equatable {
    /// The protection space, shown to users; `""` if the server sent none.
    package var realm: String
    /// The server nonce.
    package var nonce: String
    /// Data the client must return unchanged, if any.
    package var opaque: String?
    /// The `domain` URI list, unparsed, if any.
    package var domain: String?
    /// The offered `qop` tokens in order (unknown ones kept); empty when the challenge
    /// has no `qop`, which means RFC 2069 compatibility mode.
    package var qopOptions: [String]
    /// The `algorithm` token as sent, or `nil` when absent (which means `MD5`).
    package var algorithmName: String?
    /// The `charset` parameter (only `UTF-8` is defined), if any.
    package var charset: String?
    /// Whether the server supports hashed user names (`userhash=true`).
    package var userhash: Bool
    /// Whether the previous request was rejected only because its nonce had expired
    /// (`stale=true`): retry with the new nonce without asking the user again.
    package var stale: Bool

    /// Creates a challenge, typically on the server side.
    package init(
        realm: String, nonce: String, opaque: String? = nil, domain: String? = nil,
        qopOptions: [String] = [DigestQOP.auth.rawValue], algorithmName: String? = DigestAlgorithm.md5.name,
        charset: String? = nil, userhash: Bool = false, stale: Bool = false
    ) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.domain = domain
        self.qopOptions = qopOptions
        self.algorithmName = algorithmName
        self.charset = charset
        self.userhash = userhash
        self.stale = stale
    }

    /// Reads a parsed challenge; `nil` unless its scheme is `Digest` and it has a nonce.
    package init?(_ challenge: AuthenticationChallenge) {
        guard challenge.hasScheme("Digest"), let nonce = challenge["nonce"] else { return nil }
        self.init(
            realm: challenge["realm"] ?? "",
            nonce: nonce,
            opaque: challenge["opaque"],
            domain: challenge["domain"],
            qopOptions: challenge["qop"].map(DigestQOP.options(from:)) ?? [],
            algorithmName: challenge["algorithm"],
            charset: challenge["charset"],
            userhash: challenge["userhash"].map { AuthenticationChallenge.equalsIgnoringCase($0, "true") } ?? false,
            stale: challenge["stale"].map { AuthenticationChallenge.equalsIgnoringCase($0, "true") } ?? false
        )
    }

    /// The first Digest challenge in `challenges` whose algorithm this library supports.
    ///
    /// RFC 7616 §3.7 servers list their preferred challenge first (typically
    /// `SHA-256` before `MD5`), so the first usable one is chosen. Returns `nil` when
    /// no Digest challenge is usable.
    package static func preferred(in challenges: [AuthenticationChallenge]) -> DigestChallenge? {
        challenges.lazy.compactMap(DigestChallenge.init).first { $0.algorithm != nil }
    }

    /// The algorithm to use, or `nil` if ``algorithmName`` names one this library
    /// does not support (the client cannot answer the challenge).
    package var algorithm: DigestAlgorithm? {
        DigestAlgorithm(token: algorithmName)
    }

    /// How a client can answer a challenge's `qop` options.
    package enum QOPChoice: Sendable, Equatable {
        /// The challenge has no `qop`: answer in RFC 2069 form (no `nc`, `cnonce`, `qop`).
        case withoutQOP
        /// Answer with this qop.
        case qop(DigestQOP)
        /// Nothing offered can be used (unknown tokens, or only `auth-int` without a body).
        case unusable
    }

    /// The qop a client should use: `auth` when offered; otherwise `auth-int` when
    /// offered and the request body is known.
    package func chooseQOP(bodyIsKnown: Bool) -> QOPChoice {
        guard !qopOptions.isEmpty else { return .withoutQOP }
        let offered = qopOptions.compactMap(DigestQOP.init(token:))
        if offered.contains(.auth) { return .qop(.auth) }
        if offered.contains(.authInt), bodyIsKnown { return .qop(.authInt) }
        return .unusable
    }

    /// The value for a `WWW-Authenticate` field, such as
    /// `Digest realm="sandbox", qop="auth", algorithm=MD5, nonce="…", opaque="…"`.
    ///
    /// Parameter order and quoting follow RFC 7616 §3.3 and its examples: `realm`,
    /// `domain`, `qop`, `nonce`, `opaque` quoted; `algorithm`, `charset`, `userhash`
    /// and `stale` (only when true) as tokens.
    package var headerValue: String {
        var parts = ["realm=\(AuthenticationChallenge.quoted(realm))"]
        if let domain { parts.append("domain=\(AuthenticationChallenge.quoted(domain))") }
        if !qopOptions.isEmpty {
            parts.append("qop=\(AuthenticationChallenge.quoted(qopOptions.joined(separator: ", ")))")
        }
        if let algorithmName { parts.append("algorithm=\(algorithmName)") }
        parts.append("nonce=\(AuthenticationChallenge.quoted(nonce))")
        if let opaque { parts.append("opaque=\(AuthenticationChallenge.quoted(opaque))") }
        if let charset { parts.append("charset=\(charset)") }
        if userhash { parts.append("userhash=true") }
        if stale { parts.append("stale=true") }
        return "Digest " + parts.joined(separator: ", ")
    }
}
