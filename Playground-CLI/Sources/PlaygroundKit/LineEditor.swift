/// The line being typed at the prompt: its text, the cursor and the walk through history.
///
/// Pure state, driven by ``Key`` presses, so every editing rule can be tested without a terminal;
/// ``render(prompt:promptWidth:columns:)`` gives the bytes that redraw the line.
///
/// ```swift
/// var editor = LineEditor(history: ["GET /hello/"])
/// editor.handle(.up)           // the line is now "GET /hello/"
/// editor.handle(.deleteWordBefore)
/// editor.text                  // "GET "
/// ```
struct LineEditor: Sendable {
    /// What a key press leads to.
    enum Outcome: Sendable, Hashable {
        /// Keep editing: redraw the line.
        case editing
        /// The line was submitted (Enter).
        case submit(String)
        /// Ctrl-D on an empty line: the user wants to leave.
        case endOfInput
        /// Ctrl-C on an empty line (on a line with text, Ctrl-C clears it and editing goes on).
        case interrupted
        /// Ctrl-L: clear the screen, then redraw the line.
        case clearScreen
    }

    /// The characters of the line.
    private(set) var characters: [Character] = []
    /// Where the cursor is: the index of the character it is before.
    private(set) var cursor = 0

    private let history: [String]
    /// The history line shown, or `history.count` for the line being typed.
    private var historyIndex: Int
    /// The line being typed, kept while walking through history.
    private var draft: [Character] = []

    /// Creates an empty line.
    ///
    /// - Parameter history: Earlier lines, oldest first, for the up and down keys.
    init(history: [String] = []) {
        self.history = history
        self.historyIndex = history.count
    }

    /// The text of the line.
    var text: String { String(characters) }

    /// Applies a key press.
    ///
    /// - Parameter key: The key.
    /// - Returns: What to do next.
    @discardableResult
    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .character(let character):
            characters.insert(character, at: cursor)
            cursor += 1
        case .enter:
            return .submit(text)
        case .backspace:
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        case .wordLeft: cursor = wordStart(before: cursor)
        case .wordRight: cursor = wordEnd(after: cursor)
        case .up: showHistory(historyIndex - 1)
        case .down: showHistory(historyIndex + 1)
        case .deleteToStart:
            characters.removeSubrange(0..<cursor)
            cursor = 0
        case .deleteToEnd:
            characters.removeSubrange(cursor...)
        case .deleteWordBefore:
            let start = wordStart(before: cursor)
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .interrupt:
            if characters.isEmpty { return .interrupted }
            replace(with: [])
        case .endOfInput:
            if characters.isEmpty { return .endOfInput }
            if cursor < characters.count { characters.remove(at: cursor) }
        case .clearScreen:
            return .clearScreen
        }
        return .editing
    }

    /// The bytes that redraw the line in place: carriage return, prompt, the visible part of the
    /// line, erase to the end of the line, and the cursor moved back to its place.
    ///
    /// A line longer than the terminal scrolls sideways so that the cursor stays visible. Each
    /// character is taken to be one column wide.
    /// - Parameters:
    ///   - prompt: The prompt, colour codes included.
    ///   - promptWidth: The columns the prompt takes on screen.
    ///   - columns: The width of the terminal.
    /// - Returns: The text to write.
    func render(prompt: String, promptWidth: Int, columns: Int) -> String {
        let room = max(1, columns - promptWidth - 1)
        let start = cursor >= room ? cursor - room + 1 : 0
        let end = min(characters.count, start + room)
        let visible = String(characters[start..<end])
        var output = "\r" + prompt + visible + "\u{1B}[K"
        let back = end - cursor
        if back > 0 { output += "\u{1B}[\(back)D" }
        return output
    }

    private mutating func showHistory(_ index: Int) {
        guard index >= 0, index <= history.count, index != historyIndex else { return }
        if historyIndex == history.count { draft = characters }
        historyIndex = index
        replace(with: index == history.count ? draft : Array(history[index]))
    }

    private mutating func replace(with line: [Character]) {
        characters = line
        cursor = line.count
    }

    /// The start of the word before `index` (spaces before the cursor are skipped first).
    private func wordStart(before index: Int) -> Int {
        var position = index
        while position > 0, characters[position - 1] == " " { position -= 1 }
        while position > 0, characters[position - 1] != " " { position -= 1 }
        return position
    }

    /// The end of the word after `index`.
    private func wordEnd(after index: Int) -> Int {
        var position = index
        while position < characters.count, characters[position] == " " { position += 1 }
        while position < characters.count, characters[position] != " " { position += 1 }
        return position
    }
}
