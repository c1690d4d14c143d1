/// The block buffering and Merkle–Damgård padding shared by ``MD5`` and ``SHA256``.
///
/// Both hashes consume 64-byte blocks and end the message with a `0x80` byte, zeros,
/// and the message length in bits as a 64-bit integer (little-endian for MD5,
/// big-endian for SHA-256). This type keeps the bytes of an incomplete block and the
/// running length; the hash supplies its compression function as a closure.
struct MessageBlockBuffer: Sendable {
    /// The block size of MD5 and SHA-256, in bytes.
    static let blockByteCount = 64

    /// Bytes of the current, incomplete block (always fewer than 64).
    private var pending: [UInt8]

    /// The number of message bytes fed so far.
    private(set) var length: UInt64 = 0

    /// Creates an empty buffer.
    init() {
        pending = []
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// Feeds `bytes`, calling `compress(buffer, offset)` for each complete 64-byte block.
    ///
    /// Whole blocks are compressed straight from `bytes`; only a leading or trailing
    /// partial block is copied.
    mutating func feed(
        _ bytes: UnsafeRawBufferPointer, compress: (UnsafeRawBufferPointer, Int) -> Void
    ) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(Self.blockByteCount - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBytes { compress($0, 0) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= Self.blockByteCount {
            compress(bytes, offset)
            offset += Self.blockByteCount
        }
        if offset < bytes.count {
            pending.append(contentsOf: bytes[offset...])
        }
    }

    /// Appends the padding and the bit length, compressing the final block(s).
    ///
    /// - Parameters:
    ///   - bigEndianLength: `true` for SHA-256, `false` for MD5.
    ///   - compress: the hash's compression function.
    mutating func finish(bigEndianLength: Bool, compress: (UnsafeRawBufferPointer, Int) -> Void) {
        let bitLength = length &* 8
        let remainder = Int(length % UInt64(Self.blockByteCount))
        let zeros = (Self.blockByteCount + 55 - remainder) % Self.blockByteCount
        var tail = [UInt8](repeating: 0, count: 1 + zeros + 8)
        tail[0] = 0x80
        for index in 0..<8 {
            let shift = UInt64(bigEndianLength ? 56 - 8 * index : 8 * index)
            tail[1 + zeros + index] = UInt8(truncatingIfNeeded: bitLength >> shift)
        }
        tail.withUnsafeBytes { feed($0, compress: compress) }
    }
}
