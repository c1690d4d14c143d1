import Foundation

/// How a path is resolved against a base URL string: the one rule of `HTTPService` (a profile's base
/// URL and an expanded template) and the fluent layer's `WebService` (its base URL and a request path).
///
/// The rule, in order:
/// 1. A path that is an absolute URL (a scheme — a letter, then letters, digits, `+`, `-` or `.` —
///    followed by `://`) is used as it is: `https://other.example/x`.
/// 2. An empty base leaves the path as it is.
/// 3. A path that is empty or starts with `?` or `#` is appended to the base as it is:
///    `http://h/api` and `?q=1` give `http://h/api?q=1`.
/// 4. Otherwise the two are joined with exactly one slash, whatever slashes either has on that side:
///    `http://h/api/` and `/stores` give `http://h/api/stores`, and so do `http://h/api` and `stores`.
///
/// Nothing is encoded or checked: the result is validated when a request is made of it.
package enum URLJoining {
    /// `path` resolved against `base` by the rule above.
    ///
    /// - Parameters:
    ///   - base: The base URL string, with or without trailing slashes.
    ///   - path: A path (with or without its leading slash, with a query), or an absolute URL.
    /// - Returns: The URL string.
    package static func join(_ base: String, _ path: String) -> String {
        // Byte-level: the separators are ASCII, so every index found is a character boundary.
        if base.isEmpty || isAbsolute(path) { return path }
        let slash = UInt8(ascii: "/")
        if path.utf8.first.map({ $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? true { return base + path }
        // The usual case, one slash between them already (`http://h/api` and `/stores`): as they are.
        if base.utf8.last != slash, path.utf8.first == slash, path.utf8.dropFirst().first != slash { return base + path }
        var baseEnd = base.utf8.endIndex
        while baseEnd > base.utf8.startIndex, base.utf8[base.utf8.index(before: baseEnd)] == slash {
            baseEnd = base.utf8.index(before: baseEnd)
        }
        let pathStart = path.utf8.firstIndex { $0 != slash } ?? path.utf8.endIndex
        var joined = String(base[..<baseEnd])
        joined.reserveCapacity(base.utf8.count + path.utf8.count + 1)
        joined += "/"
        joined += path[pathStart...]
        return joined
    }

    /// Whether `string` starts with a URL scheme (a letter, then letters, digits, `+`, `-` or `.`)
    /// followed by `://`.
    ///
    /// - Parameter string: A path or URL string.
    /// - Returns: `true` for `http://…`, `HTTP://…`, `svn+ssh://…`; `false` for paths, even `/a://b`.
    package static func isAbsolute(_ string: String) -> Bool {
        let bytes = string.utf8
        // A path (`/stores`) fails the first test, before any search for the colon.
        guard let first = bytes.first, isLetter(first) else { return false }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return false }
        let scheme = bytes[..<colon]
        return scheme.allSatisfy { isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.".utf8.contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
