import Foundation

/// A JSON value: a Sendable, comparable tree that JSON bodies are read into and written from.
///
/// Write one with literals (`["k1": "v1", "k2": 9, "k3": [17, "v3"]]`), read one with subscripts
/// (`json["k3"]?[0]?.intValue`) or a dotted key path (`json.value(atKeyPath: "store.address.zip")`).
public enum JSON: Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// A number without a fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object; key order is not kept.
    case object([String: JSON])

    /// Parses JSON text.
    ///
    /// The text is read strictly as RFC 8259 says: one value of any kind (a bare `"text"` or `3`
    /// too) with only whitespace around it, no trailing comma, no leading zero, strings of valid
    /// UTF-8 whose control characters are escaped and whose `\u` escapes pair their surrogates,
    /// and arrays and objects nested at most 512 deep. A number without a fraction or exponent
    /// that fits in `Int` is ``int(_:)``, and so is any other number whose value is an integer
    /// that fits (`1.0`, `1e2`); every other number is ``double(_:)``, and one too large for
    /// `Double` is an error. When a key is repeated, its first value is kept. A UTF-8 byte order
    /// mark is skipped, and UTF-16 or UTF-32 text is transcoded first.
    /// - Throws: `DecodingError` when `data` is not valid JSON.
    public init(data: Data) throws {
        let parsed = try data.withUnsafeBytes { raw -> JSON? in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            guard !JSONReader.needsTranscoding(bytes) else { return nil }
            var reader = JSONReader(bytes)
            do {
                return try reader.document()
            } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON: \(error).", underlyingError: error))
            }
        }
        // UTF-16 and UTF-32 go through `JSONDecoder`, which transcodes them.
        self = try parsed ?? JSONDecoder().decode(JSON.self, from: data)
    }

    /// Converts a Swift value: `JSON`, `String`, `Bool`, integers, floating-point numbers, `nil`/`NSNull`,
    /// arrays and string-keyed dictionaries of those, or any `Encodable` value.
    /// - Throws: ``HTTPProcessorError`` naming the first value that has no JSON form.
    public init(converting value: Any) throws {
        switch value {
        case let json as JSON: self = json
        case let string as String: self = .string(string)
        case let string as Substring: self = .string(String(string))
        case let bool as Bool: self = .bool(bool)
        case let int as Int: self = .int(int)
        case let double as Double: self = .double(double)
        case let float as Float: self = .double(Double(float))
        case let number as any BinaryInteger:
            guard let int = Int(exactly: number) else { self = .double(Double(number)); return }
            self = .int(int)
        case is NSNull: self = .null
        case let array as [Any]: self = .array(try array.map { try JSON(converting: $0) })
        case let dictionary as [String: Any]: self = .object(try dictionary.mapValues { try JSON(converting: $0) })
        case let encodable as any Encodable:
            let data = try JSONEncoder().encode(encodable)
            self = try JSON(data: data)
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let child = mirror.children.first else { self = .null; return }
                self = try JSON(converting: child.value)
                return
            }
            throw HTTPProcessorError(processor: "JSON", reason: "\(type(of: value)) has no JSON form")
        }
    }

    /// The JSON text of this value, keys sorted so the output is stable.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The member named `key` of an object or, when there is no such member and `key` has dots, the
    /// value at that key path (see ``value(atKeyPath:)``): `json["store.address.zip"]`,
    /// `json["0.name"]` on an array.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self, let member = object[key] { return member }
        return key.contains(".") ? value(atKeyPath: key) : nil
    }

    /// The element at `index` of an array.
    public subscript(index: Int) -> JSON? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// The value at a dotted path of object keys and array indices, such as `"stores.0.name"`.
    public func value(atKeyPath keyPath: String) -> JSON? {
        var current: JSON? = self
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let value = current else { return nil }
            switch value {
            case .array(let array):
                guard let index = Int(component), array.indices.contains(index) else { return nil }
                current = array[index]
            case .object(let object):
                current = object[String(component)]
            default:
                return nil
            }
        }
        return current
    }

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let v) = self { return v } else { return nil } }
    /// The boolean, if this is `true` or `false`.
    public var boolValue: Bool? { if case .bool(let v) = self { return v } else { return nil } }
    /// The integer, if this is a number without a fraction.
    public var intValue: Int? {
        switch self {
        case .int(let v): return v
        case .double(let v): return Int(exactly: v)
        default: return nil
        }
    }
    /// The number, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }
    /// The elements, if this is an array.
    public var arrayValue: [JSON]? { if case .array(let v) = self { return v } else { return nil } }
    /// The members, if this is an object.
    public var objectValue: [String: JSON]? { if case .object(let v) = self { return v } else { return nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }
}

extension JSON: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .double(let v): try container.encode(v)
        case .string(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`
    public init(nilLiteral: ()) { self = .null }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// An object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Reading JSON text

/// A strict RFC 8259 reader of UTF-8 JSON text over raw bytes, giving the values `JSONDecoder`
/// gave ``JSON`` before: the first of repeated keys wins; a number without a fraction or exponent
/// that fits is `.int`; any other number whose value is an integer that fits is `.int` too (`1.0`,
/// `1e2`), every other one `.double`; a number too large for `Double` is an error.
struct JSONReader {
    /// Why the bytes are not JSON, and where.
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deep arrays and objects may nest: deeper documents are refused rather than exhausting
    /// the stack (`JSONDecoder`'s limit too).
    static let maximumDepth = 512

    private let bytes: UnsafePointer<UInt8>?
    private let count: Int
    private var index = 0
    /// Where strings with escapes are put together, reused from one string to the next.
    private var scratch: [UInt8] = []
    /// The members read so far of the objects being read, innermost last: an object's dictionary
    /// is made once its size is known, rather than grown (and rehashed) member by member.
    private var members: [(key: String, value: JSON)] = []

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes = buffer.baseAddress
        count = buffer.count
    }

    /// Whether `bytes` are UTF-16 or UTF-32 by `JSONDecoder`'s rules: a byte order mark of those
    /// encodings, or a zero byte among the first ones (which UTF-8 JSON never has).
    static func needsTranscoding(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2 else { return false }
        if (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) { return true }
        return bytes.prefix(4).contains(0)
    }

    /// The one value of the text, with nothing but whitespace around it.
    mutating func document() throws(Failure) -> JSON {
        // A UTF-8 byte order mark is skipped, in texts of 4 bytes or more as `JSONDecoder` did.
        if count >= 4, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF { index = 3 }
        skipWhitespace()
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == count else { throw fail("unexpected data after the value") }
        return value
    }

    // MARK: Values

    @inline(__always)
    private func byte(_ offset: Int) -> UInt8 {
        // `bytes` is `nil` only for empty data, where no offset is read.
        bytes.unsafelyUnwrapped[offset]
    }

    private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < count {
            switch byte(index) {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSON {
        guard index < count else { throw fail("unexpected end of the text") }
        switch byte(index) {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard count - index >= length else { throw fail("unexpected end of the text") }
        let word = word.utf8Start
        for offset in 0..<length where byte(index + offset) != word[offset] {
            throw fail("unexpected character")
        }
        index += length
    }

    private mutating func array(depth: Int) throws(Failure) -> JSON {
        guard depth <= Self.maximumDepth else { throw fail("too deeply nested") }
        index += 1
        skipWhitespace()
        var elements: [JSON] = []
        if index < count, byte(index) == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth))
            if try closes(UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSON {
        guard depth <= Self.maximumDepth else { throw fail("too deeply nested") }
        index += 1
        skipWhitespace()
        if index < count, byte(index) == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        let first = members.count
        // Room for the members of a typical object and the ones around it, made once per document.
        if members.capacity == 0 { members.reserveCapacity(16) }
        while true {
            guard index < count, byte(index) == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard index < count, byte(index) == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let member = try value(depth: depth)
            members.append((key, member))
            if try closes(UInt8(ascii: "}")) { break }
        }
        var object = [String: JSON](minimumCapacity: members.count - first)
        // Last to first, so that the first of repeated keys wins; each member is moved out of the
        // stack rather than copied, then removed.
        while members.count > first {
            let (key, value) = members.removeLast()
            object[key] = value
        }
        return .object(object)
    }

    /// Reads what follows an element of an array or object: `true` past its closing `bracket`,
    /// `false` past a comma (and the whitespace after it).
    private mutating func closes(_ bracket: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < count else { throw fail("unexpected end of the text") }
        switch byte(index) {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return false
        case bracket:
            index += 1
            return true
        default:
            throw fail("expected ',' or '\(Character(Unicode.Scalar(bracket)))'")
        }
    }

    // MARK: Strings

    /// A string, the index on its opening quote.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        var high: UInt8 = 0
        while index < count {
            let b = byte(index)
            if b == UInt8(ascii: "\"") {
                let text = try makeString(UnsafeBufferPointer(start: bytes.unsafelyUnwrapped + start, count: index - start), ascii: high < 0x80)
                index += 1
                return text
            }
            if b == UInt8(ascii: "\\") { return try escapedString(from: start, high: high) }
            if b < 0x20 { throw fail("unescaped control character in a string") }
            high |= b
            index += 1
        }
        throw fail("unterminated string")
    }

    private func makeString(_ buffer: UnsafeBufferPointer<UInt8>, ascii: Bool) throws(Failure) -> String {
        if ascii { return String(decoding: buffer, as: UTF8.self) }
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw fail("invalid UTF-8 in a string")
        }
        return text
    }

    /// The rest of a string from its first escape on; `start` is its first byte, `high` the bits
    /// set in the bytes before the escape.
    private mutating func escapedString(from start: Int, high: UInt8) throws(Failure) -> String {
        scratch.removeAll(keepingCapacity: true)
        var high = high
        var run = start
        while index < count {
            let b = byte(index)
            if b == UInt8(ascii: "\"") {
                flush(from: run)
                index += 1
                // Escapes add only complete UTF-8 sequences: validating the whole validates the raw runs.
                return try scratch.withUnsafeBufferPointer { buffer throws(Failure) in try makeString(buffer, ascii: high < 0x80) }
            }
            if b == UInt8(ascii: "\\") {
                flush(from: run)
                try escape()
                run = index
                continue
            }
            if b < 0x20 { throw fail("unescaped control character in a string") }
            high |= b
            index += 1
        }
        throw fail("unterminated string")
    }

    /// Copies the raw bytes from `run` to the index into the scratch buffer.
    private mutating func flush(from run: Int) {
        guard index > run else { return }
        scratch.append(contentsOf: UnsafeBufferPointer(start: bytes.unsafelyUnwrapped + run, count: index - run))
    }

    /// One escape sequence, the index on its backslash.
    private mutating func escape() throws(Failure) {
        guard index + 1 < count else { throw fail("unterminated string") }
        let b = byte(index + 1)
        let simple: UInt8
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = b
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            index += 2
            var scalar = UInt32(try hexQuad())
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < count, byte(index) == UInt8(ascii: "\\"), byte(index + 1) == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate escape")
                }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("unpaired surrogate escape")
            }
            appendUTF8(scalar)
            return
        default:
            throw fail("invalid escape sequence")
        }
        scratch.append(simple)
        index += 2
    }

    /// Four hex digits.
    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard count - index >= 4 else { throw fail("unterminated string") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let b = byte(index)
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    // MARK: Numbers

    /// Powers of ten that `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private func isDigit(_ offset: Int) -> Bool {
        offset < count && byte(offset) &- UInt8(ascii: "0") < 10
    }

    /// A number, the index on its first character.
    private mutating func number() throws(Failure) -> JSON {
        let start = index
        let negative = byte(index) == UInt8(ascii: "-")
        if negative { index += 1 }
        guard isDigit(index) else { throw fail("expected a digit") }
        // The digits, as far as they fit: exact below 2^64.
        var mantissa: UInt64 = 0
        var overflowed = false
        if byte(index) == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw fail("leading zero in a number") }
        } else {
            while isDigit(index) {
                accumulate(&mantissa, &overflowed)
            }
        }
        var fractionDigits = 0
        var isInteger = true
        if index < count, byte(index) == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard isDigit(index) else { throw fail("expected a digit after '.'") }
            while isDigit(index) {
                accumulate(&mantissa, &overflowed)
                fractionDigits += 1
            }
        }
        var exponent = 0
        if index < count, byte(index) | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var negativeExponent = false
            if index < count, byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") {
                negativeExponent = byte(index) == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(index) else { throw fail("expected a digit in the exponent") }
            while isDigit(index) {
                // Far beyond any `Double`; capped so the sum can't overflow.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(byte(index) &- UInt8(ascii: "0")) }
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }

        if isInteger, !overflowed {
            if !negative, mantissa <= UInt64(Int.max) { return .int(Int(mantissa)) }
            if negative, mantissa <= UInt64(Int.max) + 1 { return .int(Int(truncatingIfNeeded: 0 &- mantissa)) }
        }

        let double: Double
        let power = exponent - fractionDigits
        if !overflowed, mantissa <= 1 << 53, power >= -22, power <= 22 {
            // Both exact, so the one rounding is the correctly rounded result.
            let magnitude = power < 0
                ? Double(mantissa) / Self.exactPowersOfTen[-power] : Double(mantissa) * Self.exactPowersOfTen[power]
            double = negative ? -magnitude : magnitude
        } else {
            let text = String(decoding: UnsafeBufferPointer(start: bytes.unsafelyUnwrapped + start, count: index - start), as: UTF8.self)
            guard let parsed = Double(text) else { throw Failure(reason: "unreadable number", offset: start) }
            double = parsed
        }
        guard double.isFinite else { throw Failure(reason: "number out of range", offset: start) }
        guard let integer = Int(exactly: double) else { return .double(double) }
        // Below 2^53 every integer is a `Double`; above it the text is read again exactly, as
        // `JSONDecoder` did through `Decimal`.
        if double.magnitude < 0x1p53 { return .int(integer) }
        return Self.exactInteger(UnsafeBufferPointer(start: bytes.unsafelyUnwrapped + start, count: index - start))
            .map(JSON.int) ?? .double(double)
    }

    @inline(__always)
    private mutating func accumulate(_ mantissa: inout UInt64, _ overflowed: inout Bool) {
        if !overflowed {
            let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte(index) &- UInt8(ascii: "0")))
            if o1 || o2 { overflowed = true } else { mantissa = sum }
        }
        index += 1
    }

    /// The integer part of the number `text` (valid JSON), computed exactly with the significant
    /// digits in a `UInt64` (trailing zeros dropped), as `JSONDecoder` did with `Decimal`; `nil`
    /// when they don't fit or the result doesn't fit in `Int`.
    static func exactInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var position = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { position += 1 }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        while position < text.count {
            let b = text[position]
            if b == UInt8(ascii: ".") {
                inFraction = true
            } else if b &- UInt8(ascii: "0") < 10 {
                if !(digits.isEmpty && b == UInt8(ascii: "0")) { digits.append(b &- UInt8(ascii: "0")) }
                if inFraction { fractionDigits += 1 }
            } else {
                break
            }
            position += 1
        }
        var exponent = 0
        if position < text.count {
            position += 1
            var negativeExponent = false
            if text[position] == UInt8(ascii: "+") || text[position] == UInt8(ascii: "-") {
                negativeExponent = text[position] == UInt8(ascii: "-")
                position += 1
            }
            while position < text.count {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(text[position] &- UInt8(ascii: "0")) }
                position += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        exponent -= fractionDigits
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        var value: UInt64 = 0
        for digit in digits {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { return nil }
            value = sum
        }
        if value == 0 { return 0 }
        if exponent >= 0 {
            for _ in 0..<exponent {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                value = times10
            }
        } else {
            for _ in 0..<(-exponent) {
                value /= 10
                if value == 0 { break }
            }
        }
        guard let magnitude = Int(exactly: value) else { return nil }
        return negative ? -magnitude : magnitude
    }
}
