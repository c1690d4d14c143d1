import Logging

extension LoggingMonitor {
    /// What a ``LoggingMonitor`` logs, at which levels, and what it hides.
    public struct Configuration: Sendable {
        /// The level of each kind of event; `nil` leaves that event out.
        public struct Levels: Sendable, Hashable {
            /// A request going to the transport (the first, a retry, a redirect followed, an answer
            /// to an authentication challenge); `.debug` by default.
            public var request: Logger.Level?
            /// A run that ended with a response the session accepts; `.info` by default.
            public var success: Logger.Level?
            /// A run that ended with a status the session treats as a failure (≥ 400 by default);
            /// `.warning` by default.
            public var errorStatus: Logger.Level?
            /// A run that ended without a response, or with another error (a refused connection,
            /// a timeout, its deadline); `.error` by default.
            public var failure: Logger.Level?
            /// A retry about to wait; `.notice` by default.
            public var retry: Logger.Level?
            /// A run cancelled (by its caller, a task cancellation, a restart); `.debug` by default.
            public var cancel: Logger.Level?

            /// Creates levels; every argument has the default named on its property.
            public init(
                request: Logger.Level? = .debug, success: Logger.Level? = .info, errorStatus: Logger.Level? = .warning,
                failure: Logger.Level? = .error, retry: Logger.Level? = .notice, cancel: Logger.Level? = .debug
            ) {
                self.request = request
                self.success = success
                self.errorStatus = errorStatus
                self.failure = failure
                self.retry = retry
                self.cancel = cancel
            }
        }

        /// The header fields whose values are always written `<redacted>`, whatever the
        /// configuration: `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
        public static let alwaysRedactedHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

        /// The level of each kind of event.
        public var levels: Levels
        /// More header fields whose values are written `<redacted>` (`X-Api-Key`, say), matched
        /// without regard to case; added to ``alwaysRedactedHeaders``.
        public var redactedHeaders: Set<String>
        /// Query items whose values are written `<redacted>` in every URL logged (`token`, say),
        /// matched exactly. A password in a URL is always redacted.
        public var redactedQueryItems: Set<String>
        /// Fields of a `application/x-www-form-urlencoded` or JSON request body whose values are
        /// written `<redacted>` when bodies are logged (`password`, say), matched exactly; in a
        /// JSON body, a key of that name at any depth.
        public var redactedFormFields: Set<String>
        /// Whether the headers of requests and responses are logged, as metadata of the request
        /// and completion lines; `true` by default.
        public var logsHeaders: Bool
        /// The most bytes of each body logged: `0` (the default) logs none. Request bodies given
        /// as bytes and response bodies the session kept in memory are logged; uploads from a
        /// file or a form, and streamed responses, are not.
        public var bodyLimit: Int
        /// The request header whose value, when a request has it, is the request ID in the
        /// metadata (`X-Request-ID` by default); requests without it get a random one.
        public var requestIDHeader: String?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - levels: The level of each kind of event.
        ///   - redactedHeaders: More header fields to redact, beyond ``alwaysRedactedHeaders``.
        ///   - redactedQueryItems: Query items to redact in URLs.
        ///   - redactedFormFields: Form or JSON fields to redact in bodies.
        ///   - logsHeaders: Whether headers are logged; `true` by default.
        ///   - bodyLimit: The most bytes of each body logged; `0`, none, by default.
        ///   - requestIDHeader: The header that carries a request's ID, `X-Request-ID` by default.
        public init(
            levels: Levels = Levels(), redactedHeaders: Set<String> = [], redactedQueryItems: Set<String> = [],
            redactedFormFields: Set<String> = [], logsHeaders: Bool = true, bodyLimit: Int = 0,
            requestIDHeader: String? = "X-Request-ID"
        ) {
            self.levels = levels
            self.redactedHeaders = redactedHeaders
            self.redactedQueryItems = redactedQueryItems
            self.redactedFormFields = redactedFormFields
            self.logsHeaders = logsHeaders
            self.bodyLimit = bodyLimit
            self.requestIDHeader = requestIDHeader
        }
    }

    /// The metadata keys a ``LoggingMonitor`` writes: OpenTelemetry's attribute names where it has
    /// one.
    public enum MetadataKey {
        /// The ID of the run, the same on each of its lines.
        public static let requestID = "request.id"
        /// The attempt of the run, 1 for the first; a retry adds one.
        public static let attempt = "http.request.attempt"
        /// The operation (the cycle's identifier, an OpenAPI operation's ID), when it has one.
        public static let operation = "operation"
        /// The request method.
        public static let method = "http.request.method"
        /// The URL, redacted.
        public static let url = "url.full"
        /// The response status code.
        public static let statusCode = "http.response.status_code"
        /// The response body's size, in bytes.
        public static let responseBodySize = "http.response.body.size"
        /// The request body's size, in bytes, when it is known.
        public static let requestBodySize = "http.request.body.size"
        /// How long the run took, retries included, in seconds.
        public static let duration = "http.client.request.duration"
        /// What kind of error ended the run or the attempt.
        public static let errorType = "error.type"
        /// The error, described.
        public static let error = "error"
        /// The wait before a retry, in seconds.
        public static let retryDelay = "http.retry.delay"
        /// The request headers, redacted.
        public static let requestHeaders = "http.request.headers"
        /// The response headers, redacted.
        public static let responseHeaders = "http.response.headers"
        /// The request body, redacted and cut at the configured limit.
        public static let requestBody = "http.request.body"
        /// The response body, cut at the configured limit.
        public static let responseBody = "http.response.body"
    }
}
