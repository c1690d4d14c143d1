import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes the requests of a cycle before they go, and decides after a failure whether to send
/// again: an *adapter* and a *retrier* in one, both `async` and both optional.
///
/// A session's ``HTTPSession/interceptors`` apply to each of its cycles whose own
/// ``HTTPCycle/interceptors`` is `nil`; a cycle's list replaces the session's (write
/// `session.interceptors + [mine]` to add to it). The list is applied in order:
///
/// - ``adapt(_:for:)`` runs before every attempt the cycle sends from its request — the first of a
///   run and each retry — after the request processors, each adapter given what the one before it
///   returned. A resend that answers an authentication challenge or follows a redirect goes as the
///   authentication or the redirect policy made it from the adapted request, without adapting
///   again (so a header an adapter added isn't carried to another origin against the policy). An
///   adapter that throws ends the run with its error, as it threw it.
/// - ``retry(_:after:)`` runs after an attempt failed (a transport error, a status the session
///   treats as a failure, a content handler's refusal), never after a cancel or a passed deadline.
///   The first interceptor whose answer isn't ``HTTPRetryDecision/doNotRetry`` decides; when every
///   one says ``HTTPRetryDecision/doNotRetry``, the session's ``HTTPSession/retryStrategy`` (and its
///   delegate) decides as it does without interceptors.
///
/// Both run in a task of their own, never on a transport's thread nor under a lock, so they may
/// await a token or a refresh. Cancelling the cycle, a restart, or its deadline ends the run at
/// once, with one completion, and cancels that task; what the interceptor returns afterwards is
/// ignored.
///
/// ```swift
/// struct APIKey: HTTPInterceptor {
///     func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
///         var request = request
///         request.setValue("secret", forHTTPHeaderField: "X-API-Key")
///         return request
///     }
/// }
/// session.interceptors = [APIKey()]
/// ```
///
/// ``RequestInterceptor`` makes one of closures; ``AuthenticationInterceptor`` adds a credential to
/// every request and refreshes it once for all the requests that need it.
public protocol HTTPInterceptor: Sendable {
    /// The request to send instead of `request`.
    ///
    /// The default returns `request` unchanged.
    /// - Parameters:
    ///   - request: The request about to go, after the request processors and the adapters before
    ///     this one.
    ///   - cycle: The cycle sending it.
    /// - Returns: The request to send.
    /// - Throws: Any error, which ends the run with it (no retry is asked about).
    func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest

    /// Whether the failed attempt `failure` of `cycle` is sent again, and when.
    ///
    /// The default answers ``HTTPRetryDecision/doNotRetry``.
    /// - Parameters:
    ///   - cycle: The cycle whose attempt failed.
    ///   - failure: The request as it went, the response if one came, the error and the retries so far.
    /// - Returns: What the engine does next.
    func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision
}

extension HTTPInterceptor {
    /// Leaves the request as it is.
    public func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest { request }

    /// Leaves the decision to the next interceptor, then to the session's retry strategy.
    public func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision { .doNotRetry }
}

/// What an ``HTTPInterceptor`` decides about a failed attempt.
public enum HTTPRetryDecision: Sendable {
    /// Send the cycle's request again at once (adapted again).
    case retry
    /// Send it again after this many seconds.
    case retryAfter(TimeInterval)
    /// Not this interceptor's call: the next one decides, then the session's retry strategy.
    case doNotRetry
    /// End the run with this error instead of the attempt's.
    case fail(any Error)
}

/// A failed attempt, as an ``HTTPInterceptor``'s ``HTTPInterceptor/retry(_:after:)`` sees it.
public struct HTTPAttemptFailure: Sendable {
    /// The request as it went on the wire (adapted, with what a redirect or an authentication
    /// answer changed).
    public let request: HTTPRequest
    /// The response, when one arrived (its head, and the body so far).
    public let response: HTTPResponse?
    /// Why the attempt failed: ``HTTPError/statusCodeSeemsToHaveErred(_:)`` for a status the session
    /// treats as a failure, ``HTTPError/transport(_:)``, a content handler's error…
    public let error: any Error
    /// How many times the run has been resent after a failure already (by an interceptor or the
    /// retry strategy).
    public let retriedCount: Int
    /// Whether the cycle is solicited (``HTTPCycle/solicited``).
    public let solicited: Bool
    /// How long the run has taken so far, retries and their waits included, in seconds.
    public let elapsed: TimeInterval
    /// `false` when the attempt certainly failed before a byte of the request went out (the host
    /// wasn't found, the connection was refused or never made, TLS failed): sending it again can't
    /// repeat anything, whatever its method. `true` otherwise, since the server may have acted on it.
    public let requestMayHaveBeenSent: Bool
    /// The cycle's own ``HTTPCycle/retryableMethods``; `nil` when it takes the strategy's.
    public let retryableMethods: Set<HTTPMethod>?

    /// Creates a failure; the engine makes them, a test of an interceptor or a strategy may too.
    ///
    /// - Parameters:
    ///   - request: The request as it went.
    ///   - response: The response, if one arrived.
    ///   - error: Why the attempt failed.
    ///   - retriedCount: The retries of the run so far.
    ///   - solicited: Whether the cycle is solicited.
    ///   - elapsed: How long the run has taken, in seconds.
    ///   - requestMayHaveBeenSent: `false` when the attempt failed before anything was sent; by
    ///     default, what the error says (``HTTPError/requestWasNotSent(_:)``).
    ///   - retryableMethods: The cycle's own retryable methods, if it has any.
    public init(
        request: HTTPRequest, response: HTTPResponse?, error: any Error, retriedCount: Int, solicited: Bool = false,
        elapsed: TimeInterval = 0, requestMayHaveBeenSent: Bool? = nil, retryableMethods: Set<HTTPMethod>? = nil
    ) {
        self.request = request
        self.response = response
        self.error = error
        self.retriedCount = retriedCount
        self.solicited = solicited
        self.elapsed = elapsed
        self.requestMayHaveBeenSent = requestMayHaveBeenSent ?? !HTTPError.requestWasNotSent(error)
        self.retryableMethods = retryableMethods
    }

    /// The response's status, if a response arrived.
    public var statusCode: Int? { response?.statusCode }
}
