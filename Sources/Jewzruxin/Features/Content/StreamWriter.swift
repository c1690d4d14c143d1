import Foundation

/// Writes the body to an `OutputStream` as it arrives, keeping nothing in memory.
///
/// The stream is opened on the first response if it isn't open yet, and closed once the body has
/// all been written (unless ``closesStream`` is `false`). After a failure it is left open: bytes
/// already written can't be taken back, so a stream that must hold exactly one body wants a cycle
/// that doesn't retry. The content is `nil`.
open class StreamWriter: SelectiveDiscarder, @unchecked Sendable {
    /// Where the bytes go.
    public let stream: OutputStream
    /// Whether to close the stream after a successful response; `true` by default.
    public var closesStream: Bool
    /// The bytes written for the current response.
    public private(set) var bytesWritten: Int64 = 0

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - stream: Where the bytes go; opened on the first response if it isn't yet.
    ///   - closesStream: Whether to close the stream after a successful response.
    ///   - acceptableResponses: The statuses taken; `nil` uses the class default.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class default.
    public init(
        stream: OutputStream, closesStream: Bool = true,
        acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil
    ) {
        self.stream = stream
        self.closesStream = closesStream
        super.init(acceptableResponses: acceptableResponses, acceptableContentTypes: acceptableContentTypes)
    }

    /// Applies the acceptance rules, then opens the stream if needed.
    ///
    /// - Throws: A refusal, or ``ContentHandlerError/Code/writeFailed`` when the stream can't be opened.
    open override func prepare(for response: HTTPResponse) throws {
        try super.prepare(for: response)
        bytesWritten = 0
        if stream.streamStatus == .notOpen { stream.open() }
        switch stream.streamStatus {
        case .open, .writing: return
        default: throw failure("the output stream is not open (\(stream.streamStatus))")
        }
    }

    /// Writes the bytes, all of them, before returning.
    ///
    /// - Throws: ``ContentHandlerError/Code/writeFailed`` when the stream refuses them.
    open override func append(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var offset = 0
            while offset < buffer.count {
                let written = stream.write(base + offset, maxLength: buffer.count - offset)
                guard written > 0 else { throw failure("the output stream took no more bytes") }
                offset += written
            }
        }
        bytesWritten += Int64(data.count)
    }

    /// Closes the stream if ``closesStream``; no content.
    open override func parseContent() throws -> (any Sendable)? {
        if closesStream { stream.close() }
        return nil
    }

    private func failure(_ reason: String) -> ContentHandlerError {
        ContentHandlerError(.writeFailed, reason: reason, response: response, underlyingError: stream.streamError)
    }
}
