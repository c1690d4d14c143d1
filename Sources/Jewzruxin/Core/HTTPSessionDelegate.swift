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
}

extension HTTPSessionDelegate {
    /// Treats every status of 400 or more as a failure.
    public func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool {
        status >= 400
    }
}
