import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

@Suite("response.text over the wire", .onEveryTransport)
struct ResponseTextTests {
    static let samples: [(label: String, text: String)] = [
        ("gb18030", "中文编码测试"),
        ("gbk", "简体中文"),
        ("big5", "繁體中文"),
        ("shift_jis", "日本語のテキスト"),
        ("euc-kr", "한국어 텍스트"),
        ("koi8-r", "Привет, мир"),
        ("windows-1252", "café – naïve € œuvre"),
        ("iso-8859-1", "café crème"),
        ("utf-16le", "UTF-16 little 中文 ✓"),
        ("utf-16be", "UTF-16 big 中文 ✓"),
        ("utf-8", "UTF-8 中文 ✓"),
    ]

    @Test("bodies in each charset decode to the original text", arguments: samples)
    func charsets(label: String, text: String) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": text, "encoding": label],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=\(label)")
            #expect(result.response.data != Data(text.utf8) || label == "utf-8")
            #expect(result.response.text == text)
        }
    }

    @Test("text/* without charset is read as ISO-8859-1")
    func textWithoutCharset() async throws {
        try await withSandbox { sandbox in
            // "café" in UTF-8 is 63 61 66 C3 A9: read as ISO-8859-1 that is "cafÃ©".
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "café", "header": "Content-Type:text/plain"],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.response.textEncoding == .isoLatin1)
            #expect(result.response.text == "cafÃ©")
        }
    }

    @Test("a non-text type without charset is sniffed: valid UTF-8 reads as UTF-8")
    func sniffedUTF8() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "{\"name\":\"café\"}", "header": "Content-Type:application/json"],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.response.textEncoding == .utf8)
            #expect(result.response.text == "{\"name\":\"café\"}")
        }
    }

    @Test("no Content-Type at all: sniffed")
    func noContentType() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "naïve", "header": "Content-Type:"],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect(result.response.value(forHTTPHeaderField: "Content-Type") == nil)
            #expect(result.response.text == "naïve")
        }
    }

    @Test("textReadEncoding overrides the encoding found")
    func textReadEncoding() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "Привет", "encoding": "koi8-r", "header": "Content-Type:text/plain"],
                                                session: makeSession())
            // Without a charset the text/* default (ISO-8859-1) garbles it…
            #expect(cycle.response.text != "Привет")
            // …until the caller says which encoding to read it with.
            cycle.response.textReadEncoding = String.Encoding(charsetLabel: "koi8-r")
            #expect(cycle.response.text == "Привет")
        }
    }
}
