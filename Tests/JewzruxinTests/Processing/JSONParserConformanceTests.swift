import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// `JSON(data:)` against RFC 8259, JSONTestSuite-style: `y_` documents are accepted with the value
/// given, `n_` ones refused; against `JSONSerialization` and the `JSONDecoder` path it replaced on
/// seeded pseudo-random documents; and through the `JSONParser` content handler.
@Suite("JSON parser conformance")
struct JSONParserConformanceTests {
    // MARK: Accepted

    static let accepted: [(name: String, text: String, value: JSON)] = [
        ("y_array_empty", "[]", []),
        ("y_object_empty", "{}", [:]),
        ("y_array_nested_empty", "[[],{}]", [[], [:]]),
        ("y_whitespace_around", " \t\r\n[1]\n\t ", [1]),
        ("y_whitespace_inside", "{ \"a\" :\t[ true ,false,\r\nnull ] }", ["a": [true, false, nil]]),
        ("y_top_level_int", "1", 1),
        ("y_top_level_negative", "-1", -1),
        ("y_top_level_string", "\"x\"", "x"),
        ("y_top_level_true", "true", true),
        ("y_top_level_false", "false", false),
        ("y_top_level_null", "null", nil),
        ("y_number_zero", "0", 0),
        ("y_number_minus_zero", "-0", 0),
        ("y_number_fraction", "0.5", 0.5),
        ("y_number_exponent_plus", "1E+2", 100),
        ("y_number_exponent_minus", "1e-2", 0.01),
        ("y_number_fraction_exponent", "123.456e-2", 1.23456),
        ("y_string_empty", "\"\"", ""),
        ("y_string_escaped_nul", "\"\\u0000\"", "\u{0}"),
        ("y_string_simple_escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\u{8}\u{C}\n\r\t"),
        ("y_string_u_escape", "\"a\\u0041\\u00e9\\u65E5b\"", "aAé日b"),
        ("y_string_surrogate_pair", "\"\\uD834\\uDD1E\"", "𝄞"),
        ("y_string_surrogate_pair_lowercase", "\"\\ud83d\\ude00\"", "😀"),
        ("y_string_u_FFFF", "\"\\uFFFF\"", "\u{FFFF}"),
        ("y_string_raw_utf8", "\"é日本😀\"", "é日本😀"),
        ("y_string_raw_utf8_then_escape", "\"é\\n😀\\u0041\"", "é\n😀A"),
        ("y_string_del", "\"\u{7F}\"", "\u{7F}"),
        ("y_object_escaped_key", "{\"\\u0061\":1}", ["a": 1]),
        ("y_object_repeated_key_first_wins", "{\"a\":1,\"a\":2}", ["a": 1]),
        ("y_bom_skipped", "\u{FEFF}[1]", [1]),
        ("y_mixed", #"{"s":"x","i":3,"d":2.5,"b":true,"n":null,"a":[1,"two"],"o":{"k":[{"z":1}]}}"#,
         ["s": "x", "i": 3, "d": 2.5, "b": true, "n": nil, "a": [1, "two"], "o": ["k": [["z": 1]]]]),
    ]

    @Test("y_ documents are accepted with their value", arguments: accepted.indices)
    func acceptedDocument(index: Int) throws {
        let (name, text, value) = Self.accepted[index]
        #expect(try JSON(data: Data(text.utf8)) == value, "\(name)")
    }

    // MARK: Refused

    static let refused: [(name: String, text: String)] = [
        ("n_empty", ""), ("n_only_whitespace", " \n"),
        ("n_array_trailing_comma", "[1,]"), ("n_object_trailing_comma", "{\"a\":1,}"),
        ("n_array_leading_comma", "[,1]"), ("n_array_double_comma", "[1,,2]"), ("n_object_only_comma", "{,}"),
        ("n_array_missing_comma", "[1 2]"), ("n_array_unclosed", "[1"), ("n_array_open", "["), ("n_close_only", "]"),
        ("n_object_unclosed", "{\"a\":1"), ("n_object_key_only", "{\"a\"}"), ("n_object_no_value", "{\"a\":}"),
        ("n_object_unquoted_key", "{a:1}"), ("n_object_number_key", "{1:1}"), ("n_single_quotes", "['a']"),
        ("n_number_leading_zero", "01"), ("n_number_minus_leading_zero", "-01"), ("n_number_leading_zero_in_array", "[01]"),
        ("n_number_trailing_dot", "1."), ("n_number_dot_exponent", "1.e1"), ("n_number_leading_dot", ".1"),
        ("n_number_plus", "+1"), ("n_number_minus_only", "-"), ("n_number_minus_in_array", "[-]"),
        ("n_number_exponent_empty", "1e"), ("n_number_exponent_sign_only", "1e+"), ("n_number_hex", "0x10"),
        ("n_number_infinity", "Infinity"), ("n_number_minus_infinity", "-Infinity"), ("n_number_nan", "NaN"),
        ("n_number_too_large", "1e400"), ("n_number_too_large_negative", "[-1e400]"),
        ("n_number_too_large_by_digits", "1.7976931348623159e308"),
        ("n_string_unescaped_tab", "[\"\t\"]"), ("n_string_unescaped_newline", "\"a\nb\""), ("n_string_unescaped_ctrl", "\"\u{1}\""),
        ("n_string_invalid_escape", "[\"\\x\"]"), ("n_string_escaped_apostrophe", "[\"\\'\"]"),
        ("n_string_short_u_escape", "[\"\\u00\"]"), ("n_string_bad_u_escape", "[\"\\uZZZZ\"]"),
        ("n_string_lone_high_surrogate", "[\"\\ud800\"]"), ("n_string_lone_high_surrogate_at_end", "\"a\\uD800\""),
        ("n_string_lone_low_surrogate", "[\"\\udc00\"]"), ("n_string_reversed_surrogates", "\"\\uDD1E\\uD834\""),
        ("n_string_high_surrogate_then_other", "[\"\\ud800\\u0041\"]"), ("n_string_two_high_surrogates", "[\"\\ud800\\ud800\"]"),
        ("n_string_unterminated", "\"abc"), ("n_string_escaped_closing_quote", "[\"a\\\"]"),
        ("n_garbage_after_value", "[1] x"), ("n_two_values", "[1] [2]"), ("n_two_scalars", "1 2"), ("n_true_false", "true false"),
        ("n_literal_truncated", "tru"), ("n_literal_capitalized", "True"), ("n_literal_extended", "nulls"),
        ("n_form_feed_whitespace", "\u{C}1"), ("n_nbsp_whitespace", "[\u{A0}1]"),
        ("n_line_comment", "//c\n1"), ("n_block_comment", "/*c*/1"),
    ]

    @Test("n_ documents are refused with a DecodingError", arguments: refused.indices)
    func refusedDocument(index: Int) {
        let (name, text) = Self.refused[index]
        #expect(throws: DecodingError.self, "\(name)") { try JSON(data: Data(text.utf8)) }
    }

    static let refusedBytes: [(name: String, bytes: [UInt8])] = [
        ("n_string_invalid_byte", [0x22, 0xFF, 0x22]),
        ("n_string_bad_continuation", [0x22, 0xC3, 0x28, 0x22]),
        ("n_string_overlong", [0x22, 0xC0, 0x80, 0x22]),
        ("n_string_overlong_3", [0x22, 0xE0, 0x80, 0x80, 0x22]),
        ("n_string_encoded_surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22]),
        ("n_string_beyond_10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
        ("n_string_truncated_sequence", [0x22, 0xE2, 0x82, 0x22]),
        ("n_string_invalid_byte_before_escape", [0x22, 0xFF, 0x5C, 0x6E, 0x22]),
        ("n_string_invalid_byte_after_escape", [0x22, 0x5C, 0x6E, 0xFF, 0x22]),
        ("n_string_lead_byte_then_escape", [0x22, 0xC3, 0x5C, 0x75, 0x30, 0x30, 0x41, 0x39, 0x22]),
        ("n_invalid_byte_outside_string", [0x5B, 0xFF, 0x5D]),
        ("n_bom_only", [0xEF, 0xBB, 0xBF]),
        ("n_nul_after_value", [0x31, 0x20, 0x20, 0x00]),
    ]

    @Test("n_ byte sequences (invalid UTF-8) are refused", arguments: refusedBytes.indices)
    func refusedByteSequence(index: Int) {
        let (name, bytes) = Self.refusedBytes[index]
        #expect(throws: DecodingError.self, "\(name)") { try JSON(data: Data(bytes)) }
    }

    @Test("the error says what is wrong and where")
    func errorDescription() throws {
        do {
            _ = try JSON(data: Data("[1,]".utf8))
            Issue.record("a trailing comma was accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("not valid JSON"))
            #expect(context.debugDescription.contains("byte 3"), "\(context.debugDescription)")
        }
    }

    // MARK: Nesting

    @Test("arrays and objects nest 512 deep, and deeper throws rather than overflowing the stack")
    func depthLimit() throws {
        func arrays(_ depth: Int) -> Data { Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8) }
        func objects(_ depth: Int) -> Data {
            Data((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
        }
        var value = try JSON(data: arrays(512))
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == 511)
        #expect(try JSON(data: objects(512)).value(atKeyPath: Array(repeating: "a", count: 512).joined(separator: ".")) == 1)
        for data in [arrays(513), objects(513), arrays(100_000), objects(100_000), Data(String(repeating: "[{\"k\":", count: 50_000).utf8)] {
            #expect(throws: DecodingError.self) { try JSON(data: data) }
        }
    }

    // MARK: Numbers

    /// How numbers became `.int` or `.double` through `JSONDecoder`, kept.
    static let numbers: [(text: String, value: JSON)] = [
        ("9223372036854775807", .int(Int.max)),
        ("-9223372036854775808", .int(Int.min)),
        ("9223372036854775808", .double(0x1p63)),
        ("-9223372036854775809", .double(-0x1p63)),
        ("12345678901234567890", .double(1.2345678901234567e19)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.0", .int(1)), ("2.0e0", .int(2)), ("1e2", .int(100)), ("10e-1", .int(1)), ("0.1e1", .int(1)),
        ("-0.0", .int(0)), ("-0e0", .int(0)), ("1E-400", .int(0)), ("1.0000000000000001", .int(1)),
        ("1.5", .double(1.5)), ("1e-2", .double(0.01)), ("0.30000000000000004", .double(0.30000000000000004)),
        ("1e100", .double(1e100)), ("4.9e-324", .double(.leastNonzeroMagnitude)),
        ("1.7976931348623157e308", .double(1.7976931348623157e308)),
        // Integers from 2^53 on, read exactly.
        ("1e18", .int(1_000_000_000_000_000_000)), ("9.2e18", .int(9_200_000_000_000_000_000)),
        ("-9.2e18", .int(-9_200_000_000_000_000_000)), ("9007199254740993.0", .int(9_007_199_254_740_993)),
        ("1000000000000000000.000000", .int(1_000_000_000_000_000_000)),
        ("9.3e18", .double(9.3e18)), ("1e19", .double(1e19)), ("9223372036854775807.0", .double(0x1p63)),
        ("-9223372036854775808.0", .double(-0x1p63)),
        ("12345678901234567890123e-5", .double(1.2345678901234568e17)),
    ]

    @Test("numbers: integers that fit are .int, others .double, as through JSONDecoder", arguments: numbers.indices)
    func number(index: Int) throws {
        let (text, value) = Self.numbers[index]
        let parsed = try JSON(data: Data(text.utf8))
        #expect(parsed == value, "\(text)")
        #expect(parsed == (try JSONDecoder().decode(JSON.self, from: Data(text.utf8))), "\(text)")
    }

    // MARK: Encodings

    @Test("UTF-16 and UTF-32 text is transcoded, as JSONDecoder did")
    func otherEncodings() throws {
        let text = #"{"a":["é",1]}"#
        let expected: JSON = ["a": ["é", 1]]
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian] {
            let data = try #require(text.data(using: encoding))
            #expect(try JSON(data: data) == expected, "\(encoding)")
        }
    }

    // MARK: Differential

    /// Random JSON texts from a seed: the same documents on every run.
    struct Generator {
        var random: SplitMix64

        init(state: UInt64) { random = SplitMix64(state: state) }

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

        mutating func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(int(0...9))) }) }

        mutating func number() -> String {
            var text = int(0...1) == 0 ? "-" : ""
            var integer = digits(int(1...(int(0...3) == 0 ? 22 : 12)))
            while integer.count > 1, integer.hasPrefix("0") { integer.removeFirst() }
            text += integer
            if int(0...2) == 0 { text += "." + digits(int(1...17)) }
            if int(0...3) == 0 { text += ["e", "E"][int(0...1)] + ["", "+", "-"][int(0...2)] + String(int(0...280)) }
            return text
        }

        mutating func string(key: Int? = nil) -> String {
            let pieces = [#"\n"#, #"\""#, #"\\"#, #"\/"#, #"\t"#, #"\u00e9"#, #"\uD83D\uDE00"#, "é", "日本", "😀", " ", "a", "Z", "0", "{", "]", ":", ","]
            var text = "\""
            for _ in 0..<int(0...8) { text += pieces[int(0...(pieces.count - 1))] }
            if let key { text += String(key) }
            return text + "\""
        }

        mutating func value(depth: Int = 0) -> String {
            switch int(0...(depth > 4 ? 5 : 8)) {
            case 0: return "null"
            case 1: return "true"
            case 2: return "false"
            case 3, 4: return number()
            case 5: return string()
            case 6: return "[" + (0..<int(0...4)).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
            default:
                // Distinct keys: JSONSerialization keeps the last of repeated keys, this parser the first.
                return "{" + (0..<int(0...4)).map { string(key: $0) + " : " + value(depth: depth + 1) }.joined(separator: ", ") + "}"
            }
        }
    }

    /// Whether `json` is what `JSONSerialization` made of the same text. Numbers compare as `Double`,
    /// within a few units in the last place: JSONSerialization reads some through `Decimal`, whose
    /// `doubleValue` isn't always the nearest `Double` (the exact values are checked against the
    /// `JSONDecoder` path).
    static func matches(_ json: JSON, _ object: Any) -> Bool {
        func close(_ number: Any, _ value: Double) -> Bool {
            guard let other = (number as? NSNumber)?.doubleValue else { return false }
            return other == value || (other - value).magnitude <= max(other.magnitude, value.magnitude) * 1e-15
        }
        switch json {
        case .null: return object is NSNull
        case .bool(let value): return (object as? Bool) == value
        case .int(let value): return close(object, Double(value))
        case .double(let value): return close(object, value)
        case .string(let value): return (object as? String) == value
        case .array(let elements):
            guard let others = object as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { matches($0, $1) }
        case .object(let members):
            guard let others = object as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { key, value in others[key].map { matches(value, $0) } ?? false }
        }
    }

    @Test("400 seeded documents read as JSONSerialization and JSONDecoder read them; mutated ones JSONSerialization refuses are refused")
    func differential() throws {
        var generator = Generator(state: 0x5EED_1234)
        var accepted = 0
        for _ in 0..<400 {
            let text = generator.value()
            let data = Data(text.utf8)
            let json = try JSON(data: data)
            let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            #expect(Self.matches(json, object), "\(text)")
            #expect(json == (try JSONDecoder().decode(JSON.self, from: data)), "\(text)")

            // One byte removed, replaced or inserted.
            var bytes = Array(data)
            let position = generator.int(0...(bytes.count - 1))
            switch generator.int(0...2) {
            case 0: bytes.remove(at: position)
            case 1: bytes[position] = UInt8(truncatingIfNeeded: generator.random.next())
            default:
                let inserted = Array(#""\,:[]{}0.e-1 "#.utf8)
                bytes.insert(inserted[generator.int(0...(inserted.count - 1))], at: position)
            }
            let mutated = Data(bytes)
            let reference = try? JSONSerialization.jsonObject(with: mutated, options: .fragmentsAllowed)
            let parsed = try? JSON(data: mutated)
            if let parsed {
                accepted += 1
                // JSONSerialization takes trailing commas this parser refuses, never the reverse.
                let description = String(decoding: bytes, as: UTF8.self)
                #expect(reference.map { Self.matches(parsed, $0) } == true, "\(description)")
            }
        }
        #expect(accepted > 0)
    }

    // MARK: Sizes

    @Test("a large document with every kind of value parses")
    func largeDocument() throws {
        var members: [String] = []
        for index in 0..<5_000 {
            members.append(#"{"id":\#(index),"name":"Store \#(index) — café \u00e9\n","open":\#(index % 2 == 0),"score":\#(Double(index) / 8),"tags":["a","b",null]}"#)
        }
        let json = try JSON(data: Data(("[" + members.joined(separator: ",") + "]").utf8))
        let stores = try #require(json.arrayValue)
        #expect(stores.count == 5_000)
        #expect(stores[4_999]["id"] == 4_999)
        #expect(stores[3]["name"] == "Store 3 — café é\n")
        #expect(stores[3]["score"] == 0.375)
        #expect(stores[8]["score"] == 1)
        #expect(stores[7]["tags"] == ["a", "b", nil])
    }

    // MARK: The content handler

    @Test("JSONParser makes the value, and wraps a parse error as unparsable content")
    func contentHandler() throws {
        let parser = JSONParser()
        #expect(try parser.content(from: Data(#"{"a":[1,2.5,"\u00e9"]}"#.utf8)) as? JSON == ["a": [1, 2.5, "é"]])
        for body in ["[1,]", #"["\ud800"]"#, String(repeating: "[", count: 600)] {
            do {
                _ = try parser.content(from: Data(body.utf8))
                Issue.record("\(body.prefix(20)) was accepted")
            } catch let error as ContentHandlerError {
                #expect(error.code == .unparsableContent)
                #expect(error.underlyingError is DecodingError)
            }
        }
    }
}

extension JSONParserConformanceTests {
    @Test("JSONParser, HTTPJSONProcessor and JSON(body:of:) read a body the same way and fail with one error shape")
    func oneBodyParse() throws {
        let valid = Data(#"{"a":[1,2.5,"\u00e9"]}"#.utf8)
        let expected: JSON = ["a": [1, 2.5, "é"]]
        #expect(try JSON(body: valid, of: nil) == expected)
        #expect(try JSONParser().content(from: valid) as? JSON == expected)
        var good = HTTPResponse(data: valid)
        try HTTPJSONProcessor().processResponse(&good)
        #expect(good.object as? JSON == expected)

        for body in ["{broken", "[1,]", "", "<html>"] {
            let data = Data(body.utf8)
            let direct = #expect(throws: ContentHandlerError.self) { try JSON(body: data, of: HTTPResponse(data: data)) }
            #expect(direct?.code == .unparsableContent)
            #expect(direct?.reason == JSON.invalidBodyReason)
            #expect(direct?.underlyingError is DecodingError)
            #expect(direct?.intermediateContent as? Data == data)
            #expect(direct?.response?.data == data)

            let parsed = #expect(throws: ContentHandlerError.self) { try JSONParser().content(from: data) }
            #expect(parsed?.code == .unparsableContent)
            #expect(parsed?.reason == JSON.invalidBodyReason)
            #expect(parsed?.underlyingError is DecodingError)

            var response = HTTPResponse(data: data)
            let processed = #expect(throws: HTTPProcessorError.self) { try HTTPJSONProcessor().processResponse(&response) }
            #expect(processed?.processor == "HTTPJSONProcessor")
            #expect(processed?.reason == JSON.invalidBodyReason)
            #expect(processed?.underlying is DecodingError)
            #expect(response.object == nil)
            #expect(response.data == data)
        }
    }
}

extension ContentHandlingTests {
    @Suite("JSONParser with the strict parser")
    struct StrictJSONParserTests {
        @Test("a body the strict parser refuses fails as unparsable, its raw bytes kept", arguments: [
            #"{"store": "Corner Shop",}"#, #"{"name": "\ud800"}"#, "[01]",
        ])
        func refusedBodyKeepsBytes(body: String) async throws {
            try await withSandbox { sandbox in
                sandbox.route("/doc/") { _ in .data(Data(body.utf8), contentType: "application/json") }
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/doc/"), handler: JSONParser(), session: session)
                let error = try #require(contentError(result, .unparsableContent))
                let raw = Data(body.utf8)
                #expect(error.intermediateContent as? Data == raw)
                #expect(error.underlyingError is DecodingError)
                #expect(result.response.content as? Data == raw)
                #expect(result.response.data == raw)
                await settle(session)
            }
        }

        @Test("escapes, surrogate pairs and raw UTF-8 in a body come out as text")
        func escapes() async throws {
            try await withSandbox { sandbox in
                let body = #"{"name": "caf\u00e9 \ud83d\ude00 日本", "n": 1.0}"#
                sandbox.route("/doc/") { _ in .data(Data(body.utf8), contentType: "application/json") }
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/doc/"), handler: JSONParser(), session: session)
                #expect(result.error == nil)
                #expect(result.response.content as? JSON == ["name": "café 😀 日本", "n": 1])
                await settle(session)
            }
        }
    }
}
