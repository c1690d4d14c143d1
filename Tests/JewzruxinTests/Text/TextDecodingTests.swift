import Foundation
import Testing
@testable import Jewzruxin

@Suite("Text decoding (WHATWG decoders on Linux)")
struct TextDecodingTests {
    private func decode(_ bytes: [UInt8], _ label: String) throws -> String? {
        let encoding = try #require(String.Encoding(charsetLabel: label), "label \(label)")
        return TextDecoding.decode(Data(bytes), encoding: encoding)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let label: String
        let bytes: [UInt8]
        let expected: String
        let note: String
        var testDescription: String { "\(label): \(note)" }
    }

    /// Invalid input becomes U+FFFD as in the WHATWG decoders (an ASCII byte after a bad lead
    /// byte is kept).
    static let errorCases: [ErrorCase] = [
        .init(label: "utf-8", bytes: [0x61, 0xFF, 0x62], expected: "a\u{FFFD}b", note: "invalid byte"),
        .init(label: "utf-8", bytes: [0x61, 0xE6, 0x97], expected: "a\u{FFFD}", note: "truncated sequence"),
        .init(label: "utf-8", bytes: [0xED, 0xA0, 0x80], expected: "\u{FFFD}\u{FFFD}\u{FFFD}", note: "surrogate"),
        .init(label: "utf-8", bytes: [0xC0, 0xAF], expected: "\u{FFFD}\u{FFFD}", note: "overlong"),
        .init(label: "windows-1252", bytes: [0x81, 0x8D, 0x8F, 0x90, 0x9D],
              expected: "\u{81}\u{8D}\u{8F}\u{90}\u{9D}", note: "undefined bytes are C1 controls"),
        .init(label: "windows-1253", bytes: [0x41, 0xAA, 0xD2, 0xFF], expected: "A\u{FFFD}\u{FFFD}\u{FFFD}",
              note: "bytes without an index entry"),
        .init(label: "iso-8859-3", bytes: [0xA5], expected: "\u{FFFD}", note: "undefined byte"),
        .init(label: "shift_jis", bytes: [0x93, 0xFA, 0x81, 0x20, 0x41], expected: "日\u{FFFD} A",
              note: "bad trail byte, ASCII kept"),
        .init(label: "shift_jis", bytes: [0x80, 0xA0, 0xDF, 0xFD], expected: "\u{80}\u{FFFD}ﾟ\u{FFFD}",
              note: "single bytes"),
        .init(label: "shift_jis", bytes: [0x93], expected: "\u{FFFD}", note: "lone lead byte at the end"),
        .init(label: "gbk", bytes: [0xD6, 0xD0, 0xFF, 0xCE, 0xC4, 0x80], expected: "中\u{FFFD}文€",
              note: "invalid byte between characters"),
        .init(label: "gb18030", bytes: [0x81, 0x30, 0x41], expected: "\u{FFFD}0A", note: "cut four-byte sequence"),
        .init(label: "big5", bytes: [0xA4, 0xA4, 0xA4, 0x0A], expected: "中\u{FFFD}\n", note: "lead before newline"),
        .init(label: "euc-kr", bytes: [0xC7, 0xD1, 0xC7], expected: "한\u{FFFD}", note: "truncated"),
        .init(label: "euc-jp", bytes: [0xC6, 0xFC, 0xA1, 0x41, 0xFF], expected: "日\u{FFFD}A\u{FFFD}",
              note: "ASCII after a lead byte is kept"),
        .init(label: "euc-jp", bytes: [0x8E, 0xE0, 0x8F, 0xB0], expected: "\u{FFFD}\u{FFFD}", note: "bad katakana, cut 0212"),
        .init(label: "iso-2022-jp", bytes: [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x0A], expected: "日\u{FFFD}",
              note: "newline inside JIS X 0208"),
        .init(label: "iso-2022-jp", bytes: [0x1B, 0x28, 0x5A, 0x41], expected: "\u{FFFD}(ZA", note: "unknown escape"),
        .init(label: "iso-2022-jp", bytes: [0x41, 0x0E, 0x80], expected: "A\u{FFFD}\u{FFFD}", note: "SO and 8-bit bytes"),
        .init(label: "iso-2022-jp", bytes: [0x1B, 0x24, 0x42, 0x1B, 0x28, 0x42, 0x41], expected: "\u{FFFD}A",
              note: "two escapes without output between"),
        .init(label: "iso-2022-jp", bytes: [0x1B, 0x24, 0x42, 0x46], expected: "\u{FFFD}", note: "cut pair"),
        .init(label: "utf-16le", bytes: [0x68, 0x00, 0x69], expected: "h\u{FFFD}", note: "odd byte count"),
        .init(label: "utf-16le", bytes: [0x00, 0xD8, 0x41, 0x00], expected: "\u{FFFD}A", note: "lone surrogate"),
        .init(label: "utf-16be", bytes: [0xDC, 0x00], expected: "\u{FFFD}", note: "lone trail surrogate"),
    ]

    @Test("invalid input becomes U+FFFD", arguments: errorCases)
    func errors(errorCase: ErrorCase) throws {
        #expect(try decode(errorCase.bytes, errorCase.label) == errorCase.expected)
    }

    @Test("ISO-2022-JP: Roman, katakana and JIS X 0208 escapes")
    func iso2022JPStates() throws {
        let bytes: [UInt8] = [0x1B, 0x28, 0x4A, 0x5C, 0x7E, 0x1B, 0x28, 0x49, 0x31, 0x5F,
                              0x1B, 0x24, 0x40, 0x30, 0x21, 0x1B, 0x28, 0x42, 0x5C]
        #expect(try decode(bytes, "csiso2022jp") == "¥‾ｱﾟ亜\\")
    }

    @Test("EUC-JP: NEC row 13 and the IBM extensions (via Windows-31J), JIS X 0212")
    func eucJPExtensions() throws {
        // ① (row 13), 纊 (row 89, IBM), ｶ (half-width), 丂 (JIS X 0212), ¥ stays ASCII "\".
        let bytes: [UInt8] = [0xAD, 0xA1, 0xF9, 0xA1, 0x8E, 0xB6, 0x8F, 0xB0, 0xA1, 0x5C]
        #expect(try decode(bytes, "euc-jp") == "①纊ｶ丂\\")
    }

    @Test("Shift_JIS: the user-defined area and Windows-31J specifics")
    func shiftJISExtensions() throws {
        // 0x815F is U+005C's full-width form in Windows-31J; 0xFA40 is ⅰ (IBM).
        #expect(try decode([0x81, 0x5F, 0xFA, 0x40, 0x5C, 0x7E], "shift_jis") == "＼ⅰ\\~")
    }

    @Test("Shift_JIS and EUC-JP keep 0x1A, 0x1C and 0x7F after non-ASCII (ICU swaps them)")
    func shiftJISControls() throws {
        #expect(try decode([0x93, 0xFA, 0x1A, 0x93, 0xFA, 0x1C, 0xB1, 0x7F, 0x41], "shift_jis") == "日\u{1A}日\u{1C}ｱ\u{7F}A")
        #expect(try decode([0xC6, 0xFC, 0x7F, 0x8E, 0xB1, 0x1A], "euc-jp") == "日\u{7F}ｱ\u{1A}")
        #expect(try decode([0x1B, 0x24, 0x42, 0x46, 0x7C, 0x1B, 0x28, 0x42, 0x1C], "iso-2022-jp") == "日\u{1C}")
    }

    @Test("EUC-JP: an unassigned JIS X 0208 cell is one U+FFFD")
    func eucJPUnassigned() throws {
        // Row 9 is empty; its Shift_JIS form 0x85 0x40 has an ASCII-range second byte.
        #expect(try decode([0xA9, 0xA1, 0x41], "euc-jp") == "\u{FFFD}A")
        #expect(try decode([0x1B, 0x24, 0x42, 0x29, 0x21, 0x1B, 0x28, 0x42, 0x41], "iso-2022-jp") == "\u{FFFD}A")
    }

    @Test("gb18030: the 2022 two-byte mappings WHATWG uses, A3A0 as U+3000, four-byte ranges")
    func gb18030Mappings() throws {
        let bytes: [UInt8] = [0xA3, 0xA0, 0xA6, 0xD9, 0xA8, 0xBC, 0x80, 0x81, 0x30, 0x81, 0x30,
                              0x84, 0x31, 0xA4, 0x39, 0x90, 0x30, 0x81, 0x30, 0xE3, 0x32, 0x9A, 0x35]
        #expect(try decode(bytes, "gb18030") == "\u{3000}\u{FE10}\u{1E3F}€\u{80}\u{FFFF}\u{10000}\u{10FFFF}")
        #expect(try decode([0xA3, 0xA0], "gbk") == "\u{3000}")
    }

    @Test("Big5: HKSCS characters CoreFoundation keeps in the Private Use Area get WHATWG's")
    func big5HKSCS() throws {
        // 0x8840 U+31C0; 0x8862 Ê̄ (two code points); 0xA3E1 €; 0xF9FE U+FFED; 0x8140 is
        // user-defined (no WHATWG index entry).
        let bytes: [UInt8] = [0x88, 0x40, 0x88, 0x62, 0xA3, 0xE1, 0xF9, 0xFE, 0x81, 0x40, 0x41]
        #expect(try decode(bytes, "big5-hkscs") == "\u{31C0}\u{CA}\u{304}€\u{FFED}\u{FFFD}A")
    }

    @Test("EUC-KR: the user-defined area and 0xFF are errors, not Private Use characters")
    func eucKRPrivateUse() throws {
        #expect(try decode([0xC9, 0xA1, 0xFF, 0xB0, 0xA1, 0x80], "euc-kr") == "\u{FFFD}\u{FFFD}가\u{FFFD}")
    }

    @Test("UTF-16 with .utf16: BOM picks the byte order and is removed; no BOM is little-endian")
    func genericUTF16() {
        #expect(TextDecoding.decode(Data([0xFE, 0xFF, 0x00, 0x41]), encoding: .utf16) == "A")
        #expect(TextDecoding.decode(Data([0xFF, 0xFE, 0x41, 0x00]), encoding: .utf16) == "A")
        #expect(TextDecoding.decode(Data([0x41, 0x00, 0x42, 0x00]), encoding: .utf16) == "AB")
    }

    @Test("ISO-8859-1 as Foundation's .isoLatin1 maps every byte to the same code point")
    func literalLatin1() {
        let bytes = (0...255).map { UInt8($0) }
        let expected = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        #expect(TextDecoding.decode(Data(bytes), encoding: .isoLatin1) == expected)
    }

    @Test("long single-byte bodies decode across the ASCII fast path")
    func longSingleByte() throws {
        let chunk: [UInt8] = Array("plain ascii text ".utf8) + [0xE9, 0x80]
        let bytes: [UInt8] = Array(repeating: chunk, count: 1000).flatMap { $0 }
        let expected = String(repeating: "plain ascii text é€", count: 1000)
        #expect(try decode(bytes, "windows-1252") == expected)
    }

    @Test("UTF-8 gives what String(decoding:as:) gives, valid or not, long or short")
    func utf8MatchesStandardLibrary() {
        let paragraph = Array("Le café «Jewzruxin» — naïve façade, Straße, 東京, 🚀. The quick brown fox.\n".utf8)
        let long = Array(repeating: paragraph, count: 200).flatMap { $0 }
        var bodies: [[UInt8]] = [[], paragraph, long, long + [0xF0, 0x9F], Array(long[..<(long.count / 2 + 1)])]
        // Invalid bytes at the start, in the middle of a word and at the end of the body.
        for position in [0, 5, long.count / 2, long.count - 1] {
            var invalid = long
            invalid[position] = 0xFF
            bodies.append(invalid)
        }
        for bytes in bodies {
            let text = TextDecoding.decodeUTF8(Data(bytes))
            #expect(text == String(decoding: bytes, as: UTF8.self))
            #expect(Array(text.utf8) == Array(String(decoding: bytes, as: UTF8.self).utf8))
        }
    }

    @Test("the fallback of the double-byte decoders keeps good chunks around a bad byte")
    func multiByteChunks() throws {
        let good: [UInt8] = [0xD6, 0xD0, 0xCE, 0xC4, 0x0A]  // "中文\n"
        let run: [UInt8] = Array(repeating: good, count: 2000).flatMap { $0 }
        let bytes: [UInt8] = run + [0xFF] + run
        let text = try #require(try decode(bytes, "gb18030"))
        #expect(text == String(repeating: "中文\n", count: 2000) + "\u{FFFD}" + String(repeating: "中文\n", count: 2000))
    }

    @Test("no encoding fails or crashes on arbitrary bytes", arguments: WHATWGEncoding.allCases)
    func arbitraryBytes(encoding: WHATWGEncoding) throws {
        guard let stringEncoding = encoding.stringEncoding else {
            #expect(encoding == .replacement)
            return
        }
        var random = TextTestRandom(seed: 0x5EED)
        for length in [0, 1, 2, 3, 7, 64, 1000, 9000] {
            let data = Data(random.bytes(length))
            let text = TextDecoding.decode(data, encoding: stringEncoding)
            #expect(text != nil, "\(encoding.rawValue), \(length) bytes")
            #expect(ResponseTextEncoding.decode(data, encoding: stringEncoding) != nil)
        }
    }

    @Test("every WHATWG encoding is decoded without Foundation's all-or-nothing failure")
    func allLenient() {
        for encoding in WHATWGEncoding.allCases {
            guard let stringEncoding = encoding.stringEncoding else { continue }
            #expect(TextDecoding.decodesLeniently(stringEncoding), "\(encoding.rawValue)")
        }
        #expect(!TextDecoding.decodesLeniently(.utf32))
    }
}
