import Foundation
import Jewzruxin

/// One `key=value`, `key==value`, `key:=json` or `key@path` argument of a request command.
///
/// | Form         | Meaning                                                                      |
/// |--------------|------------------------------------------------------------------------------|
/// | `key=value`  | a body field of `POST`/`PUT`/`PATCH`; a query parameter of `GET`/`HEAD`/`DELETE` |
/// | `key==value` | a query parameter, whatever the method                                       |
/// | `key:=json`  | a raw JSON body value (`n:=42`, `ok:=true`, `tags:='["a","b"]'`, `x:=null`)   |
/// | `key@path`   | a file part: the body becomes `multipart/form-data` (as curl's `-F key=@path`) |
///
/// The first `=` or `@` of the word decides: `a=b=c` is the field `a` with the value `b=c`,
/// `url=mailto:a@b` a field, `doc@a=b.txt` the file `a=b.txt`.
enum RequestItem: Sendable, Hashable {
    /// `key=value`.
    case field(String, String)
    /// `key==value`.
    case query(String, String)
    /// `key:=json`.
    case json(String, JSON)
    /// `key@path`: the file at `path` (`~` expanded), sent as a part of a multipart form.
    case file(String, String)

    /// Parses one argument.
    ///
    /// - Parameter word: The argument as the lexer gave it (quotes already removed).
    /// - Throws: ``PlaygroundError`` when there is no `=`, no name, or `:=` is followed by
    ///   something that isn't JSON.
    init(parsing word: String) throws(PlaygroundError) {
        let equals = word.firstIndex(of: "=")
        if let at = word.firstIndex(of: "@"), equals.map({ at < $0 }) ?? true {
            let name = String(word[..<at])
            if name.isEmpty { throw PlaygroundError("missing name before @ in \(CommandLexer.quoted(word))") }
            let path = String(word[word.index(after: at)...])
            if path.isEmpty { throw PlaygroundError("missing file path after @ in \(CommandLexer.quoted(word))") }
            self = .file(name, path)
            return
        }
        guard let equals else {
            throw PlaygroundError("expected key=value, key==value, key:=json or key@file, not \(CommandLexer.quoted(word))")
        }
        let after = word.index(after: equals)
        if equals > word.startIndex, word[word.index(before: equals)] == ":" {
            let name = String(word[..<word.index(before: equals)])
            try Self.check(name, word)
            let text = String(word[after...])
            guard let value = try? JSON(data: Data(text.utf8)) else {
                throw PlaygroundError("invalid JSON value in \(CommandLexer.quoted(word)) (quote strings: key:='\"text\"', or use key=text)")
            }
            self = .json(name, value)
        } else if after < word.endIndex, word[after] == "=" {
            let name = String(word[..<equals])
            try Self.check(name, word)
            self = .query(name, String(word[word.index(after: after)...]))
        } else {
            let name = String(word[..<equals])
            try Self.check(name, word)
            self = .field(name, String(word[after...]))
        }
    }

    /// The name of the item.
    var name: String {
        switch self {
        case .field(let name, _), .query(let name, _), .json(let name, _), .file(let name, _): return name
        }
    }

    private static func check(_ name: String, _ word: String) throws(PlaygroundError) {
        if name.isEmpty { throw PlaygroundError("missing name before = in \(CommandLexer.quoted(word))") }
    }
}

extension RequestItem: CustomStringConvertible {
    /// The item as it would be typed (values quoted when needed).
    var description: String {
        switch self {
        case .field(let name, let value): return CommandLexer.quoted("\(name)=\(value)")
        case .query(let name, let value): return CommandLexer.quoted("\(name)==\(value)")
        case .json(let name, let value): return CommandLexer.quoted("\(name):=\(JSONPrinter.compact(value))")
        case .file(let name, let path): return CommandLexer.quoted("\(name)@\(path)")
        }
    }
}
