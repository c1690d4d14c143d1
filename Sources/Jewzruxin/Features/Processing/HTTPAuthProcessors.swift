import Foundation
import JewzruxinAuth

/// Sends HTTP Basic credentials (RFC 7617) with every request.
///
/// Request: sets `Authorization: Basic <credentials>`, the Base64 of the UTF-8 bytes of
/// `username:password`, replacing any `Authorization` header the request had. Response: left alone.
///
/// ```swift
/// HTTPCycle.get("https://api.github.com/user/",
///               requestProcessors: [HTTPBasicAuthProcessor(username: "user", password: "pass")],
///               responseProcessors: [HTTPJSONProcessor()])
/// ```
///
/// The credentials are sent as given, in clear text but for the Base64: use it over HTTPS.
public final class HTTPBasicAuthProcessor: HTTPProcessor, @unchecked Sendable {
    // @unchecked: like the base class; the stored properties are immutable.

    private let username: String
    private let password: String

    /// Creates a processor that sends these credentials.
    ///
    /// - Parameters:
    ///   - username: The user-id. RFC 7617 doesn't allow a `:` in it, nor control characters in
    ///     either part; such credentials make ``processRequest(_:)`` throw.
    ///   - password: The password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
        super.init()
    }

    /// The value of the `Authorization` header: `Basic ` and the Base64 of `username:password`.
    ///
    /// - Throws: ``HTTPProcessorError`` when the user-id contains `:` or either part contains a
    ///   control character (U+0000–U+001F, U+007F).
    func authorizationValue() throws -> String {
        guard !username.unicodeScalars.contains(":") else {
            throw HTTPProcessorError(processor: "HTTPBasicAuthProcessor", reason: "the username contains a colon, which Basic credentials can't carry")
        }
        guard !username.unicodeScalars.contains(where: Self.isControl), !password.unicodeScalars.contains(where: Self.isControl) else {
            throw HTTPProcessorError(processor: "HTTPBasicAuthProcessor", reason: "the username or password contains a control character")
        }
        return BasicCredentials.basicAuthorization(username: username, password: password)
    }

    /// Sets the `Authorization` header.
    ///
    /// - Parameters:
    ///   - request: The request to authorize.
    /// - Throws: ``HTTPProcessorError`` when the credentials can't be sent (a user name with a colon, control characters);
    ///   the request is then not sent.
    public override func processRequest(_ request: inout HTTPRequest) throws {
        request.setValue(try authorizationValue(), forHTTPHeaderField: "Authorization")
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}

/// Sends an OAuth 2.0 bearer token (RFC 6750) with every request.
///
/// Request: sets `Authorization: Bearer <token>`, replacing any `Authorization` header the request
/// had. Response: left alone.
///
/// The token must be a `token68` (RFC 9110 §11.2): one or more ASCII letters, digits and `-._~+/`,
/// then optionally `=` padding. Anything else — an empty token, a space, CR or LF, other punctuation,
/// non-ASCII characters — makes ``processRequest(_:)`` throw instead of sending the request.
public final class HTTPBearerProcessor: HTTPProcessor, @unchecked Sendable {
    // @unchecked: like the base class; the stored property is immutable.

    private let token: String

    /// Creates a processor that sends `token`.
    ///
    /// - Parameters:
    ///   - token: The access token, sent as it is; it is checked when a request is processed.
    public init(token: String) {
        self.token = token
        super.init()
    }

    /// The value of the `Authorization` header: `Bearer ` and the token.
    ///
    /// - Throws: ``HTTPProcessorError`` when the token is not a `token68`.
    func authorizationValue() throws -> String {
        guard Self.isToken68(token) else {
            throw HTTPProcessorError(processor: "HTTPBearerProcessor", reason: "the token is empty or has characters a bearer token can't have")
        }
        return "Bearer " + token
    }

    /// Sets the `Authorization` header.
    ///
    /// - Parameters:
    ///   - request: The request to authorize.
    /// - Throws: ``HTTPProcessorError`` when the token is not a `token68`; the request is then not sent.
    public override func processRequest(_ request: inout HTTPRequest) throws {
        request.setValue(try authorizationValue(), forHTTPHeaderField: "Authorization")
    }

    /// Whether `string` is `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    static func isToken68(_ string: String) -> Bool {
        let scalars = string.unicodeScalars
        let body = scalars.prefix { $0 != "=" }
        guard !body.isEmpty else { return false }
        return body.allSatisfy(isToken68Character) && scalars.dropFirst(body.count).allSatisfy { $0 == "=" }
    }

    private static func isToken68Character(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", ".", "_", "~", "+", "/": return true
        default: return false
        }
    }
}
