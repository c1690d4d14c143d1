import Foundation

extension String.Encoding {
    /// The encoding a charset label names (WHATWG Encoding Standard labels, case-insensitive),
    /// usable on Linux.
    ///
    /// The label is looked up as the WHATWG Encoding Standard says: ASCII whitespace around it
    /// is ignored and letters match case-insensitively, so `" UTF8 "`, `"latin1"` and `"sjis"`
    /// are all recognised. Every label of the standard is known. Following the standard,
    /// `iso-8859-1`, `latin1` and `us-ascii` name windows-1252, `utf-16` names UTF-16LE, `gbk`
    /// and `gb2312` name gb18030, `euc-kr` names its Windows superset (code page 949) and
    /// `shift_jis` names Windows-31J.
    ///
    /// The value returned is one that swift-corelibs-foundation knows where it decodes
    /// correctly (for instance the CoreFoundation form of Mac OS Roman rather than the broken
    /// `.macOSRoman`). A few encodings have no correct Foundation decoder on Linux (EUC-JP,
    /// x-user-defined, UTF-16 without a byte order mark, undefined bytes of the windows-125x
    /// code pages): the value still identifies the encoding, and the library's own response
    /// decoding (`HTTPResponse.text`) decodes it correctly. x-user-defined gets a private
    /// value that only this library understands.
    ///
    /// - Parameters:
    ///   - charsetLabel: A charset label, for instance the `charset` parameter of a
    ///     Content-Type header.
    /// - Returns: `nil` when the label is unknown or names the WHATWG "replacement" encoding
    ///   (labels such as `iso-2022-kr` that must not be decoded).
    public init?(charsetLabel: String) {
        guard let encoding = WHATWGEncoding(label: charsetLabel)?.stringEncoding else { return nil }
        self = encoding
    }

    /// WHATWG x-user-defined, which Foundation does not know: a private value that only the
    /// decoders of this library understand.
    static let whatwgUserDefined = String.Encoding(rawValue: 0x8FFF_F001)

    /// An encoding CoreFoundation knows by its `CFStringEncoding` number.
    ///
    /// - Parameter cfEncoding: The CoreFoundation encoding number.
    /// - Returns: The `String.Encoding` that Foundation maps that number to.
    static func coreFoundation(_ cfEncoding: UInt) -> String.Encoding {
        String.Encoding(rawValue: 0x8000_0000 | cfEncoding)
    }
}

extension WHATWGEncoding {
    /// Looks a label up the WHATWG way.
    ///
    /// - Parameter label: A charset label; ASCII whitespace around it is removed and ASCII
    ///   letters are compared case-insensitively.
    init?(label: String) {
        let scalars = label.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, Self.isASCIIWhitespace(scalars[start]) {
            start = scalars.index(after: start)
        }
        while start < end, Self.isASCIIWhitespace(scalars[scalars.index(before: end)]) {
            end = scalars.index(before: end)
        }
        var key = String.UnicodeScalarView()
        for scalar in scalars[start..<end] {
            let value = scalar.value
            key.append((0x41...0x5A).contains(value) ? Unicode.Scalar(UInt8(value + 0x20)) : scalar)
        }
        guard let encoding = Self.labels[String(key)] else { return nil }
        self = encoding
    }

    /// ASCII whitespace as the Encoding Standard trims it: TAB, LF, FF, CR and SPACE.
    private static func isASCIIWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\t", "\n", "\u{0C}", "\r", " ": return true
        default: return false
        }
    }

    /// The `String.Encoding` for this encoding, `nil` for "replacement".
    var stringEncoding: String.Encoding? {
        switch self {
        case .utf8: return .utf8
        case .ibm866: return .coreFoundation(0x041B)  // kCFStringEncodingDOSRussian
        case .iso8859_2: return .isoLatin2
        case .iso8859_3: return .coreFoundation(0x0203)
        case .iso8859_4: return .coreFoundation(0x0204)
        case .iso8859_5: return .coreFoundation(0x0205)
        case .iso8859_6: return .coreFoundation(0x0206)
        case .iso8859_7: return .coreFoundation(0x0207)
        case .iso8859_8, .iso8859_8I: return .coreFoundation(0x0208)
        case .iso8859_10: return .coreFoundation(0x020A)
        case .iso8859_13: return .coreFoundation(0x020D)
        case .iso8859_14: return .coreFoundation(0x020E)
        case .iso8859_15: return .coreFoundation(0x020F)
        case .iso8859_16: return .coreFoundation(0x0210)
        case .koi8R: return .coreFoundation(0x0A02)
        case .koi8U: return .coreFoundation(0x0A08)
        case .macintosh: return .coreFoundation(0x0000)  // not .macOSRoman: broken on Linux
        case .windows874: return .coreFoundation(0x041D)  // kCFStringEncodingDOSThai
        case .windows1250: return .windowsCP1250
        case .windows1251: return .windowsCP1251
        case .windows1252: return .windowsCP1252
        case .windows1253: return .windowsCP1253
        case .windows1254: return .windowsCP1254
        case .windows1255: return .coreFoundation(0x0505)
        case .windows1256: return .coreFoundation(0x0506)
        case .windows1257: return .coreFoundation(0x0507)
        case .windows1258: return .coreFoundation(0x0508)
        case .xMacCyrillic: return .coreFoundation(0x0007)
        case .gbk, .gb18030: return .coreFoundation(0x0632)  // kCFStringEncodingGB_18030_2000
        case .big5: return .coreFoundation(0x0A06)  // kCFStringEncodingBig5_HKSCS_1999
        case .eucJP: return .japaneseEUC
        case .iso2022JP: return .iso2022JP
        case .shiftJIS: return .shiftJIS  // kCFStringEncodingDOSJapanese (Windows-31J)
        case .eucKR: return .coreFoundation(0x0422)  // kCFStringEncodingDOSKorean (UHC)
        case .replacement: return nil
        case .utf16BE: return .utf16BigEndian
        case .utf16LE: return .utf16LittleEndian
        case .xUserDefined: return .whatwgUserDefined
        }
    }
}
