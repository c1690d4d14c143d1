extension HTTPCycle {
    /// Sends the request and returns the response when the run ends.
    ///
    /// The calling task resumes from where the run ends (a transport's thread, usually), not through
    /// the session's delegate queue: awaiting costs no hop more than the task's own executor. A
    /// cycle with a progress or download handler resumes it after their calls on its handler queue,
    /// so that they have all run.
    ///
    /// Cancelling the calling task cancels the cycle. A cycle cancelled any way while awaited throws
    /// `CancellationError`.
    /// - Returns: The response (also in ``response``).
    /// - Throws: The error the run ended with, or `CancellationError`.
    @discardableResult
    public func start() async throws -> HTTPResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let completion = Completion(notifiesExplicitCancel: true, isInline: true) { cycle, error in
                    switch error {
                    case nil: continuation.resume(returning: cycle.response)
                    case HTTPError.cancelled?: continuation.resume(throwing: CancellationError())
                    case let error?: continuation.resume(throwing: error)
                    }
                }
                begin(completion)
                if Task.isCancelled { cancel(explicitly: false) }
            }
        } onCancel: {
            cancel(explicitly: false)
        }
    }
}
