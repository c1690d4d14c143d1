import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ServiceTask {
    /// Something more to encode in a request, given to ``WebService/request(_:_:parameters:options:)``
    /// and the method shortcuts in their `options` array.
    ///
    /// ```swift
    /// service.POST("/post", parameters: ["foo": "bar", "number": 42], options: [
    ///     .parameterEncoding(.json),
    ///     .header("custom-header", "12345"),
    ///     .header(Request.Headers.userAgent, "my app ua"),
    /// ])
    /// ```
    ///
    /// When an option is given more than once, the last one counts (for headers: per name).
    public enum Option: Sendable, Hashable {
        /// How the parameters of any method but `GET` and `HEAD` are sent: the body,
        /// ``Request/ParameterEncoding/percent`` unless given, or the query with
        /// ``Request/ParameterEncoding/query``.
        case parameterEncoding(Request.ParameterEncoding)
        /// A request header: its name (see ``Request/Headers``) and value. It wins over the
        /// `Content-Type` a parameter encoding sets.
        case header(String, String)
        /// The body to send as it is. The parameters of a `GET` or `HEAD`, or of any method with
        /// `.parameterEncoding(.query)`, still go in the query; those of another method are then
        /// not sent at all. No `Content-Type` is set for it: add a ``header(_:_:)``.
        case body(Data)
        /// The `URLRequest` cache policy.
        case cachePolicy(URLRequest.CachePolicy)
        /// The `URLRequest` timeout: the longest wait for data, in seconds.
        case timeout(TimeInterval)
        /// This request may be sent again after a failure that may have reached the server, whatever
        /// its method: for a `POST` the server recognises when it comes twice (an idempotency key in
        /// its body, say). Without it a `POST` or `PATCH` is resent only with an `Idempotency-Key`
        /// header, or when it never left (see `RetryPolicy`).
        case retryable
    }
}
