import Foundation
import Jewzruxin

/// A response body as it arrives, from `HTTPSession.stream(_:body:configure:)`: an
/// `AsyncSequence` of `Data` chunks, iterated once.
///
/// A 2xx body is the library's `HTTPCycle.ByteStream`, with its backpressure (about
/// 1 MiB waits for a slow consumer at most on the curl and native transports); leaving the loop,
/// dropping the sequence, or cancelling the task that iterates it cancels the request. The body of
/// any other status arrived whole before the call returned, and comes as one chunk.
public struct StreamedResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, as it arrived.
    public typealias Element = Data

    private enum Source: Sendable {
        case stream(HTTPCycle.ByteStream)
        case whole(Data)
    }

    private let source: Source

    /// The body's length in bytes when the response says it and it is what the sequence gives:
    /// `Content-Length` without `Content-Encoding` (a transport that decodes a body hands on more
    /// bytes than it counts), the whole body's size when it came whole; `nil` otherwise.
    public let expectedLength: Int64?

    /// A body streamed as it arrives.
    init(_ bytes: HTTPCycle.ByteStream, expectedLength: Int64?) {
        source = .stream(bytes)
        self.expectedLength = expectedLength
    }

    /// A body that arrived whole.
    init(whole data: Data) {
        source = .whole(data)
        expectedLength = Int64(data.count)
    }

    /// An iterator over the chunks; the body can be iterated once.
    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .stream(let bytes): AsyncIterator(stream: bytes.makeAsyncIterator(), whole: nil)
        case .whole(let data): AsyncIterator(stream: nil, whole: data.isEmpty ? nil : data)
        }
    }

    /// Gives the chunks of a ``StreamedResponseBody``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var stream: HTTPCycle.ByteStream.AsyncIterator?
        var whole: Data?

        /// The next chunk of the body.
        ///
        /// - Returns: The next bytes, or `nil` at the end of the body.
        /// - Throws: The error the request ended with (a dropped connection, its deadline), or
        ///   `CancellationError` when it or the task was cancelled.
        public mutating func next() async throws -> Data? {
            if let data = whole {
                whole = nil
                return data
            }
            return try await stream?.next()
        }
    }

    /// The body's length as the head of `response` announces it, for the bytes a stream will give.
    static func expectedLength(of response: HTTPResponse, method: HTTPMethod) -> Int64? {
        if method == .head { return 0 }
        if let status = response.statusCode, status == 204 || status == 304 { return 0 }
        guard response.value(forHTTPHeaderField: "Content-Encoding") == nil else { return nil }
        let length = response.expectedContentLength
        return length >= 0 ? length : nil
    }
}
