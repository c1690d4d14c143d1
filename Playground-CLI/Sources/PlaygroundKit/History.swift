import Foundation

/// The lines entered, oldest first, and the dotfile they are kept in between sessions.
///
/// A line is recorded unless it is blank or repeats the line just before it. At most ``limit``
/// lines are kept; the oldest go first. The file holds one line per line of text (UTF-8), so it
/// can be read and edited by hand.
struct History: Sendable, Hashable {
    /// The lines, oldest first.
    private(set) var entries: [String]
    /// How many lines are kept at most.
    let limit: Int

    /// The environment variable that overrides the history file's path.
    private static let environmentKey = "JEWZRUXIN_PLAYGROUND_HISTORY"
    /// The history file's name in the home directory.
    private static let defaultFileName = ".jewzruxin_playground_history"

    /// Creates a history.
    ///
    /// - Parameters:
    ///   - entries: Lines to start with, oldest first (only the newest `limit` are kept).
    ///   - limit: How many lines are kept at most.
    init(entries: [String] = [], limit: Int = 1000) {
        self.limit = max(1, limit)
        self.entries = Array(entries.suffix(self.limit))
    }

    /// Records a line, unless it is blank or the same as the last one.
    ///
    /// - Parameter line: A line as entered; it is stored without surrounding whitespace.
    mutating func add(_ line: String) {
        let line = line.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty, !line.contains("\n"), line != entries.last else { return }
        entries.append(line)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }

    /// The lines numbered from 1, as `history` prints them: `    1  GET /hello/`.
    var listing: String {
        let width = max(5, String(entries.count).count)
        return entries.enumerated().map { index, line in
            let number = String(index + 1)
            return String(repeating: " ", count: width - number.count) + number + "  " + line
        }.joined(separator: "\n")
    }

    /// Where the history file is: `$JEWZRUXIN_PLAYGROUND_HISTORY` when set and not empty, else
    /// `~/.jewzruxin_playground_history`.
    ///
    /// - Parameters:
    ///   - environment: The process environment.
    ///   - home: The home directory.
    /// - Returns: The file's URL.
    static func fileURL(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: URL = FileManager.default.homeDirectoryForCurrentUser
    ) -> URL {
        if let path = environment[environmentKey], !path.isEmpty {
            return URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        }
        return home.appendingPathComponent(defaultFileName)
    }

    /// Reads a history file; a missing or unreadable file gives an empty history.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - limit: How many lines are kept at most.
    /// - Returns: The history.
    static func load(from url: URL, limit: Int = 1000) -> History {
        guard let data = try? Data(contentsOf: url) else { return History(limit: limit) }
        var history = History(limit: limit)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            history.add(String(line))
        }
        return history
    }

    /// Writes the history file, readable by its owner only (commands may hold passwords).
    ///
    /// - Parameter url: The file.
    /// - Throws: The file system's error.
    func save(to url: URL) throws {
        let text = entries.map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}
