/// Splits an input line into commands and each command into words, as a shell would.
///
/// - Words are separated by spaces or tabs.
/// - `'single quotes'` keep everything inside as it is.
/// - `"double quotes"` keep everything but `\"` and `\\`, which stand for `"` and `\`.
/// - Outside quotes, a backslash makes the next character ordinary (`\;`, `\ `, `\#`).
/// - An unquoted `;` ends a command, so one line can hold several: `GET /hello/; text`.
/// - An unquoted `#` at the start of a word starts a comment that runs to the end of the line.
///
/// ```swift
/// try CommandLexer.commands(in: #"POST /echo/ 'name=Jane Doe'; json"#)
/// // [["POST", "/echo/", "name=Jane Doe"], ["json"]]
/// ```
enum CommandLexer {
    /// The commands of a line, each as its words; empty commands are left out.
    ///
    /// - Parameter line: One line of input.
    /// - Returns: The words of each command, in order.
    /// - Throws: ``PlaygroundError`` when a quote is not closed.
    static func commands(in line: String) throws(PlaygroundError) -> [[String]] {
        var scanner = Scanner()
        for character in line {
            if scanner.consume(character) == .comment { break }
        }
        return try scanner.finish()
    }

    /// The words of a line that holds one command; a `;` is then an error.
    ///
    /// - Parameter line: One command.
    /// - Returns: Its words.
    /// - Throws: ``PlaygroundError`` when a quote is not closed or the line holds several commands.
    static func words(in line: String) throws(PlaygroundError) -> [String] {
        let commands = try commands(in: line)
        guard commands.count <= 1 else { throw PlaygroundError("expected one command, found \(commands.count)") }
        return commands.first ?? []
    }

    /// A word quoted so that the lexer reads it back as it is: bare when it is safe, else in single
    /// quotes (a `'` inside is written `'\''`).
    ///
    /// - Parameter word: Any text.
    /// - Returns: Text that ``words(in:)`` turns back into `word`.
    static func quoted(_ word: String) -> String {
        let special: Set<Character> = [" ", "\t", "'", "\"", "\\", ";", "#"]
        if !word.isEmpty, !word.contains(where: { special.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The scanner's position in the text.
    private enum Mode {
        case plain
        case singleQuoted
        case doubleQuoted
        case escapedPlain
        case escapedDoubleQuoted
    }

    private enum Step {
        case more
        case comment
    }

    private struct Scanner {
        var mode = Mode.plain
        var word = ""
        /// Whether the word has started (an empty quoted word `''` is still a word).
        var inWord = false
        var words: [String] = []
        var commands: [[String]] = []

        mutating func consume(_ character: Character) -> Step {
            switch mode {
            case .singleQuoted:
                if character == "'" { mode = .plain } else { word.append(character) }
            case .doubleQuoted:
                switch character {
                case "\"": mode = .plain
                case "\\": mode = .escapedDoubleQuoted
                default: word.append(character)
                }
            case .escapedDoubleQuoted:
                if character != "\"" && character != "\\" { word.append("\\") }
                word.append(character)
                mode = .doubleQuoted
            case .escapedPlain:
                word.append(character)
                mode = .plain
            case .plain:
                return consumePlain(character)
            }
            return .more
        }

        private mutating func consumePlain(_ character: Character) -> Step {
            switch character {
            case " ", "\t", "\n", "\r":
                endWord()
            case ";":
                endWord()
                endCommand()
            case "#" where !inWord:
                return .comment
            case "'":
                inWord = true
                mode = .singleQuoted
            case "\"":
                inWord = true
                mode = .doubleQuoted
            case "\\":
                inWord = true
                mode = .escapedPlain
            default:
                inWord = true
                word.append(character)
            }
            return .more
        }

        private mutating func endWord() {
            guard inWord else { return }
            words.append(word)
            word = ""
            inWord = false
        }

        private mutating func endCommand() {
            if !words.isEmpty { commands.append(words) }
            words = []
        }

        mutating func finish() throws(PlaygroundError) -> [[String]] {
            switch mode {
            case .singleQuoted: throw PlaygroundError("unterminated ' quote")
            case .doubleQuoted, .escapedDoubleQuoted: throw PlaygroundError("unterminated \" quote")
            case .escapedPlain: word.append("\\")
            case .plain: break
            }
            mode = .plain
            endWord()
            endCommand()
            return commands
        }
    }
}
