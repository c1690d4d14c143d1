/// The byte-level rules of HTTP field names and tokens (RFC 9110 §5), shared by the request checks and
/// every transport that parses or writes a head itself.
enum HTTPHeaderSyntax {
    /// A `tchar` of RFC 9110 §5.6.2: a byte allowed in a field name, a method or a token.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// Whether `a` and `b` are the same but for the case of ASCII letters, as field names and the
    /// tokens of HTTP are compared (RFC 9110 §5.1); no Unicode case folding.
    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        equalIgnoringASCIICase(a.utf8, b.utf8)
    }

    /// Whether two byte sequences are the same but for the case of ASCII letters.
    static func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        // Native strings and arrays are contiguous: compare their bytes without stepping indices,
        // which for a `String.UTF8View` cost more than the comparison (names are compared per field,
        // per request).
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in sameLettersIgnoringCase(x, y) }
        }
        if let result = contiguous ?? nil { return result }
        return zip(a, b).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// The comparison of two buffers of the same length.
    private static func sameLettersIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            // Equal, or the same letter in the other case (0x20 apart, and a letter once lowered).
            if x != y && (x | 0x20 != y | 0x20 || !(0x61...0x7A).contains(x | 0x20)) { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// `bytes` without the spaces and tabs around it (optional whitespace, RFC 9110 §5.6.3).
    static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
