extension URITemplate {
    /// A variable's value: a string, a list or an associative array (RFC 6570 §2.3).
    ///
    /// ```swift
    /// let query: URITemplate.Value = ["q": "swift", "sort": "stars"]   // pairs, in this order
    /// let labels: URITemplate.Value = ["bug", "ui"]                     // a list
    /// ```
    public enum Value: Sendable, Hashable {
        /// A single string.
        case string(String)
        /// A list of strings; an empty list is undefined.
        case list([String])
        /// An associative array whose order is kept; an empty one is undefined.
        case pairs([Pair])

        /// A name and value of an associative array.
        public struct Pair: Sendable, Hashable {
            /// The name.
            public var key: String
            /// The value.
            public var value: String

            /// Creates a pair.
            ///
            /// - Parameters:
            ///   - key: The name.
            ///   - value: The value.
            public init(_ key: String, _ value: String) {
                self.key = key
                self.value = value
            }
        }

        /// Whether RFC 6570 treats the value as undefined (an empty list or associative array).
        var isUndefined: Bool {
            switch self {
            case .string: false
            case .list(let items): items.isEmpty
            case .pairs(let pairs): pairs.isEmpty
            }
        }
    }
}

extension URITemplate.Value: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// Creates a ``string(_:)`` value.
    ///
    /// - Parameter value: The string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }

    /// Creates a ``list(_:)`` value.
    ///
    /// - Parameter elements: The items.
    public init(arrayLiteral elements: String...) {
        self = .list(elements)
    }

    /// Creates a ``pairs(_:)`` value in the order written.
    ///
    /// - Parameter elements: The names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        self = .pairs(elements.map { Pair($0.0, $0.1) })
    }
}

/// Ordered associative arrays other than `[(String, V)]`: `KeyValuePairs`.
protocol URITemplatePairsConvertible {
    var uriTemplatePairs: [(String, Any)] { get }
}

extension KeyValuePairs: URITemplatePairsConvertible where Key == String {
    var uriTemplatePairs: [(String, Any)] { map { ($0.key, $0.value as Any) } }
}

extension URITemplate.Value {
    /// The result of converting a Swift value.
    enum Conversion {
        case value(URITemplate.Value)
        case undefined
        case unsupported(String)
    }

    /// Converts a Swift value: strings, `Substring`, `Character`, integers, floating-point numbers,
    /// `Bool`, `Value`, arrays of those, `[(String, V)]`, `KeyValuePairs`, `[String: V]` (keys sorted)
    /// and `nil`; other `LosslessStringConvertible` values use their `description`.
    static func converting(_ value: Any) -> Conversion {
        if let string = value as? String { return .value(.string(string)) }
        if let converted = value as? URITemplate.Value { return converted.isUndefined ? .undefined : .value(converted) }
        if let strings = value as? [String] { return strings.isEmpty ? .undefined : .value(.list(strings)) }
        if let text = scalarText(value) { return .value(.string(text)) }
        if let dictionary = value as? [String: Any] {
            return pairs(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, of: value)
        }
        if let ordered = value as? any URITemplatePairsConvertible { return pairs(ordered.uriTemplatePairs, of: value) }
        if let array = value as? [Any] {
            if let first = array.first, first is (String, Any) {
                var elements: [(String, Any)] = []
                for element in array {
                    guard let pair = element as? (String, Any) else { return .unsupported(typeName(value)) }
                    elements.append(pair)
                }
                return pairs(elements, of: value)
            }
            var items: [String] = []
            for element in array {
                if isNil(element) { continue }
                guard let text = scalarText(element) else { return .unsupported(typeName(value)) }
                items.append(text)
            }
            return items.isEmpty ? .undefined : .value(.list(items))
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first else { return .undefined }
            return converting(wrapped.value)
        }
        return .unsupported(typeName(value))
    }

    /// Pairs whose value is `nil` are left out.
    private static func pairs(_ elements: [(String, Any)], of value: Any) -> Conversion {
        var pairs: [Pair] = []
        pairs.reserveCapacity(elements.count)
        for (key, element) in elements {
            if isNil(element) { continue }
            guard let text = scalarText(element) else { return .unsupported(typeName(value)) }
            pairs.append(Pair(key, text))
        }
        return pairs.isEmpty ? .undefined : .value(.pairs(pairs))
    }

    /// The text of a single value, or nil if it is not one.
    private static func scalarText(_ value: Any) -> String? {
        switch value {
        case let string as String: return string
        case let value as URITemplate.Value:
            if case .string(let string) = value { return string }
            return nil
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return String(int)
        case let double as Double: return double.description
        case let text as any LosslessStringConvertible: return text.description
        default: return nil
        }
    }

    private static func isNil(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    private static func typeName(_ value: Any) -> String {
        String(describing: type(of: value))
    }
}
