import Foundation
import Jewzruxin

extension Request {
    /// Why an `Encodable` value can't be a request's parameters: it isn't an object, or it holds a
    /// shape a query or a form can't say (see ``WebService/request(_:_:parameters:encoder:options:)``).
    public struct ParameterEncodingError: Error, Sendable, CustomStringConvertible {
        /// Where in the value the problem is, as a query key would name it (`filter[tags]`), or
        /// empty for the value itself.
        public let path: String
        /// What is wrong there.
        public let reason: String

        public var description: String {
            path.isEmpty ? "parameters: \(reason)" : "parameter \(path): \(reason)"
        }
    }
}

/// Turns an `Encodable` value into the names and values of a query or a form.
///
/// The value is encoded with a `JSONEncoder` (so its keys, dates and other strategies apply), and
/// must be an object. Then:
/// - a string, number or boolean is one parameter (`true`/`false`; numbers as JSON writes them);
/// - `null` (a `nil` optional) is left out;
/// - an array of those repeats its key, in order (`tag=a&tag=b`), as a dictionary's array does;
/// - a nested object names its members in brackets, at any depth (`filter[city]=Pittsburgh`);
/// - an array that holds arrays or objects is refused with a ``Request/ParameterEncodingError``:
///   servers read such keys in too many ways to pick one.
enum EncodableParameters {
    static func dictionary(of value: some Encodable, encoder: JSONEncoder) throws -> [String: any Sendable] {
        let json = try JSON(data: encoder.encode(value))
        guard case .object(let members) = json else {
            throw Request.ParameterEncodingError(path: "", reason: "\(article(kind(of: json))) is not an object of named values")
        }
        var parameters: [String: any Sendable] = [:]
        for (key, member) in members { try add(member, at: key, to: &parameters) }
        return parameters
    }

    private static func add(_ json: JSON, at path: String, to parameters: inout [String: any Sendable]) throws {
        switch json {
        case .null:
            break
        case .object(let members):
            for (key, member) in members { try add(member, at: "\(path)[\(key)]", to: &parameters) }
        case .array(let items):
            parameters[path] = try items.compactMap { item -> String? in
                guard let text = try scalar(item, at: path) else { return nil }
                return text
            }
        default:
            parameters[path] = try scalar(json, at: path)
        }
    }

    /// The text of a scalar; `nil` for `null`.
    private static func scalar(_ json: JSON, at path: String) throws -> String? {
        switch json {
        case .null: return nil
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): return value
        case .array, .object:
            throw Request.ParameterEncodingError(path: path, reason: "an array of \(kind(of: json))s can't be a query or form parameter")
        }
    }

    private static func article(_ noun: String) -> String {
        ("aeiou".contains(noun.first ?? "x") ? "an " : "a ") + noun
    }

    private static func kind(of json: JSON) -> String {
        switch json {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
