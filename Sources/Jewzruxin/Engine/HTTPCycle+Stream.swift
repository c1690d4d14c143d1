import Foundation

// The response body and the progress of a run as async sequences.
extension HTTPCycle {
    /// A response body as it arrives: an `AsyncSequence` of `Data` chunks, in order, that ends at
    /// the end of the body and throws the error the run ends with.
    ///
    /// ```swift
    /// let (response, bytes) = try await cycle.stream()
    /// for try await chunk in bytes {
    ///     try handle.write(contentsOf: chunk)
    /// }
    /// ```
    ///
    /// **Backpressure**: at most about 1 MiB waits for the consumer. On the native and curl
    /// transports the transfer is then held until the consumer takes more (the native transport
    /// stops reading the connection, curl pauses the transfer), so memory stays flat whatever the size
    /// of the body and the pace of the consumer. URLSession on Linux reads ahead whatever its
    /// handler does (L2): there the bytes that arrived wait in memory.
    ///
    /// **Ending early**: leaving the loop (`break`, a thrown error), dropping the sequence or
    /// cancelling the task that iterates it cancels the request; the cycle ends with
    /// ``HTTPError/cancelled``. A task cancelled while it waits for a chunk throws
    /// `CancellationError`.
    ///
    /// The sequence can be iterated once: a second iterator gets nothing more.
    public struct ByteStream: AsyncSequence, Sendable {
        /// Ends the stream, and cancels the run, when the last copy of the sequence and of its
        /// iterator is gone.
        final class Lifetime: Sendable {
            let body: BodyStream
            init(_ body: BodyStream) { self.body = body }
            deinit { body.terminate() }
        }

        private let lifetime: Lifetime

        init(_ body: BodyStream) {
            lifetime = Lifetime(body)
        }

        /// The stream's buffer, for the tests of its bound.
        package var body: BodyStream { lifetime.body }

        /// A stream of no cycle, ended by its maker with ``BodyStream/finish(response:error:)``.
        package static func detached() -> ByteStream {
            ByteStream(BodyStream(cycle: nil))
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(sequence: lifetime, own: Lifetime(lifetime.body))
        }

        /// Gives the chunks of a ``ByteStream``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Keeps the sequence alive while its iterator is.
            private let sequence: Lifetime
            /// Ends the stream when the iterator goes, even if the sequence is still held.
            private let own: Lifetime

            init(sequence: Lifetime, own: Lifetime) {
                self.sequence = sequence
                self.own = own
            }

            /// The next chunk of the body.
            ///
            /// - Returns: The next bytes, or `nil` at the end of the body.
            /// - Throws: The error the run ended with (``HTTPError``, a transport error, a
            ///   ``ContentHandlerError``), or `CancellationError` when the run or the task was
            ///   cancelled.
            public mutating func next() async throws -> Data? {
                try await own.body.next()
            }
        }
    }

    /// Sends the request and returns the response head as soon as it arrives, with its body to
    /// read as it comes.
    ///
    /// ```swift
    /// let cycle = HTTPCycle(requestURL: url)
    /// let (response, bytes) = try await cycle.stream()
    /// print(response.statusCode ?? 0, response.expectedContentLength)
    /// var total = 0
    /// for try await chunk in bytes { total += chunk.count }
    /// ```
    ///
    /// A 2xx response is streamed. **An error status throws here, before any byte**, as
    /// ``start()`` does: ``HTTPError/statusCodeSeemsToHaveErred(_:)`` with the body kept in its
    /// response (up to ``ContentHandlerError/maximumKeptBodySize``), since the session treats it as
    /// a failure (a ``HTTPSessionDelegate`` decides which statuses fail, and one that fails a 2xx
    /// makes the stream throw after its bytes). Redirects and authentication challenges are
    /// answered first; another response delivered as a success (a `304`, a redirect not followed)
    /// comes whole, as one chunk. Once bytes have been given, the run isn't retried: it ends with
    /// the error that stopped it.
    ///
    /// The cycle's content handler is replaced by the stream, its response processors and
    /// download handler are removed, and ``HTTPResponse/data`` stays empty for a streamed body.
    /// Cancelling the calling task before the head arrives cancels the run.
    ///
    /// - Returns: The response head (no body) and its body, as a ``ByteStream``.
    /// - Throws: ``HTTPError/alreadyRunning`` for a running cycle, the error the run ended with
    ///   before a response could be streamed, or `CancellationError`.
    public func stream() async throws -> (response: HTTPResponse, bytes: ByteStream) {
        let bytes = try prepareStream()
        let body = bytes.body
        // Awaited: the task reading the stream must not wait for the main queue (the default
        // delegate queue) to run the cycle's progress handlers before the stream can end.
        begin(Completion(delivery: .awaited) { cycle, error in
            body.finish(response: cycle.response, error: error)
        })
        let response = try await body.head()
        return (response, bytes)
    }

    /// Sets the cycle up to stream the body of its next run, and makes the stream; the caller
    /// starts the run and ends the stream with ``BodyStream/finish(response:error:)``.
    ///
    /// - Throws: ``HTTPError/alreadyRunning`` when a run is in progress.
    package func prepareStream() throws -> ByteStream {
        let body = BodyStream(cycle: self)
        // The settings' lock, then the machine's: the one place both are held, in this order.
        let configured = setup.withLock { settings -> Bool in
            guard !locked.withLock({ $0.isActive }) else { return false }
            settings.contentHandler = body
            settings.responseProcessors = []
            settings.download = nil
            return true
        }
        guard configured else { throw HTTPError.alreadyRunning }
        return ByteStream(body)
    }

    /// The download progress of the current run, or of the next one when none is running: each
    /// value the bytes of the body received so far, and the total when it is known. It ends when
    /// that run ends, at once for a cycle whose run has ended.
    ///
    /// ```swift
    /// let progress = cycle.downloadProgress
    /// Task { for await step in progress { print(step.fractionCompleted ?? 0) } }
    /// try await cycle.start()
    /// ```
    ///
    /// Get it before starting the cycle to see every step. A slow reader gets the latest value, not
    /// every one; the last is the body's total. A new response (a followed redirect, a retry)
    /// starts again from zero.
    public var downloadProgress: AsyncStream<TransferProgress> { progress(.received) }

    /// The upload progress of the current run, or of the next one when none is running: the bytes
    /// of the request body sent so far, and the total when it is known. It ends when that run ends,
    /// at once for a cycle whose run has ended.
    ///
    /// Get it before starting the cycle to see every step. A slow reader gets the latest value, not
    /// every one.
    public var uploadProgress: AsyncStream<TransferProgress> { progress(.sent) }

    private func progress(_ direction: ProgressObserver.Direction) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        let observer = ProgressObserver(direction: direction, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            self?.locked.withLock { s in s.progressObservers.removeAll { $0.id == observer.id } }
        }
        let ended = locked.withLock { s -> Bool in
            switch s.state {
            case .finished, .cancelled: return true
            case .idle, .running, .processing, .waitingToRetry:
                s.progressObservers.append(observer)
                return false
            }
        }
        if ended { continuation.finish() }
        return stream
    }
}

/// A progress sequence fed by a cycle until its run ends.
struct ProgressObserver: Sendable {
    /// The body received (the response's) or sent (the request's).
    enum Direction: Sendable { case received, sent }

    let id = UUID()
    let direction: Direction
    let continuation: AsyncStream<TransferProgress>.Continuation
}
