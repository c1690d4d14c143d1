import Dispatch
import Foundation

/// Where the playground's input lines come from: a terminal, piped input, `-c` or a script.
protocol LineSource {
    /// The next line, or `nil` at the end of the input.
    ///
    /// - Parameter history: The lines entered before, oldest first, for sources that edit lines.
    mutating func nextLine(history: [String]) async -> String?
}

/// Lines given all at once: `-c` commands or a script file's text.
struct ScriptLines: LineSource, Sendable {
    private var lines: [String]

    /// Creates a source from text.
    ///
    /// - Parameter text: One or more lines (`\n` or `\r\n`).
    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
    }

    /// The next line of the text.
    mutating func nextLine(history: [String]) async -> String? {
        lines.isEmpty ? nil : lines.removeFirst()
    }
}

/// Lines read from standard input when it is not an interactive terminal (a pipe, a file).
///
/// Each line is read on a private queue, so the task waiting for it doesn't block a thread of
/// the cooperative pool.
struct PipedLines: LineSource, Sendable {
    private let queue = DispatchQueue(label: "PlaygroundKit.PipedLines")

    /// Creates a source reading standard input.
    init() {}

    /// The next line of standard input, without its newline.
    mutating func nextLine(history: [String]) async -> String? {
        let queue = queue
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Swift.readLine(strippingNewline: true)) }
        }
    }
}
