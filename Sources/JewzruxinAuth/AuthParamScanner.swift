import JewzruxinPrimitives

/// A forgiving scanner for the challenge / credentials grammar of RFC 7235:
///
/// ```
/// challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
/// auth-param  = token BWS "=" BWS ( token / quoted-string )
/// token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
/// ```
///
/// Works on UTF-8 bytes; every structural character is ASCII, so slicing between them
/// never splits a multi-byte character. Every loop advances by at least one byte, so
/// any input terminates.
struct AuthParamScanner {
    private let bytes: [UInt8]
    private var index = 0

    /// Creates a scanner over the UTF-8 bytes of `text`.
    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    // MARK: Grammar

    /// All challenges in the input.
    mutating func challenges() -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        while true {
            skip(whileIn: Self.isWhitespaceOrComma)
            guard index < bytes.count else { break }
            guard let scheme = token(), atEnd || Self.isWhitespaceOrComma(bytes[index]) else {
                skipElement()
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            skip(whileIn: Self.isWhitespace)
            if let value = token68() {
                challenge.token68 = value
            }
            let complete = parameters(into: &challenge)
            result.append(challenge)
            guard complete else { break }
        }
        return result
    }

    /// Reads the auth-params of the current challenge, stopping where the next
    /// challenge starts. Returns `false` when an unterminated quoted string ended the
    /// input.
    private mutating func parameters(into challenge: inout AuthenticationChallenge) -> Bool {
        var expectingElement = challenge.token68 == nil
        while index < bytes.count {
            if expectingElement, isParameterStart() {
                switch parameter() {
                case let .parameter(parameter) where challenge.token68 == nil:
                    challenge.parameters.append(parameter)
                case .parameter, .malformed:
                    break  // no params after a token68; `name=` without a value
                case .unterminated:
                    return false
                }
                expectingElement = false
                continue
            }
            skip(whileIn: Self.isWhitespace)
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ",") {
                skip(whileIn: Self.isWhitespaceOrComma)
                expectingElement = true
                // After a comma, anything but `name =` starts the next challenge.
                if !isParameterStart() { break }
            } else if expectingElement {
                break
            } else {
                skipElement()  // junk after a value, such as `realm="a"b`
            }
        }
        return true
    }

    /// What reading one auth-param gave.
    private enum ParameterOutcome {
        case parameter(AuthenticationChallenge.Parameter)
        /// `name=` with no value: skipped.
        case malformed
        /// A quoted string without its closing quote: the input is exhausted.
        case unterminated
    }

    /// Reads `name BWS = BWS value`, where value is a quoted-string or, leniently,
    /// everything up to the next comma (trimmed), so unquoted values that are not
    /// strict tokens (`nonce=ab/c+d==`) still parse.
    private mutating func parameter() -> ParameterOutcome {
        guard let name = token() else { return .malformed }
        skip(whileIn: Self.isWhitespace)
        index += 1  // "=", checked by isParameterStart()
        skip(whileIn: Self.isWhitespace)
        guard index < bytes.count else { return .malformed }
        if bytes[index] == UInt8(ascii: "\"") {
            guard let value = quotedString() else { return .unterminated }
            return .parameter(.init(name: name, value: value))
        }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
        var end = index
        while end > start, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        guard end > start else { return .malformed }
        return .parameter(.init(name: name, value: String(decoding: bytes[start..<end], as: UTF8.self)))
    }

    /// Whether the input at the current position is `token BWS "="` (without moving).
    private func isParameterStart() -> Bool {
        var probe = index
        while probe < bytes.count, HTTPHeaderSyntax.isTokenByte(bytes[probe]) { probe += 1 }
        guard probe > index else { return false }
        while probe < bytes.count, Self.isWhitespace(bytes[probe]) { probe += 1 }
        return probe < bytes.count && bytes[probe] == UInt8(ascii: "=")
    }

    /// Reads a token68 if one stands alone here (followed by the end or a comma).
    private mutating func token68() -> String? {
        var probe = index
        while probe < bytes.count, Self.isToken68Byte(bytes[probe]) { probe += 1 }
        guard probe > index else { return nil }
        while probe < bytes.count, bytes[probe] == UInt8(ascii: "=") { probe += 1 }
        let end = probe
        while probe < bytes.count, Self.isWhitespace(bytes[probe]) { probe += 1 }
        guard probe == bytes.count || bytes[probe] == UInt8(ascii: ",") else { return nil }
        defer { index = probe }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    /// Reads a token (RFC 9110 tchar run), or returns `nil` without moving.
    private mutating func token() -> String? {
        let start = index
        while index < bytes.count, HTTPHeaderSyntax.isTokenByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Reads a quoted-string starting at `"`, resolving `\` escapes; `nil` (at the end
    /// of the input) when the closing quote is missing.
    private mutating func quotedString() -> String? {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                value.append(bytes[index])
                index += 1
            default:
                value.append(byte)
            }
        }
        return nil
    }

    /// Skips at least one byte and then up to the next comma outside a quoted string.
    private mutating func skipElement() {
        var quoted = false
        if index < bytes.count {
            quoted = bytes[index] == UInt8(ascii: "\"")
            index += 1
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == UInt8(ascii: ","), !quoted {
                return
            }
            index += 1
        }
        index = bytes.count
    }

    // MARK: Characters

    /// Whether the whole input has been consumed.
    private var atEnd: Bool { index >= bytes.count }

    /// Advances past bytes matching `predicate`.
    private mutating func skip(whileIn predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }

    /// SP or HTAB (RFC 9110 OWS).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// OWS or a list comma.
    static func isWhitespaceOrComma(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",")
    }

    /// The characters of a token68 before its `=` padding.
    static func isToken68Byte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || token68Symbols.contains(byte)
    }

    private static let token68Symbols = Set("-._~+/".utf8)

    /// ASCII letters and digits.
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }
}
