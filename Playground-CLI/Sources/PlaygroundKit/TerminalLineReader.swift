import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from an interactive terminal with line editing and history.
///
/// While a line is edited the terminal is in raw mode (see ``Terminal``); it goes back to its
/// settings before the line is returned, so commands run with Ctrl-C delivering SIGINT. Keys
/// typed or pasted after Enter are kept for the next line. The blocking reads happen on a
/// private queue.
final class TerminalLineReader: LineSource, Sendable {
    private let console: Console
    private let prompt: String
    private let promptWidth: Int
    private let queue = DispatchQueue(label: "PlaygroundKit.TerminalLineReader")
    /// Keys read after the last submitted line.
    private let pending = Mutex<[Key]>([])

    /// Creates a reader.
    ///
    /// - Parameter console: Where the prompt and the line are drawn.
    init(console: Console) {
        self.console = console
        self.prompt = console.paint(">", .cyan) + " "
        self.promptWidth = 2
    }

    /// Edits a line at the prompt.
    ///
    /// - Parameter history: The lines entered before, for the up and down keys.
    /// - Returns: The line, or `nil` after Ctrl-D on an empty line or at the end of the input.
    func nextLine(history: [String]) async -> String? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.edit(history: history)) }
        }
    }

    private func edit(history: [String]) -> String? {
        Terminal.enableRawMode()
        defer { Terminal.restore() }
        var editor = LineEditor(history: history)
        var decoder = KeyDecoder()
        var keys = pending.withLock { keys in
            defer { keys = [] }
            return keys
        }
        draw(editor)
        while true {
            if keys.isEmpty {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    console.raw("\n")
                    return nil
                }
                keys = decoder.feed(Array(buffer[0..<count]))
                continue
            }
            let key = keys.removeFirst()
            switch editor.handle(key) {
            case .editing:
                draw(editor)
            case .submit(let line):
                pending.withLock { $0 = keys }
                console.raw("\n")
                return line
            case .endOfInput:
                console.raw("\n")
                return nil
            case .interrupted:
                console.raw("^C  (quit or Ctrl-D leaves)\n")
                editor = LineEditor(history: history)
                draw(editor)
            case .clearScreen:
                console.raw("\u{1B}[H\u{1B}[2J")
                draw(editor)
            }
        }
    }

    private func draw(_ editor: LineEditor) {
        console.raw(editor.render(prompt: prompt, promptWidth: promptWidth, columns: Terminal.columns))
    }
}
