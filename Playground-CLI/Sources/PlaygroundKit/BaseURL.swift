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

    /// The base URL a `base` command asks for, checked.
    ///
    /// - Parameter string: An absolute `http` or `https` URL with a host, optionally with a path
    ///   (`http://127.0.0.1:8080/api`). A query or fragment is refused: they would end up in the middle
    ///   of joined URLs.
    /// - Returns: The URL without trailing slashes.
    /// - Throws: ``PlaygroundError`` saying what is wrong.
    static func validated(_ string: String) throws(PlaygroundError) -> String {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased() else {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): the scheme must be http or https")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): the URL has no host")
        }
        guard components.query == nil, components.fragment == nil else {
            throw PlaygroundError("invalid base URL \(CommandLexer.quoted(string)): a base URL has no query or fragment")
        }
        var trimmed = Substring(string)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
