import Foundation

/// A user name and password for HTTP Basic authentication (RFC 7617).
///
/// ```swift
/// BasicCredentials.basicAuthorization(username: "Aladdin", password: "open sesame")
/// // "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
/// BasicCredentials(authorization: "Basic dGVzdDoxMjM0NQ==")
/// // username "test", password "12345"
/// ```
///
/// User name and password are encoded as UTF-8, which is what RFC 7617 §2.1's
/// `charset="UTF-8"` announces and what clients use in practice.
package struct BasicCredentials: Sendable, Equatable {
    /// The user name; it should not contain a colon, which would end it early.
    package var username: String
    /// The password (may contain colons).
    package var password: String

    /// Creates credentials.
    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Reads an `Authorization: Basic …` value (server side).
    ///
    /// The scheme is matched case-insensitively and the base64 may be surrounded by
    /// whitespace. Returns `nil` for another scheme, invalid base64, text that is not
    /// UTF-8, or a missing `:`.
    package init?(authorization headerValue: String) {
        guard let credentials = AuthenticationChallenge.parse(headerValue).first,
              credentials.hasScheme("Basic"), let token = credentials.token68,
              let decoded = Data(base64Encoded: token),
              let text = String(validating: decoded, as: UTF8.self),
              let colon = text.firstIndex(of: ":")
        else { return nil }
        self.init(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    /// The `Authorization` value for these credentials.
    package var authorizationValue: String {
        Self.basicAuthorization(username: username, password: password)
    }

    /// `Basic ` followed by the base64 of the UTF-8 bytes of `username:password`.
    package static func basicAuthorization(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}
