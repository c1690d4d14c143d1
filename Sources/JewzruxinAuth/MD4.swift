/// The MD4 message digest (RFC 1320), for NTLM: the NT hash of a password is the MD4 of its
/// UTF-16LE bytes (MS-NLMP §3.3.1, NTOWFv1), from which NTLMv2 keys are made.
///
/// MD4 is thoroughly broken; it is here only because NTLM is built on it. Nothing else in the
/// package may use it.
///
/// ```swift
/// MD4.hexHash("abc")  // "a448017aaf21d8525fc10ae87aa6729d"
/// ```
package struct MD4: HashFunction {
    /// MD4 digests are 16 bytes.
    package static let digestByteCount = 16

    /// The four chaining words A, B, C, D: MD5's initial values (RFC 1320 §3.3).
    private var a: UInt32 = 0x6745_2301
    private var b: UInt32 = 0xEFCD_AB89
    private var c: UInt32 = 0x98BA_DCFE
    private var d: UInt32 = 0x1032_5476
    private var buffer = MessageBlockBuffer()

    /// Creates a hasher in the RFC 1320 initial state.
    package init() {}

    /// Feeds `bytes` to the hash.
    package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        var words = (a, b, c, d)
        buffer.feed(bytes) { Self.compress(&words, $0, at: $1) }
        (a, b, c, d) = words
    }

    /// Pads the message (as MD5 does: the length in bits, little-endian) and returns the 16-byte
    /// digest.
    package mutating func finalize() -> [UInt8] {
        var words = (a, b, c, d)
        buffer.finish(bigEndianLength: false) { Self.compress(&words, $0, at: $1) }
        (a, b, c, d) = words
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 0, to: 32, by: 8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// The order in which each round reads the block's words (RFC 1320 §3.4).
    private static let wordOrder: [Int] = [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
        0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15,
    ]

    /// The left-rotation amounts, four per round.
    private static let shifts: [UInt32] = [3, 7, 11, 19, 3, 5, 9, 13, 3, 9, 11, 15]

    /// The constant added in each round: none, √2 and √3 scaled to 32 bits.
    private static let roundConstants: [UInt32] = [0, 0x5A82_7999, 0x6ED9_EBA1]

    /// Processes the 64-byte block at `offset` in `bytes`.
    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32), _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) {
        let order = Self.wordOrder, shifts = Self.shifts, constants = Self.roundConstants
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { words in
            for index in 0..<16 {
                words[index] = UInt32(
                    littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * index, as: UInt32.self))
            }
            var (a, b, c, d) = state
            for step in 0..<48 {
                let round = step >> 4
                let mixed: UInt32 = switch round {
                case 0: (b & c) | (~b & d)
                case 1: (b & c) | (b & d) | (c & d)
                default: b ^ c ^ d
                }
                let sum = a &+ mixed &+ words[order[step]] &+ constants[round]
                let shift = shifts[round << 2 | (step & 3)]
                // Each step updates the next word of A, D, C, B in turn: rotating the names does it.
                a = d
                d = c
                c = b
                b = sum << shift | sum >> (32 - shift)
            }
            state.0 &+= a
            state.1 &+= b
            state.2 &+= c
            state.3 &+= d
        }
    }
}
