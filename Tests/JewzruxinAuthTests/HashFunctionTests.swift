import Foundation
import Testing
@testable import JewzruxinAuth

@Suite("MD5 and SHA-256")
struct HashFunctionTests {
    /// RFC 1321 appendix A.5.
    static let md5Vectors: [(input: String, digest: String)] = [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ]

    /// FIPS 180-2 appendix B and the NIST example values.
    static let sha256Vectors: [(input: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ]

    /// Bytes `(i * 7 + 3) % 256` of the given lengths around the 55/56/64-byte padding
    /// edges; digests computed with Python's hashlib.
    static let paddingEdges: [(length: Int, md5: String, sha256: String)] = [
        (55, "52c0e574e1198de5fe3f8f11440dcb1b", "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "46c9907fc908ee68b1e7b8e71286a518", "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (63, "a62f6d59e837867693f042f5b8f5a236", "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "7160b8fb5e9e4023d549c3971fbaeead", "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "70bd662e7aefbda85a0f7244167b7897", "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (119, "e84905d4214f4d1ca56c2cdcc152b143", "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
        (120, "e3eb5a6c8669ea01a8c185b8abc8a5dc", "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
        (128, "10b2da1a82f16d99a81a7203fe9f02cb", "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
    ]

    static func edgeBytes(_ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
    }

    @Test("MD5: RFC 1321 A.5 test suite", arguments: md5Vectors)
    func md5(input: String, digest: String) {
        #expect(MD5.hexHash(input) == digest)
        #expect(Hex.encode(MD5.hash(Array(input.utf8))) == digest)
        #expect(Hex.encode(MD5.hash(Data(input.utf8))) == digest)
    }

    @Test("SHA-256: FIPS 180-2 examples", arguments: sha256Vectors)
    func sha256(input: String, digest: String) {
        #expect(SHA256.hexHash(input) == digest)
        #expect(Hex.encode(SHA256.hash(Array(input.utf8))) == digest)
        #expect(Hex.encode(SHA256.hash(Data(input.utf8))) == digest)
    }

    @Test("One million 'a' (FIPS 180-2 B.3; MD5 from hashlib), fed in uneven pieces")
    func millionA() {
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        var md5 = MD5()
        var sha = SHA256()
        var fed = 0
        var size = 1
        while fed < 1_000_000 {
            let count = min(size, 1_000_000 - fed, piece.count)
            piece.withUnsafeBytes {
                md5.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                sha.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count]))
            }
            fed += count
            size = size % 997 + 13
        }
        #expect(Hex.encode(sha.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Hex.encode(md5.finalize()) == "7707d6ae4e027c70eea2a935c2296f21")
        let oneShot = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexHash(oneShot) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("Padding edges: 55, 56, 63, 64, 65, 119, 120, 128 bytes", arguments: paddingEdges)
    func paddingEdge(length: Int, md5: String, sha256: String) {
        let bytes = Self.edgeBytes(length)
        #expect(MD5.hexHash(bytes) == md5)
        #expect(SHA256.hexHash(bytes) == sha256)
    }

    @Test("Incremental updates at every split point equal the one-shot digest", arguments: [55, 64, 65, 128])
    func everySplit(length: Int) {
        let bytes = Self.edgeBytes(length)
        let expectedMD5 = MD5.hash(bytes), expectedSHA = SHA256.hash(bytes)
        for split in 0...length {
            var md5 = MD5(), sha = SHA256()
            md5.update(bytes[..<split])
            md5.update(bytes[split...])
            sha.update(bytes[..<split])
            sha.update(bytes[split...])
            #expect(md5.finalize() == expectedMD5, "split at \(split)")
            #expect(sha.finalize() == expectedSHA, "split at \(split)")
        }
    }

    @Test("Non-contiguous sequences are hashed like arrays")
    func nonContiguousSequence() {
        let lazyBytes = (0..<10_000).lazy.map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(SHA256.hash(lazyBytes) == SHA256.hash(Array(lazyBytes)))
        #expect(MD5.hash(lazyBytes) == MD5.hash(Array(lazyBytes)))
        #expect(MD5.hash("naïve ☃") == MD5.hash(Array("naïve ☃".utf8)))
    }

    @Test("Digest sizes")
    func sizes() {
        #expect(MD5.hash([1, 2, 3]).count == MD5.digestByteCount)
        #expect(SHA256.hash([1, 2, 3]).count == SHA256.digestByteCount)
    }

    @Test("Hex encodes lowercase and decodes either case")
    func hex() {
        #expect(Hex.encode([0x00, 0x0F, 0xAB, 0xFF]) == "000fabff")
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.decode("000FabfF") == [0x00, 0x0F, 0xAB, 0xFF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }
}
