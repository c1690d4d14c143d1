/// Why a URI template could not be parsed or expanded, and where.
///
/// `position` counts characters (`Character`s) from the start of the template; for problems found
/// while expanding it points at the variable's name.
///
/// ```swift
/// do { _ = try URITemplate("/a/{b") } catch { print(error) }
/// // unclosed expression at 3 in "/a/{b"
/// ```
public struct URITemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// A `{` without a matching `}` (the position is the `{`).
        case unclosedExpression
        /// A `}` outside an expression.
        case unexpectedClosingBrace
        /// `{}`, or an operator with no variable (`{+}`).
        case emptyExpression
        /// An expression starts with a character that is neither an operator nor a variable name.
        case invalidOperator(Character)
        /// An operator RFC 6570 reserves for future extensions: `=`, `,`, `!`, `@` or `|`.
        case reservedOperator(Character)
        /// A variable name is empty or holds a character other than `A–Z a–z 0–9 _ .` and `%XX`,
        /// or a variable is followed by something other than a modifier, `,` or `}`.
        case invalidVariableName
        /// A prefix modifier (`:n`) that is not a number from 1 to 9999 without leading zeros.
        case invalidPrefixLength
        /// A prefix modifier applied to a list or an associative array (found while expanding).
        case prefixOnCompositeValue
        /// A `%` not followed by two hexadecimal digits.
        case malformedPercentEncoding
        /// A character that may not appear in a literal (space, `"`, `<`, `>`, `\`, `^`, a backtick,
        /// `|`, control characters and Unicode non-characters).
        case invalidLiteralCharacter(Character)
        /// A variable's value has a type that cannot be expanded (found while expanding).
        case unsupportedValue(type: String)

        public var description: String {
            switch self {
            case .unclosedExpression: "unclosed expression"
            case .unexpectedClosingBrace: "unexpected closing brace"
            case .emptyExpression: "empty expression"
            case .invalidOperator(let character): "invalid operator \(Self.quoted(character))"
            case .reservedOperator(let character): "reserved operator \(Self.quoted(character))"
            case .invalidVariableName: "invalid variable name"
            case .invalidPrefixLength: "invalid prefix length"
            case .prefixOnCompositeValue: "prefix modifier on a list or associative array"
            case .malformedPercentEncoding: "malformed percent-encoding"
            case .invalidLiteralCharacter(let character): "invalid literal character \(Self.quoted(character))"
            case .unsupportedValue(let type): "unsupported value of type \(type)"
            }
        }

        private static func quoted(_ character: Character) -> String {
            "'" + character.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "'"
        }
    }

    /// What is wrong.
    public let problem: Problem
    /// The offset, in characters, of the problem in ``template``.
    public let position: Int
    /// The template text.
    public let template: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - problem: What is wrong.
    ///   - position: The offset, in characters, of the problem in `template`.
    ///   - template: The template text.
    public init(_ problem: Problem, at position: Int, in template: String) {
        self.problem = problem
        self.position = position
        self.template = template
    }

    /// For example `unclosed expression at 3 in "/a/{b"`.
    public var description: String {
        "\(problem) at \(position) in \"\(template)\""
    }
}
