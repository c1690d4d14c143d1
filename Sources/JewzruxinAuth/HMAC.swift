/// HMAC (RFC 2104) over one of the package's hash functions, for NTLMv2: NTOWFv2 and the
/// NTProofStr are HMAC-MD5 values (MS-NLMP §3.3.2).
///
/// ```swift
/// HMAC<MD5>.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
/// // 750c783e6ab0b503eaa86e310a5db738
/// ```
package enum HMAC<Hash: HashFunction> {
    /// The block size of every hash here (MD4, MD5, SHA-256): 64 bytes.
    static var blockByteCount: Int { MessageBlockBuffer.blockByteCount }

    /// The authentication code of `message` under `key`: `H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message))`,
    /// with a key longer than a block hashed first.
    ///
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - key: The secret key, of any length.
    /// - Returns: The code, as long as a digest of `Hash`.
    package static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var block = key.count > blockByteCount ? Hash.hash(key) : key
        block += [UInt8](repeating: 0, count: blockByteCount - block.count)
        var inner = Hash()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = Hash()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
