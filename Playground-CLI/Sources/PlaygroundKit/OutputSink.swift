import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two streams the playground writes to.
enum OutputStreamKind: Sendable, Hashable {
    /// Results: status lines, bodies, listings.
    case standardOutput
    /// `error: …` lines.
    case standardError
}

/// Where the playground's text goes: the process's streams, or memory in tests.
///
/// Writes may come from several threads (progress and the spinner are drawn from the session's
/// queues); each call's text must arrive whole.
protocol OutputSink: Sendable {
    /// Writes text, as it is, to a stream.
    ///
    /// - Parameters:
    ///   - text: The text, with its newlines.
    ///   - stream: The stream.
    func write(_ text: String, to stream: OutputStreamKind)
}

/// Writes to file descriptors 1 and 2, unbuffered, one call at a time, so that output and errors
/// keep their order when both go to the same place.
final class StandardStreams: OutputSink {
    private let lock = Mutex(())

    /// Creates the sink.
    init() {}

    /// Writes all of `text` to standard output or standard error.
    func write(_ text: String, to stream: OutputStreamKind) {
        let descriptor: Int32 = stream == .standardOutput ? 1 : 2
        lock.withLock { _ in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Self.systemWrite(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, pointer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, pointer, count)
        #else
        Darwin.write(descriptor, pointer, count)
        #endif
    }
}

/// Keeps what is written in memory, for tests: both streams in order, and each on its own.
final class CapturedOutput: OutputSink {
    private let chunks = Mutex<[(OutputStreamKind, String)]>([])

    /// Creates an empty capture.
    init() {}

    /// Keeps the text, with the stream it was written to.
    func write(_ text: String, to stream: OutputStreamKind) {
        chunks.withLock { $0.append((stream, text)) }
    }

    /// Everything written, both streams interleaved in order.
    var all: String { chunks.withLock { $0.map(\.1).joined() } }
    /// What was written to standard output.
    var standardOutput: String { text(of: .standardOutput) }
    /// What was written to standard error.
    var standardError: String { text(of: .standardError) }

    /// Forgets what was written.
    func clear() { chunks.withLock { $0.removeAll() } }

    private func text(of stream: OutputStreamKind) -> String {
        chunks.withLock { $0.filter { $0.0 == stream }.map(\.1).joined() }
    }
}
