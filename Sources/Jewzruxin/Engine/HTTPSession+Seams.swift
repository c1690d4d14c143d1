import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The seams through which the engine asks the features: each a protocol here, implemented under
// Features/ (RetryPolicy, RedirectPolicy, NetworkActivityIndicator), chosen per session.

/// Decides whether a failed try of a cycle is sent again, and after how long.
///
/// ``RetryPolicy`` is the one a session uses unless told otherwise; a ``HTTPSessionDelegate`` can
/// still decide whether to retry, with the strategy's delay.
public protocol HTTPRetryStrategy: Sendable {
    /// Whether a try that failed with `error` is sent again.
    ///
    /// - Parameters:
    ///   - error: Why the try failed (never ``HTTPError/cancelled``: a cancel is never retried).
    ///   - retriedCount: How many times the run has been resent already.
    ///   - solicited: Whether the user asked for the request directly (``HTTPCycle/solicited``).
    func shouldRetry(error: any Error, retriedCount: Int, solicited: Bool) -> Bool

    /// The wait before retry number `retry` (1 for the first), in seconds; `nil` to give up.
    ///
    /// - Parameters:
    ///   - retry: The number of the retry to come.
    ///   - response: The failed response, when one arrived (for `Retry-After`).
    func delay(beforeRetry retry: Int, response: HTTPResponse?) -> TimeInterval?
}

/// What the engine does with a response its policy calls a redirect.
public enum HTTPRedirectAction: Sendable {
    /// Send this request as the next attempt of the run; `keepsBody` says whether an upload's body
    /// goes again.
    case follow(HTTPRequest, keepsBody: Bool)
    /// End the run with this error (too many redirects, say).
    case fail(any Error)
    /// Not a redirect to follow: the response is the outcome.
    case deliver
}

/// Decides which responses are followed as redirects, and where to.
///
/// The engine asks it about every response that arrived without a transport error, before it
/// judges the status. ``RedirectPolicy`` is the one a session uses unless told otherwise.
public protocol HTTPRedirectPolicy: Sendable {
    /// What to do with `response` to `request`.
    ///
    /// - Parameters:
    ///   - response: The response, head and body so far.
    ///   - request: The request as it was sent.
    ///   - redirectCount: How many redirects the run has followed already.
    /// - Returns: The action the engine takes.
    func action(for response: HTTPResponse, request: HTTPRequest, redirectCount: Int) -> HTTPRedirectAction
}

/// Told when a run of a cycle begins and when it ends, exactly once each: the network activity
/// counter.
protocol RunActivity: AnyObject, Sendable {
    func runBegan()
    func runEnded()
}
