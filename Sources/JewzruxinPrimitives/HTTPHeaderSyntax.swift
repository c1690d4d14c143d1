/// The byte-level rules of HTTP/1.1 that the client and the sandbox both apply: tokens and field
/// names (RFC 9110 §5), optional whitespace, and the size line of a chunked body (RFC 9112 §7.1).
///
/// One copy, so the client's request checks, the native transport's decoder, the sandbox's parser and
/// the `Authorization` scanner agree on what a token is. The functions are inlinable, and public for
/// that (see ``Locked``): they run per byte or per field on every request, and a call into another
/// module must cost what one within the module did.
public enum HTTPHeaderSyntax {
    /// A `tchar` of RFC 9110 §5.6.2: a byte allowed in a field name, a method or a token.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// Whether `a` and `b` are the same but for the case of ASCII letters, as field names and the
    /// tokens of HTTP are compared (RFC 9110 §5.1); no Unicode case folding.
    @inlinable
    public static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        equalIgnoringASCIICase(a.utf8, b.utf8)
    }

    /// `string` uppercased: itself, with no copy, when it has no lowercase letter (a method as it is
    /// usually written); else `uppercased()`.
    public static func uppercasedASCII(_ string: String) -> String {
        string.utf8.contains { $0 >= 0x61 && $0 <= 0x7A || $0 >= 0x80 } ? string.uppercased() : string
    }

    /// Whether two byte sequences are the same but for the case of ASCII letters.
    @inlinable
    public static func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
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
    @inlinable
    static func sameLettersIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            // Equal, or the same letter in the other case (0x20 apart, and a letter once lowered).
            if x != y && (x | 0x20 != y | 0x20 || !(0x61...0x7A).contains(x | 0x20)) { return false }
        }
        return true
    }

    @inlinable
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// `bytes` without the spaces and tabs around it (optional whitespace, RFC 9110 §5.6.3).
    @inlinable
    public static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }

    /// A space or a horizontal tab: optional (and "bad") whitespace.
    @inlinable
    public static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// The items of a comma-separated field value (RFC 9110 §5.6.1), each without the spaces and
    /// tabs around it, read in place: no array, no copy. Empty items are skipped unless
    /// `keepingEmpty` (an empty value is then one empty item).
    ///
    /// ```swift
    /// HTTPHeaderSyntax.listItems("gzip , chunked").contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "chunked".utf8) }
    /// ```
    ///
    /// On a hot path, give it the value's bytes (`value.withUTF8 { listItems($0) }`): stepping
    /// through raw bytes costs less than through a string's indices.
    @inlinable
    public static func listItems(_ value: String, keepingEmpty: Bool = false) -> ListItems<Substring.UTF8View> {
        ListItems(rest: value.utf8[...], keepsEmpty: keepingEmpty)
    }

    /// The items of the comma-separated list in `bytes`, as the `String` overload reads them.
    @inlinable
    public static func listItems<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, keepingEmpty: Bool = false
    ) -> ListItems<Bytes.SubSequence> where Bytes.SubSequence: BidirectionalCollection {
        ListItems(rest: bytes[...], keepsEmpty: keepingEmpty)
    }

    /// The items of a comma-separated field value, one after another (`listItems(_:keepingEmpty:)`).
    public struct ListItems<Bytes: BidirectionalCollection<UInt8>>: Sequence, IteratorProtocol where Bytes.SubSequence == Bytes {
        @usableFromInline var rest: Bytes?
        @usableFromInline let keepsEmpty: Bool

        @inlinable
        init(rest: Bytes, keepsEmpty: Bool) {
            self.rest = rest
            self.keepsEmpty = keepsEmpty
        }

        @inlinable
        public mutating func next() -> Bytes? {
            while let current = rest {
                let comma = current.firstIndex(of: UInt8(ascii: ","))
                let item = HTTPHeaderSyntax.trimmed(current[..<(comma ?? current.endIndex)])
                rest = comma.map { current[current.index(after: $0)...] }
                if keepsEmpty || !item.isEmpty { return item }
            }
            return nil
        }
    }

    /// The size a chunk's size line gives (`1a`, `1a;name=value`, `1a ; name`), or `nil` when it is
    /// malformed.
    ///
    /// The line is `chunk-size [ chunk-ext ]` without its line ending: 1 to 15 hexadecimal digits (so
    /// the size fits an `Int64` with room to add to it), then optional whitespace, then nothing or the
    /// extensions after a `;`, which are not looked at. Anything else after the digits is an error, as
    /// is a sign, a `0x` prefix or whitespace before them.
    @inlinable
    public static func chunkSize(_ line: some Collection<UInt8>) -> Int64? {
        var size: Int64 = 0
        var digits = 0
        var index = line.startIndex
        while index != line.endIndex, let value = hexValue(line[index]) {
            digits += 1
            guard digits <= 15 else { return nil }
            size = size << 4 | Int64(value)
            line.formIndex(after: &index)
        }
        guard digits > 0 else { return nil }
        while index != line.endIndex, isSpace(line[index]) { line.formIndex(after: &index) }
        guard index == line.endIndex || line[index] == UInt8(ascii: ";") else { return nil }
        return size
    }

    /// The value of a hexadecimal digit, either case.
    @inlinable
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
