import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives a response body chunk by chunk, as the transport delivers it.
///
/// A cycle makes a fresh consumer for every run and calls ``prepare(for:)`` for every response that
/// arrives on the task — more than once when URLSession hands over an intermediate response first
/// (the 401 before an authenticated retry, L3) — so each response starts from an empty state.
/// Calls come one at a time, in order, from the session's network queue: keep them quick (L2).
protocol ResponseBodyConsumer: Sendable {
    /// A response's status and headers arrived; forget anything received before.
    mutating func prepare(for response: HTTPURLResponse) throws
    /// The next bytes of the body.
    mutating func append(_ chunk: Data) throws
    /// The bytes to keep as ``HTTPResponse/data``.
    var data: Data { get }
    /// The transfer was abandoned or its result is no longer needed: release what was written.
    mutating func discard()
}

/// The default consumer: keeps the whole body in memory.
struct DataAccumulator: ResponseBodyConsumer {
    private(set) var data = Data()

    mutating func prepare(for response: HTTPURLResponse) {
        data.removeAll(keepingCapacity: true)
        let expected = response.expectedContentLength
        // L13: Content-Length may describe the encoded body, so it is only a hint, and a bounded one.
        if expected > 0 && expected <= 16 << 20 { data.reserveCapacity(Int(expected)) }
    }

    mutating func append(_ chunk: Data) {
        data.append(chunk)
    }

    mutating func discard() {}
}
