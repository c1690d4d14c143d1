/// An HTTP request method.
///
/// An open set: the common methods are static members, and any other token can be written as a
/// string literal (`"PROPFIND"`).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token as sent on the request line, such as `GET`.
    public let rawValue: String

    /// Creates a method from its token; the token is uppercased (kept as it is, without a copy, when
    /// it has no lowercase letter).
    public init(rawValue: String) { self.rawValue = HTTPHeaderSyntax.uppercasedASCII(rawValue) }
    /// Creates a method from a string literal such as `"POST"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The method token.
    public var description: String { rawValue }

    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `HEAD`
    public static let head: HTTPMethod = "HEAD"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`
    public static let trace: HTTPMethod = "TRACE"

    /// The methods RFC 9110 §9.2.2 calls idempotent: sending one twice has the effect of sending it
    /// once (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`). These are the methods a session
    /// resends after a failure unless told otherwise (``HTTPRetryStrategy/retryableMethods``).
    public static let idempotent: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// Whether the method is one of ``idempotent``.
    public var isIdempotent: Bool { Self.idempotent.contains(self) }
}
