/// Parses URI template text (RFC 6570 §2) into literals and expressions, once.
struct URITemplateParser {
    /// How an expression's operator expands its variables (RFC 6570 Appendix A).
    struct Operator: Sendable, Hashable {
        /// The byte written before the first defined variable, or 0 for none.
        var first: UInt8
        /// The byte written between defined variables (and between exploded members).
        var separator: UInt8
        /// Whether values are written as `name=value`.
        var named: Bool
        /// Whether an empty named value is written as `name=` (`?`, `&`) rather than `name` (`;`).
        var equalsIfEmpty: Bool
        /// Whether reserved characters and pct-encoded triplets pass unencoded (`+`, `#`).
        var allowReserved: Bool

        static let simple = Operator(first: 0, separator: 0x2C, named: false, equalsIfEmpty: false, allowReserved: false)

        /// The operator for the expression's first character, if it is one.
        static func from(_ character: Character) -> Operator? {
            switch character {
            case "+": Operator(first: 0, separator: 0x2C, named: false, equalsIfEmpty: false, allowReserved: true)
            case "#": Operator(first: 0x23, separator: 0x2C, named: false, equalsIfEmpty: false, allowReserved: true)
            case ".": Operator(first: 0x2E, separator: 0x2E, named: false, equalsIfEmpty: false, allowReserved: false)
            case "/": Operator(first: 0x2F, separator: 0x2F, named: false, equalsIfEmpty: false, allowReserved: false)
            case ";": Operator(first: 0x3B, separator: 0x3B, named: true, equalsIfEmpty: false, allowReserved: false)
            case "?": Operator(first: 0x3F, separator: 0x26, named: true, equalsIfEmpty: true, allowReserved: false)
            case "&": Operator(first: 0x26, separator: 0x26, named: true, equalsIfEmpty: true, allowReserved: false)
            default: nil
            }
        }
    }

    /// One variable of an expression: `name`, `name:3` or `name*`.
    struct Variable: Sendable, Hashable {
        var name: String
        /// The name's bytes, written as they are in named expansions.
        var nameBytes: [UInt8]
        /// The prefix length, or 0 for none.
        var prefix: Int
        var explode: Bool
        /// The name's offset in the template, for errors found while expanding.
        var position: Int
    }

    struct Expression: Sendable, Hashable {
        var op: Operator
        var variables: [Variable]
    }

    enum Part: Sendable, Hashable {
        /// Bytes copied to the result as they are (already percent-encoded where needed).
        case literal([UInt8])
        case expression(Expression)
    }

    private let template: String
    private let characters: [Character]

    init(_ template: String) {
        self.template = template
        self.characters = Array(template)
    }

    private func failure(_ problem: URITemplateError.Problem, _ position: Int) -> URITemplateError {
        URITemplateError(problem, at: position, in: template)
    }

    /// The single ASCII byte of `character`, if it is one.
    private static func ascii(_ character: Character) -> UInt8? {
        let utf8 = character.utf8
        return utf8.count == 1 ? utf8.first : nil
    }

    private func isHex(at index: Int) -> Bool {
        index < characters.count && Self.ascii(characters[index]).map(URITemplateEncoding.isHexDigit) == true
    }

    /// The template's parts, adjacent literals merged.
    func parse() throws(URITemplateError) -> [Part] {
        var parts: [Part] = []
        var literal: [UInt8] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "{":
                var close = index + 1
                while close < characters.count && characters[close] != "}" {
                    if characters[close] == "{" { throw failure(.unclosedExpression, index) }
                    close += 1
                }
                guard close < characters.count else { throw failure(.unclosedExpression, index) }
                if !literal.isEmpty {
                    parts.append(.literal(literal))
                    literal = []
                }
                parts.append(.expression(try parseExpression(from: index + 1, to: close)))
                index = close + 1
            case "}":
                throw failure(.unexpectedClosingBrace, index)
            case "%":
                guard isHex(at: index + 1), isHex(at: index + 2) else { throw failure(.malformedPercentEncoding, index) }
                literal.append(contentsOf: "\(character)\(characters[index + 1])\(characters[index + 2])".utf8)
                index += 3
            default:
                try appendLiteral(character, at: index, to: &literal)
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// Copies an unreserved or reserved character, percent-encodes an allowed non-ASCII one (RFC 6570 §3.1).
    ///
    /// `'` is accepted although the RFC's `literals` rule leaves it out: it is a sub-delim, and the
    /// official test suite expects `'{var}'` to expand.
    private func appendLiteral(_ character: Character, at index: Int, to literal: inout [UInt8]) throws(URITemplateError) {
        for scalar in character.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(truncatingIfNeeded: scalar.value)
                guard URITemplateEncoding.isUnreserved(byte) || URITemplateEncoding.isReserved(byte) else {
                    throw failure(.invalidLiteralCharacter(character), index)
                }
                literal.append(byte)
            } else {
                guard URITemplateEncoding.isAllowedNonASCII(scalar) else {
                    throw failure(.invalidLiteralCharacter(character), index)
                }
                for byte in String(scalar).utf8 { URITemplateEncoding.appendTriplet(byte, to: &literal) }
            }
        }
    }

    private func isVariableCharacter(_ character: Character) -> Bool {
        guard let byte = Self.ascii(character) else { return false }
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x5F: return true
        default: return false
        }
    }

    /// Parses the text between `{` (at `start - 1`) and `}` (at `end`).
    private func parseExpression(from start: Int, to end: Int) throws(URITemplateError) -> Expression {
        guard start < end else { throw failure(.emptyExpression, start - 1) }
        var index = start
        var op = Operator.simple
        let first = characters[index]
        if let found = Operator.from(first) {
            op = found
            index += 1
            guard index < end else { throw failure(.emptyExpression, start - 1) }
        } else if "=,!@|".contains(first) {
            throw failure(.reservedOperator(first), index)
        } else if first != "%", !isVariableCharacter(first), let byte = Self.ascii(first), byte > 0x20, byte < 0x7F {
            throw failure(.invalidOperator(first), index)
        }
        var variables: [Variable] = []
        while true {
            variables.append(try parseVariable(at: &index, end: end))
            if index == end { break }
            guard characters[index] == "," else { throw failure(.invalidVariableName, index) }
            index += 1
            guard index < end else { throw failure(.invalidVariableName, index) }
        }
        return Expression(op: op, variables: variables)
    }

    /// Parses `varname [ ":" max-length / "*" ]`, leaving `index` after it.
    private func parseVariable(at index: inout Int, end: Int) throws(URITemplateError) -> Variable {
        let nameStart = index
        while true {
            guard index < end else { throw failure(.invalidVariableName, index) }
            let character = characters[index]
            if character == "%" {
                guard isHex(at: index + 1), isHex(at: index + 2) else { throw failure(.malformedPercentEncoding, index) }
                index += 3
            } else if isVariableCharacter(character) {
                index += 1
            } else {
                throw failure(.invalidVariableName, index)
            }
            guard index < end else { break }
            if characters[index] == "." {
                index += 1
                continue
            }
            if characters[index] == "%" || isVariableCharacter(characters[index]) { continue }
            break
        }
        let name = String(characters[nameStart..<index])
        var variable = Variable(name: name, nameBytes: Array(name.utf8), prefix: 0, explode: false, position: nameStart)
        guard index < end else { return variable }
        if characters[index] == "*" {
            variable.explode = true
            index += 1
        } else if characters[index] == ":" {
            index += 1
            let digitsStart = index
            var length = 0
            while index < end, let byte = Self.ascii(characters[index]), (0x30...0x39).contains(byte) {
                guard index - digitsStart < 4, !(index == digitsStart && byte == 0x30) else {
                    throw failure(.invalidPrefixLength, digitsStart)
                }
                length = length * 10 + Int(byte - 0x30)
                index += 1
            }
            guard length > 0, index == end || characters[index] == "," else {
                throw failure(.invalidPrefixLength, digitsStart)
            }
            variable.prefix = length
        }
        return variable
    }
}
