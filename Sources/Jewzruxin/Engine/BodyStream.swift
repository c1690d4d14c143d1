import Foundation

/// A content handler that hands a response body to an async consumer, a bounded buffer between them.
///
/// The transport's thread appends; the consumer (``HTTPCycle/ByteStream``) takes. While
/// ``budget`` bytes wait, `append` blocks on a transport that paces the body to its handler
/// (``HTTPTransport/pacesBodyToHandler``), which holds that transfer back: the native transport stops
/// reading the connection, curl pauses the transfer. On other transports (URLSession on Linux reads
/// ahead whatever its handler does, L2) blocking would only hold up the session's other transfers,
/// so the buffer grows instead.
///
/// Only a 2xx response is streamed. Any other (a redirect, a challenge, an error status) may still
/// be replaced or become the run's error, so its body is kept (up to
/// ``ContentHandlerError/maximumKeptBodySize``) as ``receivedData`` for the error, and nothing is
/// published: the stream then throws the run's error, or, for a response delivered as a success (a
/// 304, a redirect not followed), gives its kept body as one chunk.
///
/// No call into the cycle, a continuation or the writer's semaphore happens under the lock.
package final class BodyStream: ContentHandler, Sendable {
    /// The bytes that may wait for the consumer before `append` blocks: more than the curl
    /// transport gives from its loop's thread (256 KiB), which must never block.
    package static let budget = 1 << 20

    private enum Phase {
        /// No response yet, or one that is held (not 2xx).
        case holding
        /// A 2xx response is being streamed.
        case streaming
    }

    private struct State {
        var phase = Phase.holding
        var held = Data()
        /// The chunks waiting for the consumer, from `head` on.
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        /// The most bytes that ever waited: what a test reads to check the bound.
        var peakBuffered = 0
        var pacesTransfer = false
        /// The writer waits on ``room`` for the buffer to go under the budget.
        var writerWaiting = false
        /// Appends return at once from now on, their bytes dropped: the run or the consumer ended.
        var writerStopped = false
        var published: HTTPResponse?
        var headWaiter: CheckedContinuation<HTTPResponse, any Error>?
        var consumer: CheckedContinuation<Data?, any Error>?
        /// How the run ended: `nil` while it runs.
        var end: Result<Void, any Error>?
        /// The consumer was given the end (an error is thrown once).
        var endTaken = false
        /// The consumer went away, or its task was cancelled.
        var terminated = false
        /// The cycle to cancel when the consumer goes away, until the run ends.
        var cycle: HTTPCycle?

        mutating func takeChunk() -> Data? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            buffered -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }

        /// Whether the writer should be woken: it waits and the buffer has room, or nothing will
        /// take the bytes any more.
        mutating func wakesWriter() -> Bool {
            guard writerWaiting, writerStopped || buffered < BodyStream.budget else { return false }
            writerWaiting = false
            return true
        }
    }

    private let state: Locked<State>
    private let room = DispatchSemaphore(value: 0)

    package init(cycle: HTTPCycle?) {
        state = Locked(State(cycle: cycle))
    }

    /// The most body bytes that waited for the consumer at once.
    package var peakBuffered: Int { state.withLock { $0.peakBuffered } }

    /// Whether the stream still holds its cycle (to cancel it): until the run ends.
    var retainsCycle: Bool { state.withLock { $0.cycle != nil } }

    /// Whether the current attempt's transfer is held back by a blocked `append` (set before it
    /// starts).
    func setPacesTransfer(_ paces: Bool) {
        state.withLock { $0.pacesTransfer = paces }
    }

    /// Whether bytes of a response reached the stream: the run can't start the body over (a retry).
    var hasPublished: Bool { state.withLock { $0.published != nil } }

    // MARK: ContentHandler

    package func prepare(for response: HTTPResponse) throws {
        let waiter = state.withLock { s -> CheckedContinuation<HTTPResponse, any Error>? in
            s.held = Data()
            guard let status = response.statusCode, (200..<300).contains(status), s.published == nil else {
                s.phase = .holding
                return nil
            }
            s.phase = .streaming
            s.published = response
            defer { s.headWaiter = nil }
            return s.headWaiter
        }
        waiter?.resume(returning: response)
    }

    package func append(_ data: Data) throws {
        enum Step { case done, hand(CheckedContinuation<Data?, any Error>), wait }
        let step = state.withLock { s -> Step in
            guard !s.writerStopped else { return .done }
            switch s.phase {
            case .holding:
                let room = ContentHandlerError.maximumKeptBodySize - s.held.count
                if room > 0 { s.held.append(data.prefix(room)) }
                return .done
            case .streaming:
                if let consumer = s.consumer {
                    s.consumer = nil
                    return .hand(consumer)
                }
                s.chunks.append(data)
                s.buffered += data.count
                s.peakBuffered = max(s.peakBuffered, s.buffered)
                guard s.pacesTransfer, s.buffered >= Self.budget else { return .done }
                s.writerWaiting = true
                return .wait
            }
        }
        switch step {
        case .done: break
        case .hand(let consumer): consumer.resume(returning: data)
        case .wait: room.wait()
        }
    }

    package func parseContent() throws -> (any Sendable)? { nil }

    /// The body kept of a response that isn't streamed, for the error it may end in.
    package var receivedData: Data? {
        state.withLock { s in s.phase == .holding ? s.held : nil }
    }

    /// The run is ending (a cancel, the deadline): a blocked `append` returns, later ones drop
    /// their bytes, so that the transport's thread is free before the transfer is cancelled.
    func interrupt() {
        let wakes = state.withLock { s -> Bool in
            s.writerStopped = true
            return s.wakesWriter()
        }
        if wakes { room.signal() }
    }

    // MARK: The run's end

    /// The run ended with `error`, or succeeded with `response`.
    package func finish(response: HTTPResponse, error: (any Error)?) {
        let error = error.map(Self.thrown)
        let (headWaiter, consumer, wakes) = state.withLock { s in
            s.cycle = nil
            s.writerStopped = true
            if error == nil, s.published == nil {
                // A response delivered without being streamed: its kept body is the one chunk.
                s.published = response
                if !s.held.isEmpty {
                    s.chunks.append(s.held)
                    s.buffered += s.held.count
                }
                s.held = Data()
            }
            s.end = error.map { .failure($0) } ?? .success(())
            let headWaiter = s.headWaiter
            s.headWaiter = nil
            // A consumer waits only on an empty buffer: it gets the chunk published here, or the end.
            var consumer: (CheckedContinuation<Data?, any Error>, Result<Data?, any Error>)?
            if let waiting = s.consumer {
                s.consumer = nil
                if let chunk = s.takeChunk() {
                    consumer = (waiting, .success(chunk))
                } else {
                    s.endTaken = true
                    consumer = (waiting, error.map { .failure($0) } ?? .success(nil))
                }
            }
            return (headWaiter, consumer, s.wakesWriter())
        }
        if wakes { room.signal() }
        if let headWaiter {
            if let error { headWaiter.resume(throwing: error) } else { headWaiter.resume(returning: response) }
        }
        if let (consumer, result) = consumer { consumer.resume(with: result) }
    }

    /// A cancelled run as Swift code expects it.
    private static func thrown(_ error: any Error) -> any Error {
        if case HTTPError.cancelled = error { return CancellationError() }
        return error
    }

    // MARK: The consumer

    /// The head of the streamed response, once it arrives.
    package func head() async throws -> HTTPResponse {
        // Resumed by a transport's thread after it let go of the state: ordered for ThreadSanitizer.
        defer { state.fence() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let ready = state.withLock { s -> Result<HTTPResponse, any Error>? in
                    if let published = s.published { return .success(published) }
                    if case .failure(let error)? = s.end { return .failure(error) }
                    if s.terminated { return .failure(CancellationError()) }
                    s.headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            terminate(fromCancellationHandler: true)
        }
    }

    /// The next chunk, `nil` at the end of the body.
    func next() async throws -> Data? {
        defer { state.fence() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (ready, wakes) = state.withLock { s -> (Result<Data?, any Error>?, Bool) in
                    if let chunk = s.takeChunk() { return (.success(chunk), s.wakesWriter()) }
                    if s.endTaken { return (.success(nil), false) }
                    if let end = s.end {
                        s.endTaken = true
                        return (end.map { nil }, false)
                    }
                    if s.terminated { return (.failure(CancellationError()), false) }
                    s.consumer = continuation
                    return (nil, false)
                }
                if wakes { room.signal() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            terminate(fromCancellationHandler: true)
        }
    }

    /// The consumer went away or its task was cancelled: the buffer is dropped, the writer freed,
    /// and the run, if it still goes, cancelled.
    ///
    /// From a task's cancellation handler, the run is cancelled on another thread: the handler runs
    /// with the task's status locked, and cancelling the run waits for a content-handler call in
    /// progress, which may be resuming this very task (``append(_:)``), which needs that lock: each
    /// would wait for the other (seen under TSan, URLSession transport).
    func terminate(fromCancellationHandler: Bool = false) {
        let (cycle, consumer, headWaiter, wakes) = state.withLock { s in
            s.terminated = true
            s.writerStopped = true
            s.chunks = []
            s.head = 0
            s.buffered = 0
            let taken = (s.cycle, s.consumer, s.headWaiter, s.wakesWriter())
            s.cycle = nil
            s.consumer = nil
            s.headWaiter = nil
            return taken
        }
        if wakes { room.signal() }
        consumer?.resume(throwing: CancellationError())
        headWaiter?.resume(throwing: CancellationError())
        guard let cycle else { return }
        if fromCancellationHandler {
            DispatchQueue.global().async { cycle.cancel(explicitly: false) }
        } else {
            cycle.cancel(explicitly: false)
        }
    }
}
