/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Fields keep the order and spelling in which they were received or added, and a
/// name may occur more than once (for example several `Set-Cookie` lines). Lookups
/// compare names case-insensitively, as HTTP requires.
///
/// ```swift
/// var headers: SandboxHeaders = ["Content-Type": "text/plain"]
/// headers.add("X-Tag", "a")
/// headers.add("x-tag", "b")
/// headers.values(for: "X-TAG")  // ["a", "b"]
/// ```
public struct SandboxHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header line: a name and its value, exactly as sent or received.
    public struct Field: Sendable, Hashable {
        /// The field name, in its original spelling.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// All fields, in order.
    public private(set) var fields: [Field]

    /// Creates a header list from ordered name/value pairs.
    public init(_ pairs: [(name: String, value: String)] = []) {
        fields = pairs.map { Field(name: $0.name, value: $0.value) }
    }

    /// Creates a header list from a literal; duplicate names are kept, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The fields as ordered `(name, value)` pairs.
    public var pairs: [(name: String, value: String)] {
        fields.map { ($0.name, $0.value) }
    }

    /// The number of fields (header lines).
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field named `name` (case-insensitive), or `nil`.
    ///
    /// Repeated fields are not joined; use ``values(for:)`` to see all of them.
    public subscript(name: String) -> String? {
        fields.first { Self.matches($0.name, name) }?.value
    }

    /// The values of every field named `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.matches($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.matches($0.name, name) }
    }

    /// Appends a field, keeping any existing fields with the same name.
    ///
    /// Use this for headers that may repeat, such as `Set-Cookie`; use ``set(_:_:)`` to
    /// replace instead.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with a single field holding `value`.
    ///
    /// The new field takes the position of the first field it replaces, or goes last.
    public mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { Self.matches($0.name, name) }) {
            fields[index] = Field(name: name, value: value)
            var position = fields.index(after: index)
            while position < fields.endIndex {
                if Self.matches(fields[position].name, name) {
                    fields.remove(at: position)
                } else {
                    position = fields.index(after: position)
                }
            }
        } else {
            add(name, value)
        }
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.matches($0.name, name) }
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Case-insensitive comparison of two header names (ASCII case folding).
    static func matches(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
    }
}
