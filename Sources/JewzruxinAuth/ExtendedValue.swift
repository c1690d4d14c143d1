/// RFC 8187 extended parameter values (`charset'language'percent-encoded`), as used
/// by `username*` in Digest authentication (RFC 7616 §3.4).
///
/// ```swift
/// ExtendedValue.encode("Jäsøn Doe")                    // "UTF-8''J%C3%A4s%C3%B8n%20Doe"
/// ExtendedValue.decode("UTF-8''J%C3%A4s%C3%B8n%20Doe") // "Jäsøn Doe"
/// ```
package enum ExtendedValue {
    /// Encodes `text` as `UTF-8''…`, percent-encoding every byte that is not an RFC 8187
    /// `attr-char`.
    package static func encode(_ text: String) -> String {
        var output: [UInt8] = Array("UTF-8''".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isAttributeCharacter(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes an extended value in the `UTF-8` or `ISO-8859-1` charset (any case; the
    /// language tag is ignored).
    ///
    /// - Returns: the text, or `nil` for another charset, a missing `'` delimiter, a bad
    ///   percent escape, or bytes that are not valid UTF-8.
    package static func decode(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        let charset = String(pieces[0])
        let isUTF8 = AuthenticationChallenge.equalsIgnoringCase(charset, "UTF-8")
        guard isUTF8 || AuthenticationChallenge.equalsIgnoringCase(charset, "ISO-8859-1") else { return nil }
        let encoded = Array(pieces[2].utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = 0
        while index < encoded.count {
            if encoded[index] == UInt8(ascii: "%") {
                guard index + 2 < encoded.count, let high = Hex.value(encoded[index + 1]),
                      let low = Hex.value(encoded[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(encoded[index])
                index += 1
            }
        }
        guard isUTF8 else {
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// RFC 8187 `attr-char`: ALPHA / DIGIT / `!#$&+-.^_\`|~`.
    private static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$&+-.^_`|~".utf8).contains(byte)
        }
    }
}
