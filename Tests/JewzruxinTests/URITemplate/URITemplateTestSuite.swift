import Foundation
import Testing
@testable import Jewzruxin

/// The official URI template test suite (github.com/uri-templates/uritemplate-test), read with a small
/// JSON reader that keeps the order of object keys: exploded associative arrays expand in that order.
enum URITemplateTestSuite {
    /// A JSON value whose objects keep their key order.
    indirect enum OrderedJSON: Sendable {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array([OrderedJSON])
        case object([(String, OrderedJSON)])
    }

    enum Expected: Sendable {
        case one(String)
        case anyOf([String])
        case failure
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let group: String
        let template: String
        let variables: [String: any Sendable]
        let expected: Expected

        var testDescription: String { "\(file) / \(group): \(template)" }
    }

    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    static let files = ["spec-examples", "spec-examples-by-section", "extended-tests", "negative-tests"]

    /// Every case of every file (empty if a file cannot be read; a separate test checks the counts).
    static let allCases: [Case] = files.flatMap { (try? cases(in: $0)) ?? [] }

    static func cases(in file: String) throws -> [Case] {
        guard let url = Bundle.module.url(forResource: "Resources/uritemplate-test/\(file)", withExtension: "json") else {
            throw ReadError(description: "Resources/uritemplate-test/\(file).json not found")
        }
        var reader = Reader(bytes: Array(try Data(contentsOf: url)))
        guard case .object(let groups) = try reader.readDocument() else { throw ReadError(description: "not an object") }
        var result: [Case] = []
        for (group, body) in groups {
            guard case .object(let fields) = body else { throw ReadError(description: "\(group): not an object") }
            var variables: [String: any Sendable] = [:]
            var testcases: [OrderedJSON] = []
            for (key, value) in fields {
                if key == "variables", case .object(let members) = value {
                    for (name, member) in members { variables[name] = sendable(member) }
                } else if key == "testcases", case .array(let items) = value {
                    testcases = items
                }
            }
            for item in testcases {
                guard case .array(let pair) = item, pair.count == 2, case .string(let template) = pair[0] else {
                    throw ReadError(description: "\(group): malformed test case")
                }
                let expected: Expected
                switch pair[1] {
                case .string(let string): expected = .one(string)
                case .array(let options): expected = .anyOf(options.compactMap { if case .string(let s) = $0 { s } else { nil } })
                case .bool(false): expected = .failure
                default: throw ReadError(description: "\(group): unexpected result for \(template)")
                }
                result.append(Case(file: file, group: group, template: template, variables: variables, expected: expected))
            }
        }
        return result
    }

    /// Strings stay strings, numbers become `Int` or `Double`, lists arrays, objects ordered pairs.
    static func sendable(_ json: OrderedJSON) -> (any Sendable)? {
        switch json {
        case .null: return nil
        case .bool(let bool): return bool
        case .number(let text): return Int(text) ?? Double(text) ?? text
        case .string(let string): return string
        case .array(let items): return items.compactMap(sendable)
        case .object(let members): return members.compactMap { key, value in sendable(value).map { (key, $0) } }
        }
    }

    /// A strict-enough JSON reader for the test files.
    struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func readDocument() throws -> OrderedJSON {
            let value = try readValue()
            skipSpace()
            guard index == bytes.count else { throw error("trailing text") }
            return value
        }

        private func error(_ message: String) -> ReadError { ReadError(description: "\(message) at byte \(index)") }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { throw error("expected \(UnicodeScalar(byte))") }
            index += 1
        }

        private mutating func peek() throws -> UInt8 {
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end") }
            return bytes[index]
        }

        private mutating func readValue() throws -> OrderedJSON {
            switch try peek() {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, OrderedJSON)] = []
                if try peek() == UInt8(ascii: "}") { index += 1; return .object(members) }
                repeat {
                    skipSpace()
                    let key = try readString()
                    try expect(UInt8(ascii: ":"))
                    members.append((key, try readValue()))
                } while try readSeparator(closing: UInt8(ascii: "}"))
                return .object(members)
            case UInt8(ascii: "["):
                index += 1
                var items: [OrderedJSON] = []
                if try peek() == UInt8(ascii: "]") { index += 1; return .array(items) }
                repeat { items.append(try readValue()) } while try readSeparator(closing: UInt8(ascii: "]"))
                return .array(items)
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): try readWord("true"); return .bool(true)
            case UInt8(ascii: "f"): try readWord("false"); return .bool(false)
            case UInt8(ascii: "n"): try readWord("null"); return .null
            default:
                let start = index
                while index < bytes.count, "+-.0123456789eE".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw error("unexpected character") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        /// Reads `,` (true: more follow) or the closing bracket (false).
        private mutating func readSeparator(closing: UInt8) throws -> Bool {
            let byte = try peek()
            index += 1
            if byte == UInt8(ascii: ",") { return true }
            if byte == closing { return false }
            throw error("expected , or \(UnicodeScalar(closing))")
        }

        private mutating func readWord(_ word: String) throws {
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw error("expected \(word)") }
                index += 1
            }
        }

        private mutating func readString() throws -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw = [] }
            var pendingHigh: UInt32?
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { flush(); return String(scalars) }
                guard byte == UInt8(ascii: "\\") else { raw.append(byte); continue }
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { throw error("bad \\u escape") }
                    index += 4
                    flush()
                    if (0xD800...0xDBFF).contains(code) { pendingHigh = code; continue }
                    if let high = pendingHigh, (0xDC00...0xDFFF).contains(code) {
                        let value = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                        if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
                        pendingHigh = nil
                    } else if let scalar = Unicode.Scalar(code) {
                        scalars.append(scalar)
                    }
                default: raw.append(escape)
                }
            }
            throw error("unterminated string")
        }
    }
}
