import Foundation
import Jewzruxin

// The response body and the progress of a task as async sequences, over the cycle's.
extension ServiceTask {
    /// Sends the request and returns the response head as soon as it arrives, with its body to read
    /// as it comes, as `HTTPCycle.stream()` does.
    ///
    /// ```swift
    /// let (response, bytes) = try await service.GET("/bytes/1048576").stream()
    /// for try await chunk in bytes { print(response.statusCode ?? 0, chunk.count) }
    /// ```
    ///
    /// Call it on a task that hasn't started: in place of response handlers or content shortcuts.
    /// An error status throws here before any byte, with the body kept in the error's response;
    /// breaking out of the loop or cancelling the task that iterates cancels the request.
    /// - Returns: The response head and its body, as an `HTTPCycle.ByteStream`.
    /// - Throws: The task's error, `HTTPError.alreadyRunning` for a task already started or
    ///   streamed, or `CancellationError`.
    public func stream() async throws -> (response: HTTPResponse, bytes: HTTPCycle.ByteStream) {
        let bytes = self.bytes
        return (try await bytes.body.head(), bytes)
    }

    /// The response body as it arrives: the request goes now, and the sequence ends at the end of
    /// the body or throws the task's error.
    ///
    /// ```swift
    /// for try await chunk in service.GET("/bytes/1048576").bytes {
    ///     total += chunk.count
    /// }
    /// ```
    ///
    /// As ``stream()``, but without waiting for the head: an error status throws from the first
    /// `next()`. Read it once, on a task that hasn't started; later reads throw
    /// `HTTPError.alreadyRunning`.
    public var bytes: HTTPCycle.ByteStream {
        var prepared: Result<HTTPCycle.ByteStream, any Error> = .failure(HTTPError.alreadyRunning)
        if cycle == nil {
            // A task failed from the start: the stream throws its error.
            prepared = .success(.detached())
        } else {
            configureCycle { cycle in prepared = Result { try cycle.prepareStream() } }
        }
        guard case .success(let bytes) = prepared else {
            let failed = HTTPCycle.ByteStream.detached()
            failed.body.finish(response: HTTPResponse(), error: HTTPError.alreadyRunning)
            return failed
        }
        let body = bytes.body
        // The stream ends when the outcome is known, as a handler added now would run. A Swift task
        // reads it: the run is awaited, so that its progress handlers don't hold the end back on
        // the main queue unless asked to run there.
        add(Handler(kind: .always, place: .handlers(.inline)) { outcome in
            .run { body.finish(response: outcome.response ?? HTTPResponse(), error: outcome.error) }
        }, awaited: true)
        return bytes
    }

    /// The download progress of the request: the bytes of the body received so far, and the total
    /// when it is known; it ends when the request does. See `HTTPCycle.downloadProgress`.
    ///
    /// Get it before the task starts (before its first handler) to see every step.
    public var downloadProgress: AsyncStream<TransferProgress> {
        cycle?.downloadProgress ?? AsyncStream { $0.finish() }
    }

    /// The upload progress of the request: the bytes of the request body sent so far, and the
    /// total when it is known; it ends when the request does. See `HTTPCycle.uploadProgress`.
    ///
    /// Get it before the task starts (before its first handler) to see every step.
    public var uploadProgress: AsyncStream<TransferProgress> {
        cycle?.uploadProgress ?? AsyncStream { $0.finish() }
    }
}
