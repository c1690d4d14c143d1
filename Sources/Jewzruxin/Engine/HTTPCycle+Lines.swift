import Foundation

// A response body read line by line: NDJSON, logs, any line-delimited stream.
extension HTTPCycle.ByteStream {
    /// The body's lines as they arrive, without their line ends (LF or CRLF), decoded as UTF-8 (an
    /// invalid sequence becomes U+FFFD). A last line without a line end is given too.
    ///
    /// ```swift
    /// let (_, bytes) = try await HTTPCycle(requestURL: url).stream()
    /// for try await line in bytes.lines {
    ///     let record = try JSON(data: Data(line.utf8))
    /// }
    /// ```
    ///
    /// A line is at most 1 MiB: a longer one throws ``LineTooLongError``. Use
    /// ``lines(maximumLength:)`` for another limit.
    public var lines: HTTPCycle.LineStream { lines(maximumLength: HTTPCycle.LineStream.defaultMaximumLength) }

    /// The body's lines as they arrive (``lines``), each at most `maximumLength` bytes.
    ///
    /// - Parameter maximumLength: The longest line taken, in bytes, its line end left out.
    public func lines(maximumLength: Int) -> HTTPCycle.LineStream {
        HTTPCycle.LineStream(bytes: self, maximumLength: maximumLength)
    }
}

extension HTTPCycle {
    /// A line longer than a ``LineStream`` takes.
    public struct LineTooLongError: Error, Sendable, CustomStringConvertible {
        /// The limit, in bytes.
        public let maximumLength: Int

        public var description: String { "The body sent a line longer than \(maximumLength) bytes." }
    }

    /// The lines of a response body as they arrive (``ByteStream/lines``).
    ///
    /// Iterate it once; leaving the loop or cancelling the task cancels the request, as with the
    /// ``ByteStream`` it reads.
    public struct LineStream: AsyncSequence, Sendable {
        /// 1 MiB.
        public static let defaultMaximumLength = 1 << 20

        let bytes: ByteStream
        let maximumLength: Int

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(bytes: bytes.makeAsyncIterator(), maximumLength: maximumLength)
        }

        /// Gives the lines of a ``LineStream``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private var bytes: ByteStream.AsyncIterator
            private let maximumLength: Int
            private var pending: [UInt8] = []
            private var lines: [String] = []
            private var lineIndex = 0
            private var ended = false

            init(bytes: ByteStream.AsyncIterator, maximumLength: Int) {
                self.bytes = bytes
                self.maximumLength = maximumLength
            }

            /// The next line.
            ///
            /// - Returns: The next line, `nil` at the end of the body.
            /// - Throws: ``LineTooLongError``, or what the byte stream throws.
            public mutating func next() async throws -> String? {
                while true {
                    if lineIndex < lines.count {
                        defer { lineIndex += 1 }
                        return lines[lineIndex]
                    }
                    lines.removeAll(keepingCapacity: true)
                    lineIndex = 0
                    if ended { return nil }
                    guard let chunk = try await bytes.next() else {
                        ended = true
                        if !pending.isEmpty {
                            lines.append(try line(pending[...]))
                            pending = []
                        }
                        continue
                    }
                    try split(chunk)
                }
            }

            private mutating func split(_ chunk: Data) throws {
                var start = chunk.startIndex
                while let newline = chunk[start...].firstIndex(of: 0x0A) {
                    let piece = chunk[start..<newline]
                    if pending.isEmpty {
                        lines.append(try line(piece))
                    } else {
                        pending.append(contentsOf: piece)
                        lines.append(try line(pending[...]))
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
                let rest = chunk[start...]
                // One more byte than the limit may wait: the CR of a CRLF.
                guard pending.count + rest.count <= maximumLength + 1 else { throw LineTooLongError(maximumLength: maximumLength) }
                pending.append(contentsOf: rest)
            }

            /// A line without its CR, if it ended with CRLF.
            private func line<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) throws -> String {
                let content = bytes.last == 0x0D ? bytes.dropLast() : bytes[...]
                guard content.count <= maximumLength else { throw LineTooLongError(maximumLength: maximumLength) }
                return String(decoding: content, as: UTF8.self)
            }
        }
    }
}
