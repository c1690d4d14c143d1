/// One challenge from a `WWW-Authenticate` or `Proxy-Authenticate` header, or the
/// credentials in an `Authorization` header (RFC 7235 §2.1, §4.1).
///
/// A challenge is an authentication scheme followed either by a `token68` (as in
/// `Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==` or `Negotiate YII…`) or by a list of
/// `name=value` auth-params (as in `Digest realm="a", nonce="b"`), or by nothing.
///
/// ```swift
/// let challenges = AuthenticationChallenge.parse(
///     #"Basic realm="x, y", Digest realm="z", qop="auth,auth-int", nonce=abc"#)
/// challenges.count                      // 2
/// challenges[1].hasScheme("digest")     // true
/// challenges[1]["QOP"]                  // "auth,auth-int"
/// ```
///
/// The scheme and parameter names keep their original spelling; ``hasScheme(_:)`` and
/// the subscript compare them case-insensitively. Quoted values are unescaped.
package struct AuthenticationChallenge: Sendable, Equatable {
    /// One `name=value` auth-param, as received (value unquoted and unescaped).
    package struct Parameter: Sendable, Hashable {
        /// The parameter name in its original spelling.
        package var name: String
        /// The value, with surrounding quotes removed and `\x` escapes resolved.
        package var value: String

        /// Creates a parameter.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The authentication scheme in its original spelling, such as `Basic` or `Digest`.
    package var scheme: String

    /// The auth-params in the order received; empty when there are none or the
    /// challenge carries a ``token68`` instead.
    package var parameters: [Parameter]

    /// The token68 that follows the scheme (base64-like credentials or data), if any.
    package var token68: String?

    /// Creates a challenge.
    package init(scheme: String, parameters: [Parameter] = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// The value of the first parameter called `name` (ASCII case-insensitive), or `nil`.
    ///
    /// RFC 7235 says each name occurs at most once per challenge; when a sender
    /// repeats one anyway, the first occurrence wins.
    package subscript(name: String) -> String? {
        parameters.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Whether this challenge uses the scheme `name` (ASCII case-insensitive).
    package func hasScheme(_ name: String) -> Bool {
        Self.equalsIgnoringCase(scheme, name)
    }

    /// Parses every challenge in one header value.
    ///
    /// Handles several challenges in one value (as when repeated `WWW-Authenticate`
    /// fields are joined with `", "`), quoted strings with commas and `\"` escapes,
    /// token68 credentials, optional whitespace around `=` and `,`, empty list
    /// elements, and ASCII case in any mix. Malformed input never traps: a piece that
    /// cannot be read is skipped up to the next comma, an unterminated quoted string
    /// ends parsing (its parameter is dropped), and whatever was understood before is
    /// returned. An empty or all-garbage value gives an empty array.
    ///
    /// The same grammar reads an `Authorization` value such as `Digest username="…",
    /// …` (one element) or `Basic dGVzdDoxMjM0NQ==`.
    package static func parse(_ headerValue: String) -> [AuthenticationChallenge] {
        var scanner = AuthParamScanner(headerValue)
        return scanner.challenges()
    }

    /// Parses several header fields (for example every `WWW-Authenticate` line of a
    /// response) and concatenates their challenges in order.
    package static func parse<Values: Sequence<String>>(headerValues: Values) -> [AuthenticationChallenge] {
        headerValues.flatMap { parse($0) }
    }

    /// `value` as an HTTP quoted-string: wrapped in `"` with `"` and `\` escaped.
    ///
    /// Control characters other than tab cannot be sent in a header at all; they are
    /// dropped rather than escaped.
    package static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"", "\\":
                result.unicodeScalars.append("\\")
                result.unicodeScalars.append(scalar)
            case "\t":
                result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                continue
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        result.append("\"")
        return result
    }

    /// ASCII case-insensitive string equality, as HTTP uses for scheme and parameter names.
    package static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
    }
}
