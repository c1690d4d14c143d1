import Foundation
import Testing
@testable import Jewzruxin

@Suite("Text encoding sniffing")
struct TextSniffingTests {
    @Test("byte order marks")
    func byteOrderMarks() {
        #expect(EncodingSniffer.sniffEncoding(of: Data([0xEF, 0xBB, 0xBF, 0x41])) == .utf8)
        #expect(EncodingSniffer.sniffEncoding(of: Data([0xFF, 0xFE, 0x41, 0x00])) == .utf16LittleEndian)
        #expect(EncodingSniffer.sniffEncoding(of: Data([0xFE, 0xFF, 0x00, 0x41])) == .utf16BigEndian)
        #expect(EncodingSniffer.byteOrderMark(of: Data([0xEF, 0xBB, 0xBF]))?.length == 3)
        #expect(EncodingSniffer.byteOrderMark(of: Data([0xFF, 0xFE]))?.length == 2)
        #expect(EncodingSniffer.byteOrderMark(of: Data([0xEF, 0xBB])) == nil)
        #expect(EncodingSniffer.byteOrderMark(of: Data()) == nil)
        // A BOM wins even when the rest is not valid in that encoding.
        #expect(EncodingSniffer.sniffEncoding(of: Data([0xEF, 0xBB, 0xBF, 0xFF])) == .utf8)
    }

    @Test("valid UTF-8 is UTF-8, an empty body too")
    func validUTF8() {
        #expect(EncodingSniffer.sniffEncoding(of: Data()) == .utf8)
        #expect(EncodingSniffer.sniffEncoding(of: Data("plain ASCII".utf8)) == .utf8)
        #expect(EncodingSniffer.sniffEncoding(of: Data("{\"name\":\"café 日本 𝄞\"}".utf8)) == .utf8)
        let long = Data((String(repeating: "ascii ascii ascii ", count: 500) + "é").utf8)
        #expect(EncodingSniffer.sniffEncoding(of: long) == .utf8)
    }

    @Test("invalid UTF-8 falls back to windows-1252", arguments: [
        [0xE9] as [UInt8], [0x63, 0x61, 0x66, 0xE9], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xE2, 0x82, 0x41],
    ])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(EncodingSniffer.sniffEncoding(of: Data(bytes)) == .windowsCP1252)
    }

    @Test("an invalid byte far into the body is found (the whole body is checked)")
    func invalidLate() {
        let body = Data(String(repeating: "x", count: 100_000).utf8) + Data([0xFF])
        #expect(EncodingSniffer.sniffEncoding(of: body) == .windowsCP1252)
    }

    @Test("the validator agrees with Foundation on arbitrary bytes")
    func validatorMatchesFoundation() {
        var random = TextTestRandom(seed: 42)
        for length in 1...300 {
            // Mostly-valid input: UTF-8 text with a few random bytes spliced in.
            var bytes = Array("añ日𝄞b".utf8)
            bytes.insert(contentsOf: random.bytes(length % 4), at: length % bytes.count)
            let valid = String(data: Data(bytes), encoding: .utf8) != nil
            #expect(EncodingSniffer.isValidUTF8(Data(bytes)) == valid, "\(bytes)")
        }
    }

    @Test("the validator agrees with the standard library around every non-ASCII lead byte")
    func validatorMatchesStandardLibrary() {
        // `TextDecoding.decodeUTF8` skips the standard library's own check for bytes accepted here,
        // so the two must agree exactly. Bytes are valid when `String(decoding:as:)` repairs nothing.
        // Each sequence is tried at the start and after seven ASCII bytes (the word scan stops
        // within a word), whole and cut short.
        let continuations: [UInt8] = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0]
        var mismatches: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            // Only the bytes a sequence with this lead would use vary; the others stay ASCII.
            let used = lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3
            let options = (0..<3).map { $0 < used ? continuations : [UInt8(ascii: "b")] }
            for second in options[0] {
                for third in options[1] {
                    for fourth in options[2] {
                        for padding in [0, 7] {
                            let sequence = Array(repeating: UInt8(ascii: "a"), count: padding) + [lead, second, third, fourth]
                            for length in padding + 1...padding + 4 {
                                let bytes = Array(sequence[..<length])
                                let valid = Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
                                if bytes.withUnsafeBytes(EncodingSniffer.isValidUTF8) != valid { mismatches.append(bytes) }
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("UTF-16 without BOM by its NUL pattern")
    func utf16WithoutBOM() {
        let little: [UInt8] = [0x7B, 0x00, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00, 0x3A, 0x00, 0x31, 0x00, 0x7D, 0x00]
        let big: [UInt8] = [0x00, 0x7B, 0x00, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00, 0x3A, 0x00, 0x31, 0x00, 0x7D]
        #expect(EncodingSniffer.sniffEncoding(of: Data(little)) == .utf16LittleEndian)
        #expect(EncodingSniffer.sniffEncoding(of: Data(big)) == .utf16BigEndian)
        // All-zero or scattered NULs are no pattern.
        #expect(EncodingSniffer.sniffEncoding(of: Data(repeating: 0, count: 8)) == .utf8)
        #expect(EncodingSniffer.sniffEncoding(of: Data([0x61, 0x00, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67])) == .utf8)
        #expect(EncodingSniffer.sniffEncoding(of: Data([0x61, 0x00])) == .utf8)
    }
}
