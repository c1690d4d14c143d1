import Foundation
import Testing
@testable import JewzruxinAuth

@Suite("MD4 and HMAC")
struct MD4AndHMACTests {
    /// RFC 1320 appendix A.5.
    static let md4Vectors: [(input: String, digest: String)] = [
        ("", "31d6cfe0d16ae931b73c59d7e0c089c0"),
        ("a", "bde52cb31de33e46245e05fbdbd6fb24"),
        ("abc", "a448017aaf21d8525fc10ae87aa6729d"),
        ("message digest", "d9130a8164549fe818874806e1c7014b"),
        ("abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "043f8582f241db351ce627e153e7f0e4"),
        (String(repeating: "1234567890", count: 8), "e33b4ddc9c38f2199c3e7b164fcc0536"),
    ]

    @Test("MD4: RFC 1320 A.5 test suite", arguments: md4Vectors)
    func md4(input: String, digest: String) {
        #expect(MD4.hexHash(input) == digest)
        #expect(Hex.encode(MD4.hash(Data(input.utf8))) == digest)
    }

    @Test("MD4 fed in pieces of every size equals MD4 fed at once, across the padding edges")
    func md4Pieces() {
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
            let whole = MD4.hash(bytes)
            for size in [1, 3, 63, 64, 65] {
                var md4 = MD4()
                var start = 0
                while start < bytes.count {
                    let end = min(start + size, bytes.count)
                    md4.update(bytes[start..<end])
                    start = end
                }
                #expect(md4.finalize() == whole, "length \(length), pieces of \(size)")
            }
        }
    }

    /// RFC 2104 appendix (the first three) and RFC 2202 §2 (HMAC-MD5 test cases 4, 6 and 7: a
    /// 25-byte key, and keys longer than a block).
    static let hmacMD5Vectors: [(key: [UInt8], data: [UInt8], code: String)] = [
        ([UInt8](repeating: 0x0B, count: 16), Array("Hi There".utf8), "9294727a3638bb1c13f48ef8158bfc9d"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "750c783e6ab0b503eaa86e310a5db738"),
        ([UInt8](repeating: 0xAA, count: 16), [UInt8](repeating: 0xDD, count: 50), "56be34521d144c88dbb8c733f0e8b3f6"),
        (Array(1...25), [UInt8](repeating: 0xCD, count: 50), "697eaf0aca3a3aea3a75164746ffaa79"),
        ([UInt8](repeating: 0xAA, count: 80), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd"),
        ([UInt8](repeating: 0xAA, count: 80),
         Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
         "6f630fad67cda0ee1fb1f562db3aa53e"),
    ]

    @Test("HMAC-MD5: RFC 2104 and RFC 2202 test cases", arguments: hmacMD5Vectors)
    func hmacMD5(key: [UInt8], data: [UInt8], code: String) {
        #expect(Hex.encode(HMAC<MD5>.authenticationCode(for: data, key: key)) == code)
    }

    @Test("HMAC-SHA-256: RFC 4231 test case 1 (the construction is the hash's, not MD5's)")
    func hmacSHA256() {
        let code = HMAC<SHA256>.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0B, count: 20))
        #expect(Hex.encode(code) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }
}
