/// A MIME type such as `text/html;charset=utf-8`, parsed and serialised as the WHATWG MIME
/// Sniffing Standard says.
///
/// The type and subtype are stored in ASCII lowercase, as are parameter names; parameter
/// values keep their case. Parsing is lenient where browsers are (whitespace, duplicate
/// parameters — the first wins —, quoted strings with backslash escapes, parameters without a
/// value are dropped) and strict where they are (the type and subtype must be HTTP tokens).
///
/// ```swift
/// let type = MediaType("Text/HTML; Charset=\"Shift_JIS\"")
/// type?.essence      // "text/html"
/// type?.charset      // "Shift_JIS"
/// type?.description  // "text/html;charset=Shift_JIS"
/// ```
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The type, in lowercase, for instance `text`.
    public let type: String
    /// The subtype, in lowercase, for instance `html`.
    public let subtype: String
    /// The parameters in the order they appeared, with unique lowercase names.
    public internal(set) var parameters: Parameters

    /// The type and subtype without parameters, for instance `text/html`.
    public var essence: String { "\(type)/\(subtype)" }

    /// The value of the `charset` parameter, if any (not validated as an encoding label).
    public var charset: String? { parameters["charset"] }

    /// Parses one MIME type.
    ///
    /// Follows the WHATWG "parse a MIME type" algorithm: HTTP whitespace around the value is
    /// ignored, invalid parameters are skipped, and the result is `nil` when the type or
    /// subtype is missing or not an HTTP token. A header value that holds several MIME types
    /// separated by commas is one invalid MIME type here; see ``init(contentTypeHeader:)``.
    ///
    /// - Parameters:
    ///   - headerValue: A MIME type, for instance the value of a Content-Type header.
    /// - Returns: `nil` when the value is not a valid MIME type.
    public init?(_ headerValue: String) {
        guard let parsed = MediaTypeParser.parse(headerValue) else { return nil }
        self.init(type: parsed.type, subtype: parsed.subtype, parameters: parsed.parameters)
    }

    /// Extracts the MIME type of a Content-Type header the way browsers do.
    ///
    /// Follows the Fetch Standard's "extract a MIME type": the header value (several header
    /// fields combined with `", "`) is split at commas outside quoted strings, each part is
    /// parsed, invalid parts and `*/*` are skipped, and the last valid type wins; a `charset`
    /// given for the same essence earlier is kept when the last one has none.
    ///
    /// - Parameters:
    ///   - contentTypeHeader: The combined value of the Content-Type header fields.
    /// - Returns: `nil` when no part is a valid MIME type.
    public init?(contentTypeHeader: String) {
        var result: MediaType?
        var essence: String?
        var charset: String?
        for value in MediaTypeParser.splitHeaderValues(contentTypeHeader) {
            guard var mediaType = MediaType(value), mediaType.essence != "*/*" else { continue }
            if mediaType.essence != essence {
                charset = mediaType.charset
                essence = mediaType.essence
            } else if mediaType.charset == nil, let charset {
                mediaType.parameters.append(name: "charset", value: charset)
            }
            result = mediaType
        }
        guard let result else { return nil }
        self = result
    }

    init(type: String, subtype: String, parameters: Parameters) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    /// The MIME type serialised as the WHATWG MIME Sniffing Standard does.
    ///
    /// `type/subtype` followed by `;name=value` for each parameter in order; a value is quoted
    /// (with `"` and `\` escaped) when it is empty or not an HTTP token. Parsing the result
    /// gives an equal `MediaType`.
    public var description: String {
        var result = essence
        for (name, value) in parameters {
            result += ";\(name)="
            if !value.isEmpty, value.unicodeScalars.allSatisfy(MediaTypeParser.isTokenScalar) {
                result += value
            } else {
                result += "\""
                for scalar in value.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { result += "\\" }
                    result.unicodeScalars.append(scalar)
                }
                result += "\""
            }
        }
        return result
    }

    /// The parameters of a MIME type: ordered name–value pairs with unique lowercase names and
    /// case-insensitive lookup by name.
    public struct Parameters: RandomAccessCollection, Sendable, Hashable {
        private struct Pair: Sendable, Hashable {
            var name: String
            var value: String
        }

        private var pairs: [Pair] = []

        /// Creates an empty parameter list.
        public init() {}

        /// The position of the first parameter.
        public var startIndex: Int { pairs.startIndex }
        /// The position after the last parameter.
        public var endIndex: Int { pairs.endIndex }

        /// The parameter at a position.
        ///
        /// Parameters keep the order in which they appeared in the parsed value.
        ///
        /// - Parameters:
        ///   - position: A valid index, from `startIndex` up to but not including `endIndex`.
        /// - Returns: Its lowercase name and its value.
        public subscript(position: Int) -> (name: String, value: String) {
            (pairs[position].name, pairs[position].value)
        }

        /// The value of the parameter with this name.
        ///
        /// Names are compared ASCII case-insensitively, so `["Charset"]` finds `charset`.
        ///
        /// - Parameters:
        ///   - name: A parameter name, in any case.
        /// - Returns: The value, or `nil` when there is no such parameter.
        public subscript(name: String) -> String? {
            let key = MediaTypeParser.asciiLowercase(name)
            return pairs.first { $0.name == key }?.value
        }

        /// Adds a parameter unless one with that name exists (the first one wins).
        mutating func append(name: String, value: String) {
            let key = MediaTypeParser.asciiLowercase(name)
            guard !pairs.contains(where: { $0.name == key }) else { return }
            pairs.append(Pair(name: key, value: value))
        }
    }
}
