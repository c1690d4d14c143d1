/// The SHA-256 message digest (FIPS 180-4), for HTTP Digest authentication.
///
/// ```swift
/// SHA256.hexHash("abc")
/// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// var sha = SHA256()
/// sha.update(Data("ab".utf8)); sha.update("c")
/// Hex.encode(sha.finalize())  // the same
/// ```
package struct SHA256: HashFunction {
    /// SHA-256 digests are 32 bytes.
    package static let digestByteCount = 32

    /// The eight chaining words H0…H7.
    struct State: Sendable {
        var h0: UInt32 = 0x6A09_E667
        var h1: UInt32 = 0xBB67_AE85
        var h2: UInt32 = 0x3C6E_F372
        var h3: UInt32 = 0xA54F_F53A
        var h4: UInt32 = 0x510E_527F
        var h5: UInt32 = 0x9B05_688C
        var h6: UInt32 = 0x1F83_D9AB
        var h7: UInt32 = 0x5BE0_CD19
    }

    private var state = State()
    private var buffer = MessageBlockBuffer()

    /// Creates a hasher in the FIPS 180-4 initial state.
    package init() {}

    /// Feeds `bytes` to the hash.
    package mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        var words = state
        buffer.feed(bytes) { Self.compress(&words, $0, at: $1) }
        state = words
    }

    /// Pads the message and returns the 32-byte digest.
    package mutating func finalize() -> [UInt8] {
        var words = state
        buffer.finish(bigEndianLength: true) { Self.compress(&words, $0, at: $1) }
        state = words
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in [words.h0, words.h1, words.h2, words.h3, words.h4, words.h5, words.h6, words.h7] {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// The round constants: the first 32 bits of the fractional parts of the cube
    /// roots of the first 64 primes (FIPS 180-4 §4.2.2).
    private static let roundConstants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    /// Rotates `value` right by `count` bits.
    @inline(__always)
    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// Processes the 64-byte block at `offset` in `bytes`.
    static func compress(_ state: inout State, _ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let constants = Self.roundConstants
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                schedule[index] = UInt32(
                    bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * index, as: UInt32.self))
            }
            for index in 16..<64 {
                let early = schedule[index - 15], late = schedule[index - 2]
                let sigma0 = rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early >> 3)
                let sigma1 = rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var a = state.h0, b = state.h1, c = state.h2, d = state.h3
            var e = state.h4, f = state.h5, g = state.h6, h = state.h7
            for index in 0..<64 {
                let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sum0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ temp2
            }
            state.h0 &+= a
            state.h1 &+= b
            state.h2 &+= c
            state.h3 &+= d
            state.h4 &+= e
            state.h5 &+= f
            state.h6 &+= g
            state.h7 &+= h
        }
    }
}
