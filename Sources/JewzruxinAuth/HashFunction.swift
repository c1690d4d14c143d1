import Foundation

/// A cryptographic hash computed incrementally: feed bytes with `update`, then
/// `finalize` once.
///
/// ``MD5`` and ``SHA256`` conform. Both are plain value types with no heap state besides
/// a 64-byte block buffer, so hashing a stream costs no allocation per call. The
/// one-shot `hash` and `hexHash` helpers cover the common cases.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Data("ab".utf8))
/// hasher.update("c")
/// let digest = hasher.finalize()          // 32 bytes
/// Hex.encode(digest)                      // "ba7816bf…"
/// MD5.hexHash("abc")                      // "900150983cd24fb0d6963f7d28e17f72"
/// ```
package protocol HashFunction: Sendable {
    /// The size of a digest in bytes (16 for MD5, 32 for SHA-256).
    static var digestByteCount: Int { get }

    /// Creates a hasher in its initial state.
    init()

    /// Feeds `bytes` to the hash.
    ///
    /// May be called any number of times, with any lengths, before ``finalize()``.
    mutating func update(bufferPointer bytes: UnsafeRawBufferPointer)

    /// Pads the message, processes the last block and returns the digest.
    ///
    /// The hasher must not be used afterwards.
    mutating func finalize() -> [UInt8]
}

extension HashFunction {
    /// Feeds a byte sequence to the hash.
    ///
    /// Contiguous collections (`[UInt8]`, `Data`, `String.UTF8View` of a native string)
    /// are hashed in place; other sequences are copied in pieces of 4 KiB.
    package mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(bufferPointer: UnsafeRawBufferPointer(buffer))
        }
        guard done == nil else { return }
        var piece: [UInt8] = []
        piece.reserveCapacity(4096)
        for byte in bytes {
            piece.append(byte)
            if piece.count == 4096 {
                piece.withUnsafeBytes { update(bufferPointer: $0) }
                piece.removeAll(keepingCapacity: true)
            }
        }
        piece.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// Feeds the bytes of `data` to the hash.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// Feeds the UTF-8 encoding of `text` to the hash.
    package mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// The digest of a byte sequence.
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var hasher = Self()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of the bytes of `data`.
    package static func hash(_ data: Data) -> [UInt8] {
        var hasher = Self()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of the UTF-8 encoding of `text`.
    package static func hash(_ text: String) -> [UInt8] {
        var hasher = Self()
        hasher.update(text)
        return hasher.finalize()
    }

    /// The digest of the bytes in `buffer`.
    package static func hash(bufferPointer buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = Self()
        hasher.update(bufferPointer: buffer)
        return hasher.finalize()
    }

    /// The lowercase hexadecimal digest of the UTF-8 encoding of `text`.
    ///
    /// This is the `H(…)` / `KD(…)` building block of HTTP Digest authentication.
    package static func hexHash(_ text: String) -> String {
        Hex.encode(hash(text))
    }

    /// The lowercase hexadecimal digest of a byte sequence.
    package static func hexHash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        Hex.encode(hash(bytes))
    }
}

/// Lowercase hexadecimal encoding and decoding of bytes.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lowercase hex, two digits per byte (`[0xAB, 0x01]` → `"ab01"`).
    package static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes spelled by `text` (either case), or `nil` for an odd length or a
    /// non-hex character.
    package static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    /// The value of one hex digit, or `nil`.
    static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
