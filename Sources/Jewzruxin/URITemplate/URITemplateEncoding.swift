/// Byte-level character classes and percent-encoding for URI template expansion (RFC 6570 §1.5, §3.2.1).
enum URITemplateEncoding {
    /// `ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }

    /// `gen-delims / sub-delims` (RFC 3986 §2.2): `:/?#[]@!$&'()*+,;=`.
    @inline(__always)
    static func isReserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x3A, 0x2F, 0x3F, 0x23, 0x5B, 0x5D, 0x40, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B,
             0x3D:
            true
        default: false
        }
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66: true
        default: false
        }
    }

    /// The uppercase hexadecimal digit for `nibble` (0...15).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x37 &+ nibble
    }

    /// Appends `%XX` for `byte`.
    @inline(__always)
    static func appendTriplet(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(0x25)
        output.append(hexDigit(byte >> 4))
        output.append(hexDigit(byte & 0x0F))
    }

    /// Appends `string`, percent-encoded as UTF-8.
    ///
    /// - Parameters:
    ///   - string: The value.
    ///   - allowReserved: Whether reserved characters and pct-encoded triplets are kept as they are
    ///     (`+` and `#` expansions); otherwise only unreserved characters are.
    ///   - prefix: The number of Unicode characters to keep, or 0 for all (a pct-encoded triplet
    ///     kept as it is counts as one).
    ///   - output: The bytes to append to.
    @inline(__always)
    static func append(_ string: String, allowReserved: Bool, prefix: Int, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            append(bytes, allowReserved: allowReserved, prefix: prefix, to: &output)
        }
    }

    static func append(
        _ bytes: UnsafeBufferPointer<UInt8>, allowReserved: Bool, prefix: Int, to output: inout [UInt8]
    ) {
        let count = bytes.count
        var index = 0
        var characters = 0
        while index < count {
            let byte = bytes[index]
            if prefix > 0 && byte & 0xC0 != 0x80 {
                if characters == prefix { return }
                characters &+= 1
            }
            if isUnreserved(byte) {
                output.append(byte)
            } else if allowReserved && isReserved(byte) {
                output.append(byte)
            } else if allowReserved && byte == 0x25 && index + 2 < count
                && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2]) {
                output.append(byte)
                output.append(bytes[index + 1])
                output.append(bytes[index + 2])
                index &+= 3
                continue
            } else {
                appendTriplet(byte, to: &output)
            }
            index &+= 1
        }
    }

    /// Whether a non-ASCII scalar may appear in a literal: `ucschar` or `iprivate` (RFC 3987).
    static func isAllowedNonASCII(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0xA0 { return false }
        if (0xFDD0...0xFDEF).contains(value) || (0xFFF0...0xFFFF).contains(value) { return false }
        if value & 0xFFFE == 0xFFFE { return false }
        if (0xE0000...0xE0FFF).contains(value) { return false }
        return true
    }
}
