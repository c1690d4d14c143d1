import Foundation

/// A request body produced as it is sent: an async sequence of `Data`, made afresh for each
/// attempt (a retry, a 307/308 redirect, an authentication challenge sends it again from its start).
///
/// ```swift
/// let body = UploadStream(length: 6) {
///     AsyncThrowingStream { continuation in
///         continuation.yield(Data("hel".utf8))
///         continuation.yield(Data("lo\n".utf8))
///         continuation.finish()
///     }
/// }
/// let cycle = try await HTTPCycle.upload(url, source: .stream(body))
/// ```
///
/// With a `length` the request has that `Content-Length`, and a sequence that gives more or fewer
/// bytes fails the request (`URLError(.cannotDecodeRawData)` saying so) rather than sending a body
/// of another length; without one it goes chunked. At most 256 KiB wait between the sequence and
/// the connection: the sequence is asked for more only as the transport sends. An error the
/// sequence throws fails the request with it.
///
/// On the curl and native transports the bytes go out as they come. URLSession on Linux can't take
/// one: FoundationNetworking reads a body stream on the queue its own calls wait for, so a request
/// with a streamed body fails there at once with `URLError(.unsupportedURL)` saying so (Apple's
/// URLSession reads it on a thread of its own).
public final class UploadStream: Sendable, Hashable, CustomStringConvertible {
    /// The body's length in bytes, `nil` when unknown (it is then sent chunked).
    public let length: Int64?
    private let make: @Sendable () -> AsyncThrowingStream<Data, any Error>

    /// A body of `length` bytes (unknown when `nil`), read from the stream `make` returns, called
    /// once per attempt.
    ///
    /// - Parameters:
    ///   - length: The body's length, `nil` when unknown.
    ///   - make: Makes the stream of the body's bytes, from its start.
    public init(length: Int64? = nil, _ make: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>) {
        self.length = length
        self.make = make
    }

    /// A body of `length` bytes (unknown when `nil`) read from the sequence `make` returns, called
    /// once per attempt.
    ///
    /// - Parameters:
    ///   - length: The body's length, `nil` when unknown.
    ///   - make: Makes the sequence of the body's bytes, from its start.
    public convenience init<Sequence: AsyncSequence & Sendable>(length: Int64? = nil, sequence make: @escaping @Sendable () -> Sequence)
    where Sequence.Element == Data {
        self.init(length: length) {
            AsyncThrowingStream { continuation in
                let task = Task {
                    do {
                        for try await chunk in make() { continuation.yield(chunk) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// Starts a pass over the body: its bytes come through the pipe as the producer makes them.
    func open() -> UploadPipe {
        UploadPipe(make(), length: length)
    }

    public static func == (lhs: UploadStream, rhs: UploadStream) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { "UploadStream(\(length.map { "\($0) bytes" } ?? "length unknown"))" }
}

/// One pass over an ``UploadStream``: a task reads the stream into a bounded buffer, and a
/// transport's thread takes the bytes, waiting (``readWaiting(into:)``) or told when more come
/// (``read(into:whenReadable:)``). No call into the stream, a continuation or a callback happens
/// under the lock.
final class UploadPipe: Sendable {
    /// The bytes that may wait for the transport before the stream is asked for more.
    static let capacity = 256 * 1024

    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        /// How the stream ended: `nil` while it runs.
        var end: Result<Void, any Error>?
        /// The producer waits for room.
        var room: CheckedContinuation<Void, Never>?
        /// Told once when bytes or the end arrive (a paused curl transfer).
        var whenReadable: (@Sendable () -> Void)?
        var closed = false
        /// The bytes the stream gave so far.
        var produced: Int64 = 0
        /// The task reading the stream, cancelled by ``close()``.
        var producer: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let arrival = DispatchSemaphore(value: 0)
    private let length: Int64?

    /// What a non-blocking read found.
    enum Read: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// None yet: the callback given will be called when some come.
        case waiting
        /// The end of the body.
        case end
    }

    init(_ stream: AsyncThrowingStream<Data, any Error>, length: Int64?) {
        self.length = length
        let task = Task { [self] in
            do {
                for try await chunk in stream {
                    guard !chunk.isEmpty else { continue }
                    guard await push(chunk) else { return }
                }
                finish(.success(()))
            } catch {
                finish(.failure(error))
            }
        }
        state.withLock { $0.producer = task }
    }

    /// Adds a chunk, waiting while the buffer is full; `false` once the pipe is closed.
    private func push(_ chunk: Data) async -> Bool {
        let (accepted, mismatch, callback) = state.withLock { s -> (Bool, Bool, (@Sendable () -> Void)?) in
            guard !s.closed, s.end == nil else { return (false, false, nil) }
            s.produced += Int64(chunk.count)
            if let length, s.produced > length { return (true, true, nil) }
            s.chunks.append(chunk)
            s.buffered += chunk.count
            defer { s.whenReadable = nil }
            return (true, false, s.whenReadable)
        }
        if mismatch {
            finish(.failure(lengthMismatch(more: true)))
            return false
        }
        guard accepted else { return false }
        arrival.signal()
        callback?()
        // Wait for room: resumed by a read that takes the buffer under the capacity, or a close.
        await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { s -> Bool in
                guard s.buffered >= Self.capacity, !s.closed else { return false }
                s.room = room
                return true
            }
            if !waits { room.resume() }
        }
        state.fence()
        return !state.withLock { $0.closed }
    }

    private func finish(_ end: Result<Void, any Error>) {
        var end = end
        let callback = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.end == nil else { return nil }
            if case .success = end, let length, s.produced != length { end = .failure(lengthMismatch(more: s.produced > length)) }
            s.end = end
            defer { s.whenReadable = nil }
            return s.whenReadable
        }
        arrival.signal()
        callback?()
    }

    private func lengthMismatch(more: Bool) -> URLError {
        URLError(.cannotDecodeRawData, userInfo: [
            NSLocalizedDescriptionKey: "The upload stream gave \(more ? "more" : "fewer") bytes than its length, \(length ?? 0).",
        ])
    }

    /// Copies the next bytes into `buffer`, or says there are none yet and calls `whenReadable`
    /// (once, from another thread) when some come or the stream ends.
    ///
    /// - Throws: The stream's error, or a length mismatch.
    func read(into buffer: UnsafeMutableRawBufferPointer, whenReadable: @escaping @Sendable () -> Void) throws -> Read {
        let (result, room) = try state.withLock { s throws -> (Read, CheckedContinuation<Void, Never>?) in
            if s.closed { throw URLError(.cancelled) }
            let count = Self.take(&s, into: buffer)
            if count > 0 {
                let room = s.buffered < Self.capacity ? s.room : nil
                if room != nil { s.room = nil }
                return (.bytes(count), room)
            }
            switch s.end {
            case .success?: return (.end, nil)
            case .failure(let error)?: throw error
            case nil:
                s.whenReadable = whenReadable
                return (.waiting, nil)
            }
        }
        room?.resume()
        return result
    }

    /// Copies the next bytes into `buffer`, waiting for them; 0 at the end of the body.
    ///
    /// - Parameter isInterrupted: Asked every tenth of a second while the stream gives nothing:
    ///   `true` (the request was cancelled) ends the wait with `URLError(.cancelled)`.
    /// - Throws: The stream's error, a length mismatch, or `URLError(.cancelled)`.
    func readWaiting(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws -> Int {
        while true {
            switch try read(into: buffer, whenReadable: {}) {
            case .bytes(let count): return count
            case .end: return 0
            case .waiting:
                if arrival.wait(timeout: .now() + 0.1) == .timedOut, isInterrupted() { throw URLError(.cancelled) }
            }
        }
    }

    /// Stops the stream: the producer is cancelled and its bytes dropped.
    func close() {
        let (room, producer) = state.withLock { s -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            s.closed = true
            s.chunks = []
            s.buffered = 0
            s.whenReadable = nil
            defer { s.room = nil }
            return (s.room, s.producer)
        }
        room?.resume()
        producer?.cancel()
        arrival.signal()
    }

    private static func take(_ s: inout State, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count, !s.chunks.isEmpty {
            let chunk = s.chunks[0]
            let count = min(chunk.count, buffer.count - filled)
            chunk.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + count)]).bindMemory(to: UInt8.self), from: chunk.startIndex..<(chunk.startIndex + count))
            filled += count
            if count == chunk.count {
                s.chunks.removeFirst()
            } else {
                s.chunks[0] = chunk.dropFirst(count)
            }
        }
        s.buffered -= filled
        return filled
    }
}
