extension HTTPCycle {
    /// Sends the request and returns the response when the run ends.
    ///
    /// The calling task resumes from where the run ends (a transport's thread, usually), not through
    /// the session's delegate queue: awaiting costs no hop more than the task's own executor. A
    /// cycle with a progress or download handler resumes it after their calls on its handler queue,
    /// so that they have all run.
    ///
    /// Nothing here waits for the main queue unless asked: when the handlers would go to the main
    /// queue only because it is the session's delegate queue (the default), an awaited run calls its
    /// progress and download handlers where their events happen, without a hop, as
    /// ``HandlerQueue/inline`` does (keep them short). Set the cycle's ``handlerQueue`` (or the
    /// session's ``HTTPSession/handlerQueue``) to `.main` to have them there; the task then resumes
    /// only once the main queue has run them. ``downloadProgress`` and ``uploadProgress`` report
    /// progress as sequences instead.
    ///
    /// Cancelling the calling task cancels the cycle. A cycle cancelled any way while awaited throws
    /// `CancellationError`.
    /// - Returns: The response (also in ``response``).
    /// - Throws: The error the run ended with, or `CancellationError`.
    @discardableResult
    public func start() async throws -> HTTPResponse {
        // The run ends on a transport's thread: ordered, for ThreadSanitizer, with this task.
        defer { locked.fence() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let completion = Completion(delivery: .awaited) { cycle, error in
                    cycle.locked.fence()
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
