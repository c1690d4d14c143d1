import Foundation
import Testing
@testable import Jewzruxin

@Suite("MediaType (WHATWG MIME parsing and serialisation)")
struct MediaTypeTests {
    struct MIMECase: Sendable, CustomTestStringConvertible {
        let input: String
        let output: String?
        let encoding: String?
        var testDescription: String { input.debugDescription }
    }

    static func mimeTypeCases() throws -> [MIMECase] {
        guard let entries = try TextFixtures.json("mimesniff/mime-types.json") as? [Any] else { return [] }
        return entries.compactMap { entry in
            guard let object = entry as? [String: Any], let input = object["input"] as? String else { return nil }
            return MIMECase(input: input, output: object["output"] as? String, encoding: object["encoding"] as? String)
        }
    }

    @Test("mime-types.json is loaded")
    func loaded() throws {
        #expect(try Self.mimeTypeCases().count > 70)
    }

    @Test("mime-types.json: parse and serialise", arguments: try mimeTypeCases())
    func mimeTypes(mimeCase: MIMECase) {
        let parsed = MediaType(mimeCase.input)
        #expect(parsed?.description == mimeCase.output)
        if let parsed {
            #expect(MediaType(parsed.description) == parsed, "the serialisation parses back")
        }
    }

    @Test("mime-types.json: the charset names the expected encoding", arguments: try mimeTypeCases().filter { $0.output != nil })
    func mimeTypeEncodings(mimeCase: MIMECase) {
        let charset = MediaType(mimeCase.input)?.charset
        #expect(charset.flatMap { WHATWGEncoding(label: $0) }?.rawValue == mimeCase.encoding)
    }

    struct ContentTypeCase: Sendable, CustomTestStringConvertible {
        let input: [String]
        let encoding: String?
        let mimeType: String?
        var testDescription: String { input.description }
    }

    static func contentTypeCases() throws -> [ContentTypeCase] {
        guard let entries = try TextFixtures.json("mimesniff/content-types.json") as? [[String: Any]] else { return [] }
        return entries.map {
            ContentTypeCase(input: $0["input"] as? [String] ?? [], encoding: $0["encoding"] as? String,
                            mimeType: $0["mimeType"] as? String)
        }
    }

    @Test("content-types.json: MIME type and encoding extracted from combined header fields",
          arguments: try contentTypeCases())
    func contentTypes(contentTypeCase: ContentTypeCase) {
        // Header fields with the same name combine with ", " (Fetch "get", RFC 9110 §5.3).
        let extracted = MediaType(contentTypeHeader: contentTypeCase.input.joined(separator: ", "))
        #expect(extracted?.description == contentTypeCase.mimeType)
        let encoding = extracted?.charset.flatMap { WHATWGEncoding(label: $0) }
        #expect(encoding?.rawValue == contentTypeCase.encoding)
    }

    @Test("content-types.json is loaded")
    func contentTypesLoaded() throws {
        #expect(try Self.contentTypeCases().count == 16)
    }

    @Test("type, subtype, essence, charset and ordered parameters")
    func parts() throws {
        let type = try #require(MediaType(" Text/HTML ; Foo=Bar;charset=\"Shift_JIS\" ;foo=ignored; q=\"a\\\"b\""))
        #expect(type.type == "text")
        #expect(type.subtype == "html")
        #expect(type.essence == "text/html")
        #expect(type.charset == "Shift_JIS")
        #expect(type.parameters.map(\.name) == ["foo", "charset", "q"])
        #expect(type.parameters.map(\.value) == ["Bar", "Shift_JIS", "a\"b"])
        #expect(type.parameters["FOO"] == "Bar")
        #expect(type.parameters["Charset"] == "Shift_JIS")
        #expect(type.parameters["missing"] == nil)
        #expect(type.description == "text/html;foo=Bar;charset=Shift_JIS;q=\"a\\\"b\"")
        #expect(type.parameters.count == 3)
    }

    @Test("equal after normalisation; usable as a Sendable, Hashable value")
    func equality() throws {
        let first = try #require(MediaType("application/JSON; charset=utf-8"))
        let second = try #require(MediaType("application/json;charset=utf-8"))
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(MediaType("application/json;charset=UTF-8") != first)
    }

    @Test("invalid MIME types", arguments: ["", " ", "text", "text/", "/html", "te xt/html", "text/ht ml", "text/html,",
                                            "\u{0B}text/html", "tëxt/html", "text/html\u{0}", "*/*\u{100}"])
    func invalid(input: String) {
        #expect(MediaType(input) == nil)
    }

    @Test("a Content-Type header without any valid MIME type")
    func noValidHeader() {
        #expect(MediaType(contentTypeHeader: "") == nil)
        #expect(MediaType(contentTypeHeader: "*/*") == nil)
        #expect(MediaType(contentTypeHeader: "nonsense, , text") == nil)
        #expect(MediaType(contentTypeHeader: "text/html;charset=a,b")?.charset == "a")
        #expect(MediaType("text/html;charset=a,b")?.charset == "a,b")
    }
}
