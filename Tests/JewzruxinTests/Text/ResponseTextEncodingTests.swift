import Foundation
import Testing
@testable import Jewzruxin

@Suite("Response text encoding rule")
struct ResponseTextEncodingTests {
    private func text(_ contentType: String?, _ bytes: [UInt8]) -> String? {
        let body = Data(bytes)
        return ResponseTextEncoding.decode(body, encoding: ResponseTextEncoding.encoding(contentType: contentType, body: body))
    }

    @Test("the header charset wins over sniffing")
    func headerCharsetWins() {
        // Valid UTF-8 bytes, but the header says windows-1251.
        let body = Data([0xD0, 0x9F])
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain; charset=windows-1251", body: body) == .windowsCP1251)
        #expect(text("text/plain; charset=windows-1251", [0xD0, 0x9F]) == "Рџ")
        #expect(ResponseTextEncoding.encoding(contentType: "application/json; charset=\"ISO-8859-1\"", body: body) == .windowsCP1252)
        #expect(ResponseTextEncoding.encoding(contentType: "application/xml;CHARSET=koi8-r", body: body)
                == String.Encoding(charsetLabel: "koi8-r"))
    }

    @Test("an unknown or replacement label falls through to sniffing")
    func unknownLabel() {
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain; charset=bogus", body: Data("é".utf8)) == .utf8)
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain; charset=bogus", body: Data([0xE9])) == .windowsCP1252)
        #expect(ResponseTextEncoding.encoding(contentType: "text/html; charset=iso-2022-kr", body: Data("a".utf8)) == .utf8)
    }

    @Test("text/* without charset is ISO-8859-1 (RFC 2616 §3.7.1)")
    func textDefault() {
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain", body: Data("café".utf8)) == .isoLatin1)
        #expect(ResponseTextEncoding.encoding(contentType: "TEXT/HTML; q=1", body: Data()) == .isoLatin1)
        #expect(text("text/csv", [0x63, 0x61, 0x66, 0xE9, 0x80]) == "café\u{80}")
    }

    @Test("application/json without charset is UTF-8 by sniffing")
    func jsonSniffed() {
        #expect(ResponseTextEncoding.encoding(contentType: "application/json", body: Data("{\"a\":\"é\"}".utf8)) == .utf8)
        #expect(text("application/json", Array("{\"a\":\"日本\"}".utf8)) == "{\"a\":\"日本\"}")
        #expect(ResponseTextEncoding.encoding(contentType: nil, body: Data()) == .utf8)
        #expect(ResponseTextEncoding.encoding(contentType: "garbage", body: Data("x".utf8)) == .utf8)
        #expect(ResponseTextEncoding.encoding(contentType: "application/octet-stream", body: Data([0xE9])) == .windowsCP1252)
    }

    @Test("a BOM wins over the header and is removed")
    func byteOrderMark() {
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain", body: Data([0xEF, 0xBB, 0xBF, 0x41])) == .utf8)
        #expect(ResponseTextEncoding.encoding(contentType: "text/plain; charset=windows-1252",
                                              body: Data([0xFF, 0xFE, 0x41, 0x00])) == .utf16LittleEndian)
        #expect(text("text/plain", [0xEF, 0xBB, 0xBF, 0x63, 0x61, 0x66, 0xC3, 0xA9]) == "café")
        #expect(text(nil, [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]) == "hi")
        #expect(text("application/json; charset=utf-8", [0xFE, 0xFF, 0x00, 0x68, 0x00, 0x69]) == "hi")
    }

    @Test("decode removes only a BOM of the encoding given")
    func bomOfOtherEncodingKept() {
        #expect(ResponseTextEncoding.decode(Data([0xEF, 0xBB, 0xBF, 0x41]), encoding: .utf8) == "A")
        #expect(ResponseTextEncoding.decode(Data([0xEF, 0xBB, 0xBF, 0x41]), encoding: .windowsCP1252) == "ï»¿A")
        #expect(ResponseTextEncoding.decode(Data([0xFF, 0xFE, 0x41, 0x00]), encoding: .utf16LittleEndian) == "A")
        #expect(ResponseTextEncoding.decode(Data([0xFF, 0xFE, 0x41, 0x00]), encoding: .utf16) == "A")
        #expect(ResponseTextEncoding.decode(Data([0xFE, 0xFF, 0x00, 0x41]), encoding: .utf16BigEndian) == "A")
        #expect(ResponseTextEncoding.decode(Data(), encoding: .utf8) == "")
    }

    struct Body: Sendable, CustomTestStringConvertible {
        let charset: String
        let bytes: [UInt8]
        let text: String
        var testDescription: String { charset }
    }

    /// Whole bodies encoded by Python 3.11, written out as literals.
    static let bodies: [Body] = [
        Body(charset: "GB18030", bytes: [0xC4, 0xE3, 0xBA, 0xC3, 0xA3, 0xAC, 0xCA, 0xC0, 0xBD, 0xE7, 0xA3, 0xA1, 0x0A, 0xA8, 0xA6, 0x20, 0x95, 0x32, 0x82, 0x36], text: "你好，世界！\né 𠀀"),
        Body(charset: "big5", bytes: [0xA7, 0x41, 0xA6, 0x6E, 0xA1, 0x41, 0xA5, 0x40, 0xAC, 0xC9, 0xA1, 0x49, 0x0A, 0xC1, 0x63, 0xC5, 0xE9, 0xA4, 0xA4, 0xA4, 0xE5], text: "你好，世界！\n繁體中文"),
        Body(charset: "Shift_JIS", bytes: [0x82, 0xB1, 0x82, 0xF1, 0x82, 0xC9, 0x82, 0xBF, 0x82, 0xCD, 0x81, 0x41, 0x90, 0xA2, 0x8A, 0x45, 0x81, 0x49, 0x0A, 0xB6, 0xC0, 0xB6, 0xC5, 0x20, 0x5C, 0x7E], text: "こんにちは、世界！\nｶﾀｶﾅ \\~"),
        Body(charset: "euc-kr", bytes: [0xBE, 0xC8, 0xB3, 0xE7, 0xC7, 0xCF, 0xBC, 0xBC, 0xBF, 0xE4, 0x2C, 0x20, 0xBC, 0xBC, 0xB0, 0xE8, 0x21, 0x0A, 0xC7, 0xD1, 0xB1, 0xDB], text: "안녕하세요, 세계!\n한글"),
        Body(charset: "koi8-r", bytes: [0xFA, 0xC4, 0xD2, 0xC1, 0xD7, 0xD3, 0xD4, 0xD7, 0xD5, 0xCA, 0x2C, 0x20, 0xCD, 0xC9, 0xD2, 0x21, 0x0A, 0xF1, 0xDE, 0xC5, 0xCA, 0xCB, 0xC1], text: "Здравствуй, мир!\nЯчейка"),
        Body(charset: "windows-1252", bytes: [0x93, 0x53, 0x6D, 0x61, 0x72, 0x74, 0x94, 0x20, 0x71, 0x75, 0x6F, 0x74, 0x65, 0x73, 0x20, 0x96, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x2C, 0x20, 0x6E, 0x61, 0xEF, 0x76, 0x65, 0x2C, 0x20, 0x80, 0x35, 0x2C, 0x20, 0x85], text: "“Smart” quotes – café, naïve, €5, …"),
        Body(charset: "utf-16le", bytes: [0x48, 0x00, 0xE9, 0x00, 0x6C, 0x00, 0x6C, 0x00, 0x6F, 0x00, 0x2C, 0x00, 0x20, 0x00, 0x16, 0x4E, 0x4C, 0x75, 0x20, 0x00, 0x3D, 0xD8, 0x00, 0xDE], text: "Héllo, 世界 😀"),
        Body(charset: "utf-16be", bytes: [0x00, 0x48, 0x00, 0xE9, 0x00, 0x6C, 0x00, 0x6C, 0x00, 0x6F, 0x00, 0x2C, 0x00, 0x20, 0x4E, 0x16, 0x75, 0x4C, 0x00, 0x20, 0xD8, 0x3D, 0xDE, 0x00], text: "Héllo, 世界 😀"),
    ]

    @Test("bodies decode to the original text", arguments: bodies)
    func bodiesDecode(body: Body) {
        #expect(text("text/plain; charset=\(body.charset)", body.bytes) == body.text)
    }

    @Test("UTF-16 bodies without BOM and without charset are sniffed")
    func utf16Sniffed() {
        let little: [UInt8] = [0x7B, 0x00, 0x22, 0x00, 0x61, 0x00, 0x22, 0x00, 0x3A, 0x00, 0x31, 0x00, 0x7D, 0x00]
        #expect(text("application/json", little) == "{\"a\":1}")
    }
}
