import Foundation

/// Decodes the double-byte East Asian encodings through CoreFoundation without failing on
/// invalid input.
///
/// `String(data:encoding:)` returns `nil` for a whole body when one byte sequence is invalid or
/// unmapped. This decoder first tries the whole body; when that fails it cuts the body into
/// chunks at bytes below 0x30 (a byte that is never part of a multi-byte character in these
/// encodings, so each chunk starts on a character boundary), decodes each chunk, and walks the
/// chunks that still fail character by character, turning what cannot be decoded into U+FFFD
/// as the WHATWG decoders do (an ASCII byte after an invalid lead byte is kept).
///
/// CoreFoundation's Big5-HKSCS and code page 949 tables send a few byte pairs to the Private
/// Use Area where the WHATWG indexes have a real character or nothing: those are mapped to the
/// WHATWG character (``big5Compatibility``) or to U+FFFD.
enum MultiByteDecoder {
    /// A double-byte encoding family and the CoreFoundation converter used for it.
    enum Scheme: Sendable {
        /// gb18030 (also used for GBK, as WHATWG does): kCFStringEncodingGB_18030_2000.
        case gb18030
        /// Big5 with HKSCS: kCFStringEncodingBig5_HKSCS_1999.
        case big5
        /// Shift_JIS as Windows-31J: kCFStringEncodingDOSJapanese.
        case shiftJIS
        /// EUC-KR as its Windows superset (UHC, code page 949): kCFStringEncodingDOSKorean.
        case eucKR

        /// The Foundation encoding of the CoreFoundation converter.
        var foundationEncoding: String.Encoding {
            switch self {
            case .gb18030: return .coreFoundation(0x0632)
            case .big5: return .coreFoundation(0x0A06)
            case .shiftJIS: return .shiftJIS
            case .eucKR: return .coreFoundation(0x0422)
            }
        }

        /// The code point of a byte that is a whole character by itself, beyond ASCII.
        func singleByte(_ byte: UInt8) -> Unicode.Scalar? {
            switch self {
            case .gb18030: return byte == 0x80 ? "\u{20AC}" : nil
            case .shiftJIS:
                if byte == 0x80 { return "\u{80}" }
                if (0xA1...0xDF).contains(byte) { return Unicode.Scalar(0xFF61 + UInt32(byte) - 0xA1) }
                return nil
            case .big5, .eucKR: return nil
            }
        }

        /// Whether the byte starts a two-byte (or, for gb18030, four-byte) character.
        func isLead(_ byte: UInt8) -> Bool {
            switch self {
            case .shiftJIS: return (0x81...0x9F).contains(byte) || (0xE0...0xFC).contains(byte)
            case .gb18030, .big5, .eucKR: return (0x81...0xFE).contains(byte)
            }
        }
    }

    /// Bytes per chunk tried at once after the whole body failed.
    static let chunkSize = 4096

    /// Decodes `data`; what cannot be decoded becomes U+FFFD.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - scheme: Their encoding.
    ///   - pairsAreAtomic: `true` when every byte pair starting with a lead byte is one
    ///     character (bytes made by ``JapaneseTextDecoder``): an unmapped pair then becomes one
    ///     U+FFFD even when its second byte is ASCII.
    /// - Returns: The text.
    static func decode(_ data: Data, scheme: Scheme, pairsAreAtomic: Bool = false) -> String {
        if data.isEmpty { return "" }
        let text: String
        if scheme == .shiftJIS, data.withUnsafeBytes({ $0.contains(where: isSwappedControl) }) {
            text = decodeAroundSwappedControls([UInt8](data), pairsAreAtomic: pairsAreAtomic)
        } else {
            text = decodeWithCoreFoundation(data, scheme: scheme, pairsAreAtomic: pairsAreAtomic)
        }
        return replacingPrivateUse(text, scheme: scheme)
    }

    /// ICU's Windows-31J converter (behind CoreFoundation on Linux) swaps 0x1A, 0x1C and 0x7F
    /// when they follow a non-ASCII character. Those bytes are never part of a Shift_JIS
    /// character, so they are decoded here and the runs between them by CoreFoundation.
    private static func isSwappedControl(_ byte: UInt8) -> Bool {
        byte == 0x1A || byte == 0x1C || byte == 0x7F
    }

    private static func decodeAroundSwappedControls(_ bytes: [UInt8], pairsAreAtomic: Bool) -> String {
        var result = ""
        var start = 0
        for (index, byte) in bytes.enumerated() where isSwappedControl(byte) {
            result += decodeWithCoreFoundation(Data(bytes[start..<index]), scheme: .shiftJIS,
                                               pairsAreAtomic: pairsAreAtomic)
            result.unicodeScalars.append(Unicode.Scalar(byte))
            start = index + 1
        }
        result += decodeWithCoreFoundation(Data(bytes[start...]), scheme: .shiftJIS, pairsAreAtomic: pairsAreAtomic)
        return result
    }

    private static func decodeWithCoreFoundation(_ data: Data, scheme: Scheme, pairsAreAtomic: Bool) -> String {
        if data.isEmpty { return "" }
        if let text = String(data: data, encoding: scheme.foundationEncoding) { return text }
        let bytes = [UInt8](data)
        var result = ""
        var start = 0
        while start < bytes.count {
            var end = min(start + chunkSize, bytes.count)
            while end < bytes.count, bytes[end - 1] >= 0x30 { end += 1 }
            let chunk = bytes[start..<end]
            if let text = String(data: Data(chunk), encoding: scheme.foundationEncoding) {
                result += text
            } else {
                result.unicodeScalars.append(
                    contentsOf: decodeCharacters(chunk, scheme: scheme, pairsAreAtomic: pairsAreAtomic))
            }
            start = end
        }
        return result
    }

    /// Decodes character by character (slow; only for chunks with errors).
    private static func decodeCharacters(
        _ bytes: ArraySlice<UInt8>, scheme: Scheme, pairsAreAtomic: Bool
    ) -> String.UnicodeScalarView {
        var output = String.UnicodeScalarView()
        let replacement: Unicode.Scalar = "\u{FFFD}"
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte < 0x80 {
                output.append(Unicode.Scalar(byte))
                index += 1
                continue
            }
            if let scalar = scheme.singleByte(byte) {
                output.append(scalar)
                index += 1
                continue
            }
            guard scheme.isLead(byte), index + 1 < bytes.endIndex else {
                output.append(replacement)
                index += 1
                continue
            }
            let second = bytes[index + 1]
            if scheme == .gb18030, (0x30...0x39).contains(second) {
                if index + 3 < bytes.endIndex, let text = decodeOne(bytes[index...(index + 3)], scheme) {
                    output.append(contentsOf: text)
                    index += 4
                } else {
                    output.append(replacement)
                    index += 1
                }
                continue
            }
            if let text = decodeOne(bytes[index...(index + 1)], scheme) {
                output.append(contentsOf: text)
                index += 2
            } else {
                output.append(replacement)
                index += second < 0x80 && !pairsAreAtomic ? 1 : 2
            }
        }
        return output
    }

    private static func decodeOne(
        _ bytes: ArraySlice<UInt8>, _ scheme: Scheme
    ) -> String.UnicodeScalarView? {
        String(data: Data(bytes), encoding: scheme.foundationEncoding)?.unicodeScalars
    }

    /// Private Use code points of CoreFoundation's Big5-HKSCS (1999) table and the characters
    /// the WHATWG Big5 index has for the same bytes (0x8840–0x88AA, 0x8C43–0x8D48, 0xC879–0xC8A3).
    static let big5Compatibility: [UInt32: String] = [
        0xF303: "\u{31C0}", 0xF304: "\u{31C1}", 0xF305: "\u{31C2}", 0xF306: "\u{31C3}",
        0xF307: "\u{31C4}", 0xF309: "\u{31C5}", 0xF30C: "\u{31C6}", 0xF30D: "\u{31C7}",
        0xF310: "\u{31C8}", 0xF312: "\u{31C9}", 0xF313: "\u{31CA}", 0xF314: "\u{31CB}",
        0xF315: "\u{31CC}", 0xF317: "\u{31CD}", 0xF318: "\u{31CE}", 0xF325: "\u{CA}\u{304}",
        0xF327: "\u{CA}\u{30C}", 0xF344: "\u{EA}\u{304}", 0xF346: "\u{EA}\u{30C}", 0xF34A: "\u{23DA}",
        0xF34B: "\u{23DB}", 0xF57A: "\u{9FA6}", 0xF5A4: "\u{9FA7}", 0xF5AB: "\u{9FA8}",
        0xF5CC: "\u{9FA9}", 0xF5CE: "\u{9FAA}", 0xF5D0: "\u{9FAB}", 0xF5D5: "\u{9FAC}",
        0xF5EC: "\u{9FAD}", 0xF5ED: "\u{9FAE}", 0xF5EF: "\u{9FAF}", 0xF602: "\u{9FB2}",
        0xF61C: "\u{9FB3}", 0xF7E5: "\u{31CF}", 0xF7EB: "\u{9FB0}", 0xF7ED: "\u{9FB1}",
    ]

    /// Big5 and EUC-KR have no Private Use characters in the WHATWG indexes: CoreFoundation's
    /// are mapped to the WHATWG character or U+FFFD (user-defined areas, 0xFF in code page 949).
    /// Code page 949 also decodes a lone 0x80 to U+0080, an error for WHATWG EUC-KR.
    private static func replacingPrivateUse(_ text: String, scheme: Scheme) -> String {
        guard scheme == .big5 || scheme == .eucKR else { return text }
        let needsReplacement = { (scalar: Unicode.Scalar) in
            (0xE000...0xF8FF).contains(scalar.value) || (scheme == .eucKR && scalar.value == 0x80)
        }
        guard text.unicodeScalars.contains(where: needsReplacement) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !needsReplacement(scalar) {
                result.append(scalar)
            } else if scheme == .big5, let replacement = big5Compatibility[scalar.value] {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append("\u{FFFD}")
            }
        }
        return String(result)
    }
}
