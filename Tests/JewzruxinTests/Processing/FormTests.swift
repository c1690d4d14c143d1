import Foundation
import Testing
@testable import Jewzruxin

/// The application/x-www-form-urlencoded parser and serializer, and ``FormData``.
///
/// The processor tests are in FormProcessorTests.swift, nested in this suite too.
@Suite("Forms (application/x-www-form-urlencoded)")
struct FormTests {
    /// The scalars of each name and value, so that strings are compared exactly rather than by
    /// canonical equivalence.
    static func scalars(_ pairs: [(name: String, value: String)]) -> [[[UInt32]]] {
        pairs.map { [$0.name.unicodeScalars.map(\.value), $0.value.unicodeScalars.map(\.value)] }
    }
}

// MARK: - Parsing: web-platform-tests url/resources/urlencoded-parser-data.json

extension FormTests {
    @Suite("Parsing (WHATWG URL Standard test data)")
    struct Parsing {
        struct ParserCase: Sendable, Decodable, CustomTestStringConvertible {
            let input: String
            let output: [[String]]
            var testDescription: String { input.debugDescription }
        }

        struct MissingResource: Error {}

        static func cases() throws -> [ParserCase] {
            guard let url = Bundle.module.url(forResource: "Resources/url/urlencoded-parser-data", withExtension: "json") else {
                throw MissingResource()
            }
            return try JSONDecoder().decode([ParserCase].self, from: Data(contentsOf: url))
        }

        @Test("urlencoded-parser-data.json is loaded whole")
        func loaded() throws {
            #expect(try Self.cases().count == 35)
        }

        @Test("urlencoded-parser-data.json: every case parses as expected", arguments: try cases())
        func parserCase(_ parserCase: ParserCase) throws {
            let parsed = FormEncoding.parse(Data(parserCase.input.utf8))
            let expected = try parserCase.output.map { pair in
                try #require(pair.count == 2, "a case's output pair has two members")
                return (name: pair[0], value: pair[1])
            }
            #expect(FormTests.scalars(parsed) == FormTests.scalars(expected))
            #expect(FormData(parsing: parserCase.input) == FormData(expected))
        }

        @Test("Lenient decoding beyond the data file", arguments: [
            ("%", [["%", ""]]),
            ("%%", [["%%", ""]]),
            ("a=%zz%4", [["a", "%zz%4"]]),
            ("a=%2B+%2b", [["a", "+ +"]]),
            ("a=%F0%9F%98%80", [["a", "😀"]]),
            ("a=%F0%9F%98", [["a", "\u{FFFD}"]]),
            ("a=%ED%A0%80", [["a", "\u{FFFD}\u{FFFD}\u{FFFD}"]]),
            ("a=%00", [["a", "\u{0}"]]),
            ("=", [["", ""]]),
            ("==", [["", "="]]),
            ("a=b=c&&=d", [["a", "b=c"], ["", "d"]]),
        ])
        func lenient(input: String, output: [[String]]) {
            let parsed = FormEncoding.parse(input)
            #expect(parsed.map { [$0.name, $0.value] } == output)
        }
    }
}

// MARK: - Serializing

extension FormTests {
    @Suite("Serializing")
    struct Serializing {
        @Test("Known encodings", arguments: [
            ("a b", "a+b"),
            ("+", "%2B"),
            ("&", "%26"),
            ("=", "%3D"),
            ("*-._~", "*-._%7E"),
            ("%", "%25"),
            ("%20", "%2520"),
            ("AZaz09", "AZaz09"),
            ("!'()", "%21%27%28%29"),
            ("/?#[]@:", "%2F%3F%23%5B%5D%40%3A"),
            ("é", "%C3%A9"),
            ("日本", "%E6%97%A5%E6%9C%AC"),
            ("😀", "%F0%9F%98%80"),
            ("\r\n\t", "%0D%0A%09"),
            ("", ""),
        ])
        func knownEncodings(raw: String, encoded: String) {
            #expect(FormEncoding.encode(raw) == encoded)
            #expect(FormEncoding.serialize([(raw, raw)]) == "\(encoded)=\(encoded)")
        }

        @Test("Pairs are joined with & in order, names repeated")
        func serializePairs() {
            #expect(FormEncoding.serialize([("b", "1"), ("a", "x y"), ("b", "2")]) == "b=1&a=x+y&b=2")
            #expect(FormEncoding.serialize([("", "")]) == "=")
            #expect(FormEncoding.serialize([(String, String)]()) == "")
        }

        static let tricky: [[(String, String)]] = [
            [("a b", "c+d")],
            [("&", "="), ("=", "&")],
            [("%", "%25"), ("%2", "%zz")],
            [("*-._~", "!$'()*,;:@/?")],
            [("héllo wörld", "日本語"), ("emoji", "😀👩‍👩‍👧‍👦🇫🇷")],
            [("\u{FEFF}bom", "\u{FEFF}"), ("\u{FFFF}", "\u{FFFD}")],
            [("", ""), ("", "x"), ("x", "")],
            [("a", "1"), ("a", "2"), ("a", "3")],
            [("line", "one\r\ntwo\0three")],
            [("e\u{301}", "\u{E9}")],
        ]

        @Test("parse(serialize(x)) == x", arguments: tricky)
        func roundTrip(pairs: [(String, String)]) {
            let encoded = FormEncoding.serialize(pairs)
            #expect(encoded.unicodeScalars.allSatisfy { $0.isASCII }, "the serialization is ASCII")
            let parsed = FormEncoding.parse(Data(encoded.utf8))
            #expect(FormTests.scalars(parsed) == FormTests.scalars(pairs.map { (name: $0.0, value: $0.1) }))
        }
    }
}

// MARK: - FormData

extension FormTests {
    @Suite("FormData")
    struct FormDataValue {
        @Test("A literal keeps order and repeated names")
        func literal() {
            let form: FormData = ["q": "swift", "tag": "a", "tag": "b", "empty": ""]
            #expect(form.count == 4)
            #expect(form["q"] == "swift")
            #expect(form["tag"] == "a")
            #expect(form.values(for: "tag") == ["a", "b"])
            #expect(form["empty"] == "")
            #expect(form["missing"] == nil)
            #expect(form["Q"] == nil, "names are case-sensitive")
            #expect(form.values(for: "missing").isEmpty)
            #expect(form.map(\.name) == ["q", "tag", "tag", "empty"])
            #expect(form.encoded == "q=swift&tag=a&tag=b&empty=")
            #expect(form.description == form.encoded)
        }

        @Test("Equality and hashing follow the pairs in order")
        func equality() {
            let form: FormData = ["a": "1", "b": "2"]
            #expect(form == FormData([(name: "a", value: "1"), (name: "b", value: "2")]))
            #expect(form != ["b": "2", "a": "1"])
            #expect(form != ["a": "1"])
            #expect(Set([form, ["a": "1", "b": "2"], ["b": "2", "a": "1"]]).count == 2)
            var built = FormData()
            #expect(built.isEmpty)
            built.append("a", "1")
            built.append("b", "2")
            #expect(built == form)
        }

        @Test("Parsing text and bytes")
        func parsing() {
            let form = FormData(parsing: "name=Ada+Lovelace&lang=en&lang=fr&note=%E2%9C%93")
            #expect(form["name"] == "Ada Lovelace")
            #expect(form.values(for: "lang") == ["en", "fr"])
            #expect(form["note"] == "✓")
            #expect(FormData(parsing: Data(form.encoded.utf8)) == form)
            #expect(FormData(parsing: Data()).isEmpty)
        }
    }
}
