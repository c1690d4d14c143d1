import Foundation
import Jewzruxin

/// Where the playground's paths go, and how a path is joined to it.
enum BaseURL {
    /// The URL a command's target names: the target itself when it is an absolute URL, else the
    /// target joined to `base` with exactly one slash between them.
    ///
    /// ```swift
    /// BaseURL.join("http://h:8080", "/hello/")      // "http://h:8080/hello/"
    /// BaseURL.join("http://h/api/", "items?a=1")    // "http://h/api/items?a=1"
    /// BaseURL.join("http://h", "https://x.org/y")   // "https://x.org/y"
    /// BaseURL.join("http://h/a", "?q=1")            // "http://h/a?q=1"
    /// ```
    ///
    /// - Parameters:
    ///   - base: The base URL, with or without a trailing slash.
    ///   - target: A path (with or without its leading slash, with a query) or an absolute URL.
    /// - Returns: The URL string; it is checked when the request is made.
    static func join(_ base: String, _ target: String) -> String {
        URLJoining.join(base, target)
    }

    /// Whether a string starts with a URL scheme and `://`.
    ///
    /// - Parameter string: A path or URL.
    /// - Returns: `true` for `http://…`, `https://…`, `ftp://…`; `false` for paths.
    static func isAbsolute(_ string: String) -> Bool {
        URLJoining.isAbsolute(string)
    }

    /// The URL a request command's target names, with a target that is meant as an absolute URL
    /// (it has `://` before any `/`) but is not a valid one refused, rather than joined to `base` as a
    /// path: `GET ht!tp://x` must not go to the sandbox as `/ht!tp://x`.
    ///
    /// - Parameters:
    ///   - target: A path or an absolute URL, as the user typed it.
    ///   - base: The base URL.
    /// - Returns: The URL string, as ``join(_:_:)`` makes it.
    /// - Throws: ``PlaygroundError`` naming the target and what is wrong with it.
    static func resolve(_ target: String, on base: String) throws(PlaygroundError) -> String {
        if let separator = target.range(of: "://"), !target[..<separator.lowerBound].contains(where: { "/?#".contains($0) }),
           let problem = problem(with: target) {
            throw PlaygroundError("invalid URL \(CommandLexer.quoted(target)): \(problem)")
        }
        return join(base, target)
    }

    /// Why a string is not an absolute `http` or `https` URL with a host, in a few words.
    ///
    /// ```swift
    /// BaseURL.problem(with: "http://h/a")    // nil
    /// BaseURL.problem(with: "ht!tp://x")     // "ht!tp is not a URL scheme (http or https)"
    /// BaseURL.problem(with: "not a url")     // "it doesn't start with http:// or https://"
    /// ```
    ///
    /// - Parameter string: The URL string as typed.
    /// - Returns: The reason, or `nil` when the string is such a URL.
    static func problem(with string: String) -> String? {
        guard !string.isEmpty else { return "it is empty" }
        guard let separator = string.range(of: "://") else { return "it doesn't start with http:// or https://" }
        let scheme = string[..<separator.lowerBound]
        guard isAbsolute(string) else { return "\(CommandLexer.quoted(String(scheme))) is not a URL scheme (http or https)" }
        guard ["http", "https"].contains(scheme.lowercased()) else { return "the scheme must be http or https" }
        guard let components = URLComponents(string: string), URL(string: string) != nil else {
            if string.contains(where: \.isWhitespace) { return "a URL has no spaces (write %20)" }
            return "not a valid URL (check the host, the port and the characters)"
        }
        guard let host = components.host, !host.isEmpty else { return "the URL has no host" }
        return nil
    }

    /// The base URL a `base` command asks for, checked.
    ///
    /// - Parameter string: An absolute `http` or `https` URL with a host, optionally with a path
    ///   (`http://127.0.0.1:8080/api`). A query or fragment is refused: they would end up in the middle
    ///   of joined URLs.
    /// - Returns: The URL without trailing slashes.
    /// - Throws: ``PlaygroundError`` naming the URL and saying what is wrong.
    static func validated(_ string: String) throws(PlaygroundError) -> String {
        if let problem = problem(with: string) {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): \(problem)")
        }
        if let components = URLComponents(string: string), components.query != nil || components.fragment != nil {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): a base URL has no query or fragment")
        }
        var trimmed = Substring(string)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
