/// Names used to describe a request to a ``WebService``: header names and parameter encodings.
///
/// `Request` has no instances; it groups the vocabulary of the Swallow seed, such as
/// `Request.Headers.userAgent` in `.header(Request.Headers.userAgent, "my app ua")`.
public enum Request {
    /// Common request header names, for ``ServiceTask/Option/header(_:_:)``.
    ///
    /// Header names are case-insensitive; these use the usual spelling.
    public enum Headers {
        /// `Accept`: the media types the client takes.
        public static let accept = "Accept"
        /// `Accept-Encoding`: the content codings the client takes.
        public static let acceptEncoding = "Accept-Encoding"
        /// `Accept-Language`: the languages the client prefers.
        public static let acceptLanguage = "Accept-Language"
        /// `Authorization`: the client's credentials.
        public static let authorization = "Authorization"
        /// `Cache-Control`: caching directives.
        public static let cacheControl = "Cache-Control"
        /// `Content-Type`: the media type of the body.
        public static let contentType = "Content-Type"
        /// `If-None-Match`: the entity tags the client already has.
        public static let ifNoneMatch = "If-None-Match"
        /// `User-Agent`: the name and version of the client.
        public static let userAgent = "User-Agent"
    }

    /// How the parameters of a request with any method but `GET` and `HEAD` (`POST`, `PUT`,
    /// `PATCH`, `DELETE`…) are sent: as the body, percent-encoded or JSON, or in the query.
    ///
    /// `GET` and `HEAD` always send their parameters in the query, percent-encoded, whatever the
    /// encoding, as in the Swallow seed.
    public enum ParameterEncoding: Sendable, Hashable {
        /// `key=value` pairs joined with `&`, keys sorted, every character but `A–Z a–z 0–9 - . _ ~`
        /// percent-encoded (a space is `%20`), with `Content-Type: application/x-www-form-urlencoded`.
        /// The default.
        ///
        /// The body is the query a `GET` would send for the same parameters, as in the Swallow seed.
        /// It differs from the core's `FormData` and `HTTPFormProcessor`, which follow the WHATWG
        /// serializer (`+` for a space, `*` kept, `~` encoded); form parsers read both the same way.
        case percent
        /// A JSON object, keys sorted, with `Content-Type: application/json`.
        case json
        /// In the URL's query, as a `GET` sends them (percent-encoded, merged with the path's own
        /// query), whatever the method; no body is made of them and no `Content-Type` is set.
        ///
        /// For a `DELETE` or `POST` whose server reads its parameters from the query:
        /// `service.DELETE("/stores/7", parameters: ["force": true], options: [.parameterEncoding(.query)])`.
        case query

        /// The `Content-Type` of the body the encoding makes; `nil` for ``query``, which makes none.
        public var contentType: String? {
            switch self {
            case .percent: return "application/x-www-form-urlencoded"
            case .json: return "application/json"
            case .query: return nil
            }
        }
    }
}
