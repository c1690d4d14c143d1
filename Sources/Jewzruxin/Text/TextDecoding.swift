import Foundation

/// Decodes bytes in a `String.Encoding` the way the WHATWG Encoding Standard does, correctly on
/// Linux.
///
/// swift-corelibs-foundation cannot decode several encodings (EUC-JP, UTF-16 without a byte
/// order mark, windows-125x bytes it leaves undefined, x-user-defined), decodes Mac OS Roman
/// wrongly, and fails on a whole body when one byte sequence is invalid. This type picks a
/// decoder per encoding:
///
/// - UTF-8: the standard library's validating decoder (invalid sequences become U+FFFD).
/// - ISO-8859-1, windows-125x, ISO-8859-x, KOI8, IBM866, Mac Roman/Cyrillic, windows-874,
///   x-user-defined: ``SingleByteIndex`` tables of the WHATWG indexes.
/// - UTF-16LE/BE: a byte-swapping decoder; `.utf16` without a BOM is read little-endian
///   (WHATWG), with a BOM as the BOM says.
/// - gb18030/GBK, Big5, Shift_JIS, EUC-KR: CoreFoundation, with a per-character fallback
///   (``MultiByteDecoder``) so that invalid sequences become U+FFFD.
/// - EUC-JP, ISO-2022-JP: ``JapaneseTextDecoder``.
/// - Anything else: `String(data:encoding:)`.
///
/// Decoding never crashes; the result is `nil` only for an encoding this type leaves to
/// Foundation when Foundation cannot decode the bytes. No byte order mark is removed here
/// (except the one that chooses the byte order of `.utf16`).
enum TextDecoding {
    /// Decodes `data` as `encoding`.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - encoding: Their encoding.
    /// - Returns: The text, with U+FFFD for invalid input; `nil` only when an encoding this
    ///   type does not handle itself cannot decode the bytes.
    static func decode(_ data: Data, encoding: String.Encoding) -> String? {
        switch Decoder(encoding) {
        case .utf8: return decodeUTF8(data)
        case .singleByte(let index): return index.decode(data)
        case .utf16(let bigEndian): return decodeUTF16(data, bigEndian: bigEndian)
        case .multiByte(let scheme): return MultiByteDecoder.decode(data, scheme: scheme)
        case .eucJP: return JapaneseTextDecoder.decodeEUCJP(data)
        case .iso2022JP: return JapaneseTextDecoder.decodeISO2022JP(data)
        case .foundation: return String(data: data, encoding: encoding)
        }
    }

    /// Whether this type decodes `encoding` itself (without any nil result).
    ///
    /// - Parameter encoding: An encoding.
    /// - Returns: `false` for encodings left to Foundation.
    static func decodesLeniently(_ encoding: String.Encoding) -> Bool {
        if case .foundation = Decoder(encoding) { return false }
        return true
    }

    /// Decodes UTF-8, replacing invalid sequences with U+FFFD (WHATWG: maximal subparts).
    ///
    /// With Swift 6.2 or later, well-formed bytes (nearly every body) are recognised by
    /// `EncodingSniffer.isValidUTF8`, several times faster than the standard library's own check,
    /// and copied into the string without it; the others are repaired by `String(decoding:as:)`.
    ///
    /// - Parameter data: The bytes.
    /// - Returns: The text.
    static func decodeUTF8(_ data: Data) -> String {
        data.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                #if compiler(>=6.2)  // UTF8Span
                if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *),
                   EncodingSniffer.isValidUTF8(raw) {
                    // Safe: `UTF8Span(unchecked:)` requires well-formed UTF-8, which `isValidUTF8`
                    // has just established, accepting exactly what the standard library accepts.
                    return String(copying: unsafe UTF8Span(unchecked: bytes.span))
                }
                #endif
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }

    /// Decodes UTF-16 in the given byte order; unpaired surrogates and an odd last byte become
    /// U+FFFD.
    ///
    /// - Parameters:
    ///   - data: The bytes, without a byte order mark (one would be kept as U+FEFF).
    ///   - bigEndian: The byte order; `nil` means "use the BOM if there is one, else
    ///     little-endian" and removes the BOM.
    /// - Returns: The text.
    static func decodeUTF16(_ data: Data, bigEndian: Bool?) -> String {
        data.withUnsafeBytes { raw -> String in
            var bytes = UnsafeRawBufferPointer(rebasing: raw[...])
            var isBigEndian = bigEndian ?? false
            if bigEndian == nil, bytes.count >= 2 {
                if bytes[0] == 0xFE, bytes[1] == 0xFF {
                    isBigEndian = true
                    bytes = UnsafeRawBufferPointer(rebasing: bytes[2...])
                } else if bytes[0] == 0xFF, bytes[1] == 0xFE {
                    bytes = UnsafeRawBufferPointer(rebasing: bytes[2...])
                }
            }
            let unitCount = bytes.count / 2
            let units = [UInt16](unsafeUninitializedCapacity: unitCount) { buffer, initialized in
                for index in 0..<unitCount {
                    let first = UInt16(bytes[2 * index])
                    let second = UInt16(bytes[2 * index + 1])
                    buffer[index] = isBigEndian ? first << 8 | second : second << 8 | first
                }
                initialized = unitCount
            }
            var text = String(decoding: units, as: UTF16.self)
            if bytes.count % 2 == 1 { text.unicodeScalars.append("\u{FFFD}") }
            return text
        }
    }

    /// The decoder for an encoding.
    enum Decoder: Sendable {
        case utf8
        case singleByte(SingleByteIndex)
        case utf16(bigEndian: Bool?)
        case multiByte(MultiByteDecoder.Scheme)
        case eucJP
        case iso2022JP
        case foundation

        /// Picks the decoder for `encoding`, accepting both the Foundation constants and the
        /// CoreFoundation-derived values of an encoding.
        init(_ encoding: String.Encoding) {
            self = Self.table[encoding.rawValue] ?? .foundation
        }

        private static let table: [UInt: Decoder] = {
            var table: [UInt: Decoder] = [
                String.Encoding.utf8.rawValue: .utf8,
                String.Encoding.isoLatin1.rawValue: .singleByte(.isoLatin1),
                String.Encoding.coreFoundation(0x0201).rawValue: .singleByte(.isoLatin1),
                String.Encoding.macOSRoman.rawValue: .singleByte(.macintosh),
                String.Encoding.whatwgUserDefined.rawValue: .singleByte(.xUserDefined),
                String.Encoding.utf16.rawValue: .utf16(bigEndian: nil),
                String.Encoding.utf16BigEndian.rawValue: .utf16(bigEndian: true),
                String.Encoding.utf16LittleEndian.rawValue: .utf16(bigEndian: false),
                String.Encoding.japaneseEUC.rawValue: .eucJP,
                String.Encoding.coreFoundation(0x0920).rawValue: .eucJP,
                String.Encoding.iso2022JP.rawValue: .iso2022JP,
                String.Encoding.coreFoundation(0x0820).rawValue: .iso2022JP,
                String.Encoding.shiftJIS.rawValue: .multiByte(.shiftJIS),
                String.Encoding.coreFoundation(0x0420).rawValue: .multiByte(.shiftJIS),
                String.Encoding.coreFoundation(0x0A01).rawValue: .multiByte(.shiftJIS),
                String.Encoding.coreFoundation(0x0632).rawValue: .multiByte(.gb18030),
                String.Encoding.coreFoundation(0x0421).rawValue: .multiByte(.gb18030),  // GBK
                String.Encoding.coreFoundation(0x0930).rawValue: .multiByte(.gb18030),  // EUC-CN
                String.Encoding.coreFoundation(0x0A06).rawValue: .multiByte(.big5),
                String.Encoding.coreFoundation(0x0A03).rawValue: .multiByte(.big5),
                String.Encoding.coreFoundation(0x0422).rawValue: .multiByte(.eucKR),
                String.Encoding.coreFoundation(0x0940).rawValue: .multiByte(.eucKR),
            ]
            // Every single-byte WHATWG encoding, under its label value and its CF value.
            let singleByte: [(WHATWGEncoding, SingleByteIndex, cfEncoding: UInt)] = [
                (.ibm866, .ibm866, 0x041B), (.iso8859_2, .iso8859_2, 0x0202),
                (.iso8859_3, .iso8859_3, 0x0203), (.iso8859_4, .iso8859_4, 0x0204),
                (.iso8859_5, .iso8859_5, 0x0205), (.iso8859_6, .iso8859_6, 0x0206),
                (.iso8859_7, .iso8859_7, 0x0207), (.iso8859_8, .iso8859_8, 0x0208),
                (.iso8859_10, .iso8859_10, 0x020A), (.iso8859_13, .iso8859_13, 0x020D),
                (.iso8859_14, .iso8859_14, 0x020E), (.iso8859_15, .iso8859_15, 0x020F),
                (.iso8859_16, .iso8859_16, 0x0210), (.koi8R, .koi8R, 0x0A02),
                (.koi8U, .koi8U, 0x0A08), (.macintosh, .macintosh, 0x0000),
                (.windows874, .windows874, 0x041D), (.windows1250, .windows1250, 0x0501),
                (.windows1251, .windows1251, 0x0502), (.windows1252, .windows1252, 0x0500),
                (.windows1253, .windows1253, 0x0503), (.windows1254, .windows1254, 0x0504),
                (.windows1255, .windows1255, 0x0505), (.windows1256, .windows1256, 0x0506),
                (.windows1257, .windows1257, 0x0507), (.windows1258, .windows1258, 0x0508),
                (.xMacCyrillic, .xMacCyrillic, 0x0007),
            ]
            for (whatwg, index, cfEncoding) in singleByte {
                table[String.Encoding.coreFoundation(cfEncoding).rawValue] = .singleByte(index)
                if let encoding = whatwg.stringEncoding {
                    table[encoding.rawValue] = .singleByte(index)
                }
            }
            return table
        }()
    }
}
