/// The WHATWG MIME Sniffing "parse a MIME type" algorithm and the Fetch Standard's header
/// value splitting, over Unicode scalars.
enum MediaTypeParser {
    /// The parts of a parsed MIME type.
    struct Parsed {
        var type: String
        var subtype: String
        var parameters: MediaType.Parameters
    }

    /// Parses a MIME type (WHATWG MIME Sniffing Standard, "parse a MIME type").
    ///
    /// - Parameter input: The string.
    /// - Returns: The parts, or `nil` for failure.
    static func parse(_ input: String) -> Parsed? {
        let scalars = trimmed(Array(input.unicodeScalars), where: isHTTPWhitespace)
        var position = 0
        let type = collect(scalars, &position) { $0 != "/" }
        guard !type.isEmpty, type.allSatisfy(isTokenScalar), position < scalars.count else { return nil }
        position += 1
        let subtype = trimmedEnd(collect(scalars, &position) { $0 != ";" }, where: isHTTPWhitespace)
        guard !subtype.isEmpty, subtype.allSatisfy(isTokenScalar) else { return nil }

        var parameters = MediaType.Parameters()
        while position < scalars.count {
            position += 1  // the ";"
            _ = collect(scalars, &position, while: isHTTPWhitespace)
            let name = asciiLowercase(string(collect(scalars, &position) { $0 != ";" && $0 != "=" }))
            if position < scalars.count {
                if scalars[position] == ";" { continue }
                position += 1  // the "="
            }
            if position >= scalars.count { break }
            var value: [Unicode.Scalar]
            if scalars[position] == "\"" {
                value = collectQuotedString(scalars, &position, extractValue: true)
                _ = collect(scalars, &position) { $0 != ";" }
            } else {
                value = trimmedEnd(collect(scalars, &position) { $0 != ";" }, where: isHTTPWhitespace)
                if value.isEmpty { continue }
            }
            if !name.isEmpty, name.unicodeScalars.allSatisfy(isTokenScalar),
               value.allSatisfy(isQuotedStringTokenScalar) {
                parameters.append(name: name, value: string(value))
            }
        }
        return Parsed(type: asciiLowercase(string(type)), subtype: asciiLowercase(string(subtype)),
                      parameters: parameters)
    }

    /// Splits a combined header value at commas outside quoted strings (Fetch Standard,
    /// "get, decode, and split"), trimming tabs and spaces around each part.
    ///
    /// - Parameter value: The combined header value.
    /// - Returns: The parts; an empty value gives one empty part.
    static func splitHeaderValues(_ value: String) -> [String] {
        let scalars = Array(value.unicodeScalars)
        var position = 0
        var values: [String] = []
        var temporary: [Unicode.Scalar] = []
        while true {
            temporary += collect(scalars, &position) { $0 != "\"" && $0 != "," }
            if position < scalars.count, scalars[position] == "\"" {
                temporary += collectQuotedString(scalars, &position, extractValue: false)
                if position < scalars.count { continue }
            }
            values.append(string(trimmed(temporary) { $0 == "\t" || $0 == " " }))
            temporary.removeAll()
            if position >= scalars.count { return values }
            position += 1  // the ","
        }
    }

    /// Collects an HTTP quoted string starting at the `"` at `position` (Fetch Standard).
    ///
    /// - Returns: With `extractValue`, the unescaped contents; otherwise the raw text,
    ///   quotes included.
    static func collectQuotedString(
        _ scalars: [Unicode.Scalar], _ position: inout Int, extractValue: Bool
    ) -> [Unicode.Scalar] {
        let start = position
        var value: [Unicode.Scalar] = []
        position += 1  // the opening quote
        while true {
            value += collect(scalars, &position) { $0 != "\"" && $0 != "\\" }
            if position >= scalars.count { break }
            let quoteOrBackslash = scalars[position]
            position += 1
            if quoteOrBackslash == "\\" {
                if position >= scalars.count {
                    value.append("\\")
                    break
                }
                value.append(scalars[position])
                position += 1
            } else {
                break
            }
        }
        return extractValue ? value : Array(scalars[start..<position])
    }

    /// An HTTP token code point: ``!#$%&'*+-.^_`|~``, digits and ASCII letters.
    static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~",
             "0"..."9", "a"..."z", "A"..."Z":
            return true
        default:
            return false
        }
    }

    /// An HTTP quoted-string token code point: TAB, U+0020–U+007E, U+0080–U+00FF.
    static func isQuotedStringTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || (0x20...0x7E).contains(scalar.value) || (0x80...0xFF).contains(scalar.value)
    }

    /// HTTP whitespace: LF, CR, TAB, SPACE.
    static func isHTTPWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\t" || scalar == " "
    }

    /// The string with ASCII capitals made lowercase, other scalars unchanged.
    static func asciiLowercase(_ string: String) -> String {
        guard string.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return string }
        return String(String.UnicodeScalarView(string.unicodeScalars.map { scalar in
            (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value + 0x20)) : scalar
        }))
    }

    private static func collect(
        _ scalars: [Unicode.Scalar], _ position: inout Int, while condition: (Unicode.Scalar) -> Bool
    ) -> [Unicode.Scalar] {
        let start = position
        while position < scalars.count, condition(scalars[position]) { position += 1 }
        return Array(scalars[start..<position])
    }

    private static func trimmed(
        _ scalars: [Unicode.Scalar], where isTrimmed: (Unicode.Scalar) -> Bool
    ) -> [Unicode.Scalar] {
        var start = 0
        var end = scalars.count
        while start < end, isTrimmed(scalars[start]) { start += 1 }
        while end > start, isTrimmed(scalars[end - 1]) { end -= 1 }
        return Array(scalars[start..<end])
    }

    private static func trimmedEnd(
        _ scalars: [Unicode.Scalar], where isTrimmed: (Unicode.Scalar) -> Bool
    ) -> [Unicode.Scalar] {
        var end = scalars.count
        while end > 0, isTrimmed(scalars[end - 1]) { end -= 1 }
        return Array(scalars[..<end])
    }

    private static func string(_ scalars: [Unicode.Scalar]) -> String {
        String(String.UnicodeScalarView(scalars))
    }
}
