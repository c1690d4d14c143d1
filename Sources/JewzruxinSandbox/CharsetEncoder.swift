import CoreFoundation
import Foundation

/// Converts text to bytes in a charset named by an IANA/WHATWG label.
///
/// `String.Encoding(ianaName:)` knows few labels on Linux, so labels go through
/// CoreFoundation's IANA table, which covers the CJK and legacy single-byte charsets.
enum CharsetEncoder {
    enum Failure: Error, Equatable {
        /// The label names no charset known here.
        case unknownLabel(String)
        /// The text contains characters the charset cannot represent.
        case unencodable(label: String)

        var message: String {
            switch self {
            case let .unknownLabel(label): return "unknown encoding label \"\(label)\""
            case let .unencodable(label): return "content cannot be encoded as \"\(label)\""
            }
        }
    }

    /// The `String.Encoding` for `label` (case-insensitive, surrounding spaces ignored).
    ///
    /// `utf-16le` and `utf-16be` map to the byte-order-specific encodings, which write
    /// no byte order mark.
    static func encoding(forLabel label: String) -> String.Encoding? {
        let normalized = label.trimmingCharacters(in: .whitespaces).lowercased()
        switch normalized {
        case "":
            return nil
        case "utf-8", "utf8", "unicode-1-1-utf-8":
            return .utf8
        case "utf-16le":
            return .utf16LittleEndian
        case "utf-16be":
            return .utf16BigEndian
        default:
            break
        }
        let cfEncoding: CFStringEncoding? = normalized.withCString { pointer in
            guard let name = CFStringCreateWithCString(nil, pointer, CFStringBuiltInEncodings.UTF8.rawValue) else {
                return nil
            }
            return CFStringConvertIANACharSetNameToEncoding(name)
        }
        guard let cfEncoding, cfEncoding != kCFStringEncodingInvalidId else { return nil }
        return String.Encoding(rawValue: UInt(CFStringConvertEncodingToNSStringEncoding(cfEncoding)))
    }

    /// The bytes of `text` in the charset named `label`.
    static func encode(_ text: String, label: String) -> Result<Data, Failure> {
        guard let encoding = encoding(forLabel: label) else {
            return .failure(.unknownLabel(label))
        }
        guard let data = text.data(using: encoding, allowLossyConversion: false) else {
            return .failure(.unencodable(label: label))
        }
        return .success(data)
    }
}
