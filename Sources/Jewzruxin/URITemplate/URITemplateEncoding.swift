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
    static func append(_ string: String, allowReserved: Bool, prefix: Int, to output: inout URITemplateOutput) {
        string.withUTF8Bytes { append($0, allowReserved: allowReserved, prefix: prefix, to: &output) }
    }

    @inline(__always)
    private static func append(
        _ bytes: UnsafeBufferPointer<UInt8>, allowReserved: Bool, prefix: Int, to output: inout URITemplateOutput
    ) {
        if prefix == 0 {
            append(bytes, allowReserved: allowReserved, to: &output)
        } else {
            appendPrefix(bytes, allowReserved: allowReserved, prefix: prefix, to: &output)
        }
    }

    /// Appends all of `bytes`, percent-encoded. Runs of bytes that stay as they are (usually the whole
    /// value) are found with one table lookup per byte and copied at once.
    static func append(_ bytes: UnsafeBufferPointer<UInt8>, allowReserved: Bool, to output: inout URITemplateOutput) {
        let count = bytes.count
        // Bit 0 of a byte's class: unreserved; bit 1: unreserved or reserved.
        let mask: UInt8 = allowReserved ? 2 : 1
        var runStart = 0
        var index = 0
        classes.withUnsafeBufferPointer { classes in
            while index < count {
                let byte = bytes[index]
                if classes[Int(byte)] & mask != 0 {
                    index &+= 1
                    continue
                }
                if allowReserved && byte == 0x25 && index + 2 < count
                    && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2]) {
                    index &+= 3
                    continue
                }
                output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                output.appendTriplet(byte)
                index &+= 1
                runStart = index
            }
        }
        output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
    }

    /// Each byte's class: bit 0 set when it is unreserved, bit 1 when it is unreserved or reserved.
    private static let classes: [UInt8] = (0...255).map { (value: Int) -> UInt8 in
        let byte = UInt8(value)
        return (isUnreserved(byte) ? 1 : 0) | (isUnreserved(byte) || isReserved(byte) ? 2 : 0)
    }

    /// Appends `bytes`, percent-encoded, up to `prefix` Unicode scalars.
    static func appendPrefix(
        _ bytes: UnsafeBufferPointer<UInt8>, allowReserved: Bool, prefix: Int, to output: inout URITemplateOutput
    ) {
        let count = bytes.count
        output.reserve(count &* 3)
        var index = 0
        var characters = 0
        while index < count {
            let byte = bytes[index]
            if prefix > 0 && byte & 0xC0 != 0x80 {
                if characters == prefix { return }
                characters &+= 1
            }
            if isUnreserved(byte) {
                output.appendReserved(byte)
            } else if allowReserved && isReserved(byte) {
                output.appendReserved(byte)
            } else if allowReserved && byte == 0x25 && index + 2 < count
                && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2]) {
                output.appendReserved(byte)
                output.appendReserved(bytes[index + 1])
                output.appendReserved(bytes[index + 2])
                index &+= 3
                continue
            } else {
                output.appendReserved(0x25)
                output.appendReserved(hexDigit(byte >> 4))
                output.appendReserved(hexDigit(byte & 0x0F))
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
