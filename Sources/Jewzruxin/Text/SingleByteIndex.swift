import Foundation

/// A single-byte encoding as a table: bytes below 0x80 are ASCII, each byte 0x80–0xFF maps to
/// one code point (U+FFFD where the WHATWG index has no entry, which is the WHATWG decode result
/// for such a byte).
///
/// Decoding never fails and never goes through Foundation: runs of ASCII are copied eight bytes
/// at a time and the other bytes are written as pre-encoded UTF-8, straight into the storage of
/// the result string, which is sized exactly beforehand.
struct SingleByteIndex: Sendable {
    /// For the byte `0x80 + i`: its UTF-8 bytes in the low 24 bits (first byte lowest) and
    /// their count in the top 8 bits.
    private let packedUTF8: [UInt32]

    /// Creates the table from the code points of the bytes 0x80–0xFF.
    ///
    /// - Parameter highBytes: 128 code points, the first for 0x80. Values that are not Unicode
    ///   scalars (surrogates) and missing entries decode to U+FFFD.
    init(highBytes: [UInt16]) {
        var packed = [UInt32](repeating: Self.pack(0xFFFD), count: 128)
        for (offset, value) in highBytes.prefix(128).enumerated() {
            packed[offset] = Self.pack(UInt32(value))
        }
        packedUTF8 = packed
    }

    /// ISO-8859-1 in its literal sense: every byte is the code point of the same value.
    static let isoLatin1 = SingleByteIndex(highBytes: (0x80...0xFF).map { UInt16($0) })

    /// WHATWG x-user-defined: the bytes 0x80–0xFF map to U+F780–U+F7FF.
    static let xUserDefined = SingleByteIndex(highBytes: (0x80...0xFF).map { UInt16(0xF780 + $0 - 0x80) })

    /// Decodes the bytes.
    ///
    /// - Parameter data: The bytes, in this encoding.
    /// - Returns: The text; undefined bytes become U+FFFD.
    func decode(_ data: Data) -> String {
        data.withUnsafeBytes { decode($0) }
    }

    /// Decodes the bytes.
    ///
    /// - Parameter bytes: The bytes, in this encoding.
    /// - Returns: The text; undefined bytes become U+FFFD.
    func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return "" }
        let count = bytes.count
        return packedUTF8.withUnsafeBufferPointer { table in
            let outputCount = Self.outputCount(source, count: count, table: table)
            return String(unsafeUninitializedCapacity: outputCount) { output in
                guard let target = output.baseAddress else { return 0 }
                return Self.transcode(source, count: count, table: table, into: target)
            }
        }
    }

    // MARK: - Internals

    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    private static func pack(_ value: UInt32) -> UInt32 {
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        var packed: UInt32 = 0
        var length: UInt32 = 0
        for unit in String(scalar).utf8 {
            packed |= UInt32(unit) << (8 * length)
            length += 1
        }
        return packed | length << 24
    }

    /// The number of UTF-8 bytes the input decodes to.
    private static func outputCount(
        _ source: UnsafeRawPointer, count: Int, table: UnsafeBufferPointer<UInt32>
    ) -> Int {
        var total = count
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & highBits == 0 {
                    index += 8
                    continue
                }
            }
            let byte = source.load(fromByteOffset: index, as: UInt8.self)
            if byte >= 0x80 {
                total += Int(table[Int(byte &- 0x80)] >> 24) - 1
            }
            index += 1
        }
        return total
    }

    /// Writes the UTF-8 of the input to `target`, which holds at least `outputCount` bytes.
    private static func transcode(
        _ source: UnsafeRawPointer, count: Int, table: UnsafeBufferPointer<UInt32>,
        into target: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let raw = UnsafeMutableRawPointer(target)
        var index = 0
        var written = 0
        while index < count {
            if index + 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & highBits == 0 {
                    raw.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                    index += 8
                    written += 8
                    continue
                }
            }
            let byte = source.load(fromByteOffset: index, as: UInt8.self)
            index += 1
            if byte < 0x80 {
                target[written] = byte
                written += 1
                continue
            }
            let packed = table[Int(byte &- 0x80)]
            let length = Int(packed >> 24)
            target[written] = UInt8(truncatingIfNeeded: packed)
            if length > 1 { target[written + 1] = UInt8(truncatingIfNeeded: packed >> 8) }
            if length > 2 { target[written + 2] = UInt8(truncatingIfNeeded: packed >> 16) }
            written += length
        }
        return written
    }
}
