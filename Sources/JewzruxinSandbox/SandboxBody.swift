import Foundation

/// A response body of known length whose bytes are produced on demand.
///
/// The sandbox asks for the body piece by piece while writing it, so a body can be far
/// larger than memory: ``pattern(count:)`` describes gigabytes without allocating them.
/// Small bodies are simply wrapped `Data`.
public struct SandboxBody: Sendable {
    /// The total number of bytes in the body.
    public let count: Int64

    private let producer: @Sendable (_ offset: Int64, _ length: Int) -> Data

    /// Creates a body of `count` bytes produced by `producer`.
    ///
    /// The sandbox calls `producer(offset, length)` with non-overlapping, increasing
    /// ranges inside `0..<count` (at most 64 KiB each) and may call it from any thread.
    /// It must return exactly `length` bytes; if it returns a different amount the
    /// connection is closed, since the response framing would otherwise be wrong.
    public init(count: Int64, producer: @escaping @Sendable (_ offset: Int64, _ length: Int) -> Data) {
        self.count = max(0, count)
        self.producer = producer
    }

    /// An empty body.
    public static let empty = SandboxBody(count: 0) { _, _ in Data() }

    /// A body holding `data`.
    ///
    /// Suitable for bodies that fit in memory; use ``init(count:producer:)`` or
    /// ``pattern(count:)`` for very large ones.
    public static func data(_ data: Data) -> SandboxBody {
        SandboxBody(count: Int64(data.count)) { offset, length in
            let start = data.startIndex + Int(offset)
            return data.subdata(in: start..<(start + length))
        }
    }

    /// A body holding the UTF-8 bytes of `text`.
    public static func text(_ text: String) -> SandboxBody {
        .data(Data(text.utf8))
    }

    /// A body of `count` copies of `byte` (the `/drip/` endpoint uses `*`).
    public static func repeating(_ byte: UInt8, count: Int64) -> SandboxBody {
        SandboxBody(count: count) { _, length in
            Data(repeating: byte, count: length)
        }
    }

    /// A body of `count` deterministic bytes: the byte at offset `i` is `UInt8(i % 251)`.
    ///
    /// This is the pattern served by `/bytes/N` and `/drop/`; use
    /// ``patternByte(at:)`` or ``expectedPattern(offset:count:)`` to verify downloads.
    public static func pattern(count: Int64) -> SandboxBody {
        SandboxBody(count: count) { offset, length in
            expectedPattern(offset: offset, count: length)
        }
    }

    /// The byte at `offset` in the ``pattern(count:)`` body.
    public static func patternByte(at offset: Int64) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % 251)
    }

    /// `count` bytes of the ``pattern(count:)`` body starting at `offset`.
    public static func expectedPattern(offset: Int64 = 0, count: Int) -> Data {
        guard count > 0 else { return Data() }
        var result = Data(capacity: count)
        var phase = Int(offset % 251)
        var remaining = count
        patternTable.withUnsafeBufferPointer { table in
            while remaining > 0 {
                let take = min(remaining, table.count - phase)
                result.append(UnsafeBufferPointer(rebasing: table[phase..<(phase + take)]))
                remaining -= take
                phase = 0
            }
        }
        return result
    }

    /// The bytes at `offset..<offset + length`, as supplied by the producer.
    ///
    /// The range is clamped to the body; asking outside it returns fewer bytes.
    public func bytes(at offset: Int64, length: Int) -> Data {
        let start = max(0, offset)
        let available = max(0, count - start)
        let clamped = Int(min(Int64(max(0, length)), available))
        guard clamped > 0 else { return Data() }
        return producer(start, clamped)
    }

    /// The whole body collected into memory, or `nil` if it is larger than `limit` bytes.
    public func collect(limit: Int64 = 64 << 20) -> Data? {
        guard count <= limit else { return nil }
        var result = Data(capacity: Int(count))
        var offset: Int64 = 0
        while offset < count {
            let piece = bytes(at: offset, length: 64 << 10)
            guard !piece.isEmpty else { return nil }
            result.append(piece)
            offset += Int64(piece.count)
        }
        return result
    }

    /// 251-periodic pattern, many periods long, so a 64 KiB request needs few appends.
    private static let patternTable: [UInt8] = (0..<(251 * 64)).map { UInt8($0 % 251) }
}
