import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequest {
    /// The request as a `curl` command line to paste into a shell.
    ///
    /// The method, every header and the body are included, each argument single-quoted. A body that
    /// isn't UTF-8 text is written with ANSI-C quoting (`$'\x00…'`, bash and zsh).
    public var curlDescription: String {
        var parts = ["curl"]
        let method = core.httpMethod ?? "GET"
        if method == "HEAD" {
            parts.append("--head")
        } else if method != "GET" || data != nil {
            parts += ["-X", Self.shellQuoted(method)]
        }
        for (name, value) in (core.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            parts += ["-H", Self.shellQuoted("\(name): \(value)")]
        }
        if let data, !data.isEmpty {
            parts.append("--data-binary")
            if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                parts.append(Self.shellQuoted(text))
            } else {
                parts.append("$'" + data.map { String(format: "\\x%02x", $0) }.joined() + "'")
            }
        }
        parts.append(Self.shellQuoted(core.url?.absoluteString ?? ""))
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, with each `'` written as `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
