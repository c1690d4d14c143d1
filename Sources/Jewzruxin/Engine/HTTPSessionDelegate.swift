/// Customises how a session judges the cycles it runs.
///
/// Assign an object to ``HTTPSession/delegate`` (held weakly: keep it alive while cycles run). Every
/// method has a default, so implement only what you change. Methods are called on the session's
/// internal queues, never on the delegate queue: keep them quick and thread-safe.
public protocol HTTPSessionDelegate: AnyObject, Sendable {
    /// Whether a response with this status ends the cycle with
    /// ``HTTPError/statusCodeSeemsToHaveErred(_:)``.
    ///
    /// The default treats every status of 400 or more as a failure.
    /// - Parameters:
    ///   - session: The session running the cycle.
    ///   - status: The response's status code.
    /// - Returns: `true` to fail the cycle, `false` to let it succeed with that status.
    func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool

    /// Whether a cycle that failed with `error` is resent (after the wait the retry policy gives).
    ///
    /// The default asks the session's ``HTTPSession/retryPolicy``: timeouts, 408 and 503 are
    /// resent up to its maximum count; solicited cycles after any error, without limit. It is not
    /// asked about cancellations or a passed deadline, which are never retried.
    /// - Parameters:
    ///   - session: The session running the cycle.
    ///   - cycle: The cycle; ``HTTPCycle/retriedCount`` says how often it was already resent.
    ///   - error: The error the try ended with.
    /// - Returns: `true` to resend, `false` to end the cycle with `error`.
    func session(_ session: HTTPSession, shouldRetry cycle: HTTPCycle, error: any Error) -> Bool
}

extension HTTPSessionDelegate {
    /// Treats every status of 400 or more as a failure.
    public func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool {
        status >= 400
    }

    /// Follows the session's retry strategy.
    public func session(_ session: HTTPSession, shouldRetry cycle: HTTPCycle, error: any Error) -> Bool {
        session.retryStrategy.shouldRetry(error: error, retriedCount: cycle.retriedCount, solicited: cycle.solicited)
    }
}
