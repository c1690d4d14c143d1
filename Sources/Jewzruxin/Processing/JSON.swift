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
    /// - Throws: `DecodingError` when `data` is not valid JSON.
    public init(data: Data) throws {
        self = try JSONDecoder().decode(JSON.self, from: data)
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
