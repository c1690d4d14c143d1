/// The MD5 message digest (RFC 1321), for HTTP Digest authentication.
///
/// MD5 is broken for collision resistance; it is here only because RFC 2617 and
/// RFC 7616 Digest authentication still use it. Use ``SHA256`` where there is a choice.
///
/// ```swift
/// MD5.hexHash("abc")          // "900150983cd24fb0d6963f7d28e17f72"
/// var md5 = MD5()
/// md5.update("a"); md5.update("bc")
/// Hex.encode(md5.finalize())  // the same
/// ```
package struct MD5: HashFunction {
    /// MD5 digests are 16 bytes.
    package static let digestByteCount = 16

    /// The four chaining words A, B, C, D.
    struct State: Sendable {
        var a: UInt32 = 0x6745_2301
        var b: UInt32 = 0xEFCD_AB89
        var c: UInt32 = 0x98BA_DCFE
        var d: UInt32 = 0x1032_5476
    }

    private var state = State()
    private var buffer = MessageBlockBuffer()

    /// Creates a hasher in the RFC 1321 initial state.
    package init() {}

    /// Feeds `bytes` to the hash.
    package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        var words = state
        buffer.feed(bytes) { Self.compress(&words, $0, at: $1) }
        state = words
    }

    /// Pads the message and returns the 16-byte digest.
    package mutating func finalize() -> [UInt8] {
        var words = state
        buffer.finish(bigEndianLength: false) { Self.compress(&words, $0, at: $1) }
        state = words
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in [words.a, words.b, words.c, words.d] {
            for shift in stride(from: 0, to: 32, by: 8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// `floor(abs(sin(i + 1)) × 2³²)` for i in 0..<64 (RFC 1321 §3.4).
    private static let sines: [UInt32] = [
        0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE, 0xF57C_0FAF, 0x4787_C62A, 0xA830_4613, 0xFD46_9501,
        0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE, 0x6B90_1122, 0xFD98_7193, 0xA679_438E, 0x49B4_0821,
        0xF61E_2562, 0xC040_B340, 0x265E_5A51, 0xE9B6_C7AA, 0xD62F_105D, 0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8,
        0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED, 0xA9E3_E905, 0xFCEF_A3F8, 0x676F_02D9, 0x8D2A_4C8A,
        0xFFFA_3942, 0x8771_F681, 0x6D9D_6122, 0xFDE5_380C, 0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70,
        0x289B_7EC6, 0xEAA1_27FA, 0xD4EF_3085, 0x0488_1D05, 0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665,
        0xF429_2244, 0x432A_FF97, 0xAB94_23A7, 0xFC93_A039, 0x655B_59C3, 0x8F0C_CC92, 0xFFEF_F47D, 0x8584_5DD1,
        0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1, 0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB, 0xEB86_D391,
    ]

    /// The left-rotation amounts, four per round (RFC 1321 §3.4).
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    /// Processes the 64-byte block at `offset` in `bytes`.
    static func compress(_ state: inout State, _ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let sines = Self.sines, shifts = Self.shifts
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { words in
            for index in 0..<16 {
                words[index] = UInt32(
                    littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * index, as: UInt32.self))
            }
            var a = state.a, b = state.b, c = state.c, d = state.d
            for step in 0..<64 {
                var mixed: UInt32
                let wordIndex: Int
                switch step >> 4 {
                case 0:
                    mixed = (b & c) | (~b & d)
                    wordIndex = step
                case 1:
                    mixed = (d & b) | (~d & c)
                    wordIndex = (5 * step + 1) & 15
                case 2:
                    mixed = b ^ c ^ d
                    wordIndex = (3 * step + 5) & 15
                default:
                    mixed = c ^ (b | ~d)
                    wordIndex = (7 * step) & 15
                }
                mixed = mixed &+ a &+ sines[step] &+ words[wordIndex]
                let shift = shifts[(step >> 4) << 2 | (step & 3)]
                a = d
                d = c
                c = b
                b = b &+ (mixed << shift | mixed >> (32 - shift))
            }
            state.a &+= a
            state.b &+= b
            state.c &+= c
            state.d &+= d
        }
    }
}
