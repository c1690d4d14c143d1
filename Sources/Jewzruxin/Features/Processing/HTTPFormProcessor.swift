import Foundation

/// Name–value pairs in order: the model of an `application/x-www-form-urlencoded` body.
///
/// Names may repeat and order is kept, as in an HTML form submission or a `URLSearchParams`. Write
/// one with a dictionary literal — `["q": "swift", "tag": "a", "tag": "b"]` keeps both `tag`s in that
/// order — and read it with `form["q"]` (the first value) or `form.values(for: "tag")`. Two forms are
/// equal when they hold the same pairs in the same order.
public struct FormData: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The pairs, in order.
    public var pairs: [(name: String, value: String)]

    /// Creates an empty form.
    public init() {
        pairs = []
    }

    /// Creates a form from pairs in order.
    ///
    /// - Parameters:
    ///   - pairs: The names and values; a name may appear more than once.
    public init(_ pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    /// Creates a form from a literal; repeated names are kept, in order.
    ///
    /// - Parameters:
    ///   - elements: The names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Parses an `application/x-www-form-urlencoded` body with the WHATWG URL Standard's parser.
    ///
    /// The bytes are taken as UTF-8. Parsing never fails: empty pieces between `&`s are skipped, a
    /// piece without `=` is a name with an empty value, `+` is a space, a `%` not followed by two hex
    /// digits stays as it is, and bytes that aren't UTF-8 become U+FFFD.
    ///
    /// - Parameters:
    ///   - data: The body.
    public init(parsing data: Data) {
        pairs = FormEncoding.parse(data)
    }

    /// Parses `application/x-www-form-urlencoded` text, such as a URL's query without the `?`.
    ///
    /// - Parameters:
    ///   - string: The encoded text, read from its UTF-8 bytes as a body is.
    public init(parsing string: String) {
        pairs = FormEncoding.parse(string)
    }

    /// The first value of `name`, or `nil` when the form has no pair with that name.
    ///
    /// - Parameters:
    ///   - name: The name, matched exactly (case-sensitively).
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order; empty when there is none.
    ///
    /// - Parameters:
    ///   - name: The name, matched exactly (case-sensitively).
    public func values(for name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Adds a pair after the others.
    ///
    /// - Parameters:
    ///   - name: The name; it may already be in the form.
    ///   - value: The value.
    public mutating func append(_ name: String, _ value: String) {
        pairs.append((name: name, value: value))
    }

    /// The number of pairs.
    public var count: Int { pairs.count }

    /// Whether the form has no pairs.
    public var isEmpty: Bool { pairs.isEmpty }

    /// The form serialized by the WHATWG application/x-www-form-urlencoded serializer.
    ///
    /// Pairs are written `name=value` in order and joined with `&`; ASCII letters, digits and `*-._`
    /// stay, a space becomes `+`, and every other character is percent-encoded as UTF-8.
    public var encoded: String {
        FormEncoding.serialize(pairs.map { ($0.name, $0.value) })
    }

    /// The serialized form, as ``encoded``.
    public var description: String { encoded }

    /// Iterates over the pairs in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        pairs.makeIterator()
    }

    /// Whether both forms hold the same pairs in the same order.
    public static func == (lhs: FormData, rhs: FormData) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the pairs in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pairs.count)
        for pair in pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }
}

/// Sends a form as an `application/x-www-form-urlencoded` body and reads such a body into a ``FormData``.
///
/// Request: ``HTTPRequest/object`` becomes the body, serialized as the WHATWG URL Standard says
/// (UTF-8, space as `+`), and `Content-Type` is set to `application/x-www-form-urlencoded` (with no
/// charset parameter, as browsers send it). The object may be:
/// - a ``FormData``, sent in its order;
/// - a dictionary such as `["q": "swift", "tag": ["a", "b"], "page": 2]`, sent with its keys sorted;
///   a value is turned into text as query parameters are (see `String.mergingQueryParameters(_:)`):
///   an array repeats the key, `nil` leaves the key out, `Bool` is `true`/`false`;
/// - ordered pairs: `[(String, String)]`, `[(String, any Sendable)]`, `KeyValuePairs<String, String>`
///   or `KeyValuePairs<String, any Sendable>`, sent in their order (values turned into text as above).
///
/// A `nil` object leaves the request alone. Response: the body is parsed into a ``FormData`` stored as
/// ``HTTPResponse/object``; parsing is lenient and never fails.
open class HTTPFormProcessor: HTTPProcessor, @unchecked Sendable {
    // @unchecked: like the base class, no stored state.

    /// Encodes the request object as the form body and sets `Content-Type`.
    ///
    /// - Parameters:
    ///   - request: The request; its ``HTTPRequest/object`` is read, its ``HTTPRequest/data`` and
    ///     `Content-Type` header are set.
    /// - Throws: ``HTTPProcessorError`` when the object is none of the supported kinds.
    open override func processRequest(_ request: inout HTTPRequest) throws {
        guard let object = request.object else { return }
        guard let form = Self.form(from: object) else {
            throw HTTPProcessorError(
                processor: "HTTPFormProcessor",
                reason: "request object is \(type(of: object)), not FormData, a [String: Any] dictionary or name–value pairs"
            )
        }
        request.data = Data(form.encoded.utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    }

    /// Parses the body into a ``FormData``.
    ///
    /// - Parameters:
    ///   - response: The response; its ``HTTPResponse/data`` is read as UTF-8 and its
    ///     ``HTTPResponse/object`` set.
    /// - Throws: Nothing: every body parses.
    open override func processResponse(_ response: inout HTTPResponse) throws {
        response.object = FormData(parsing: response.data)
    }

    /// The form a request object stands for, or `nil` for an unsupported object.
    static func form(from object: Any) -> FormData? {
        switch object {
        case let form as FormData:
            return form
        case let dictionary as [String: Any]:
            return FormData(URLEncoding.pairs(dictionary).map { (name: $0.0, value: $0.1) })
        case let pairs as KeyValuePairs<String, String>:
            return FormData(pairs.map { (name: $0.key, value: $0.value) })
        case let pairs as KeyValuePairs<String, any Sendable>:
            return flattened(pairs.map { ($0.key, $0.value) })
        case let pairs as [(String, String)]:
            return FormData(pairs.map { (name: $0.0, value: $0.1) })
        case let pairs as [(String, any Sendable)]:
            return flattened(pairs)
        default:
            return nil
        }
    }

    /// Pairs whose values are turned into text as query parameters are, keeping their order.
    private static func flattened(_ pairs: [(String, any Sendable)]) -> FormData {
        var form = FormData()
        for (name, value) in pairs {
            for text in URLEncoding.flatten(value) { form.append(name, text) }
        }
        return form
    }
}
