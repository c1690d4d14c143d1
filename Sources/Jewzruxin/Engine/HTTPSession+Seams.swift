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
///
/// The engine asks ``verdict(for:)``. Its default answer keeps to RFC 9110 §9.2.2: a request whose
/// method isn't in ``retryableMethods`` (`POST` and `PATCH`, by default) is sent again only when
/// it carries an `Idempotency-Key` header, or when its attempt certainly failed before a byte of it
/// went out (``HTTPAttemptFailure/requestMayHaveBeenSent``); then it asks
/// ``shouldRetry(error:retriedCount:solicited:)`` and ``delay(beforeRetry:response:)``. A strategy
/// that implements `verdict(for:)` itself decides everything, the method rule included.
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

    /// The methods resent after a failure that may have reached the server: ``HTTPMethod/idempotent``
    /// unless the strategy says otherwise. A cycle's own ``HTTPCycle/retryableMethods`` replace them.
    var retryableMethods: Set<HTTPMethod> { get }

    /// Whether the failed attempt is sent again and after how long, or why not.
    ///
    /// - Parameter failure: The attempt, the request as it went, how long the run has taken.
    func verdict(for failure: HTTPAttemptFailure) -> HTTPRetryVerdict
}

extension HTTPRetryStrategy {
    /// ``HTTPMethod/idempotent``: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`.
    public var retryableMethods: Set<HTTPMethod> { HTTPMethod.idempotent }

    /// ``shouldRetry(error:retriedCount:solicited:)``, then the method rule
    /// (``HTTPAttemptFailure/isSafeToResend(retryableMethods:)``), then
    /// ``delay(beforeRetry:response:)``.
    public func verdict(for failure: HTTPAttemptFailure) -> HTTPRetryVerdict {
        guard shouldRetry(error: failure.error, retriedCount: failure.retriedCount, solicited: failure.solicited) else {
            return .giveUp(HTTPSession.notResent)
        }
        return resendVerdict(for: failure)
    }

    /// The verdict once resending is wanted (by the strategy, or by a session's delegate): the
    /// method rule, then the wait; `noDelay` says why when ``delay(beforeRetry:response:)`` gives none.
    func resendVerdict(for failure: HTTPAttemptFailure, noDelay: String = HTTPSession.noDelay) -> HTTPRetryVerdict {
        if let unsafe = failure.unsafeToResend(retryableMethods: failure.retryableMethods ?? retryableMethods) {
            return .giveUp(unsafe)
        }
        guard let delay = delay(beforeRetry: failure.retriedCount + 1, response: failure.response) else {
            return .giveUp(noDelay)
        }
        return .retry(after: delay)
    }
}

/// What a retry strategy decides about a failed attempt.
public enum HTTPRetryVerdict: Sendable, Equatable {
    /// Send the request again after this many seconds.
    case retry(after: TimeInterval)
    /// End the run with the attempt's error; the phrase says why (it ends up in the error's
    /// description: "gave up after 4 attempts: the retry limit of 3 was reached").
    case giveUp(String)
}

extension HTTPAttemptFailure {
    /// Whether sending the request again can't do what the user didn't ask for: its attempt failed
    /// before a byte of it went out, its method is in `retryableMethods`, or it carries an
    /// `Idempotency-Key` header (the server then recognises a repeat).
    public func isSafeToResend(retryableMethods: Set<HTTPMethod>) -> Bool {
        unsafeToResend(retryableMethods: retryableMethods) == nil
    }

    /// Why the request can't be resent safely, `nil` when it can.
    func unsafeToResend(retryableMethods: Set<HTTPMethod>) -> String? {
        if !requestMayHaveBeenSent || retryableMethods.contains(request.method) { return nil }
        if request.value(forHTTPHeaderField: "Idempotency-Key") != nil { return nil }
        return "\(request.method) is not idempotent and may have reached the server, so it is not sent again "
            + "(add it to retryableMethods, or send an Idempotency-Key header, to allow it)"
    }
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
