import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequest {
    /// The request as a `curl` command line to paste into a shell.
    ///
    /// The method, every header field and the body are included, each argument single-quoted,
    /// credentials as they are. A body that isn't UTF-8 text is written with ANSI-C quoting
    /// (`$'\x00…'`, bash and zsh). The request an event monitor hears in
    /// ``HTTPEventMonitor/cycle(_:willSend:)`` has the fields its transport adds (cookies, `Host`,
    /// `User-Agent`, `Accept`, `Accept-Encoding`, the framing), so its command shows what went out;
    /// a request not yet sent has only its own.
    public var curlDescription: String {
        curlCommand(redactsCredentials: false, bodyLimit: nil)
    }

    /// The header fields whose values are credentials: ``curlCommand(redactsCredentials:bodyLimit:)``
    /// hides them when asked.
    static let credentialFields: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The `curl` command that sends this request.
    ///
    /// - Parameters:
    ///   - redactsCredentials: Whether the values of `Authorization`, `Proxy-Authorization` and
    ///     `Cookie`, and a password in the URL, are written as `<redacted>`.
    ///   - bodyLimit: The most bytes of the body written, `nil` for all of it; a longer body is cut,
    ///     and a shell comment at the end says its length.
    func curlCommand(redactsCredentials: Bool, bodyLimit: Int?) -> String {
        var parts = ["curl"]
        let method = self.method.rawValue
        if method == "HEAD" {
            parts.append("--head")
        } else if method != "GET" || data != nil {
            parts += ["-X", Self.shellQuoted(method)]
        }
        for (name, value) in headerFields.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            let shown = redactsCredentials && Self.credentialFields.contains(name.lowercased()) ? "<redacted>" : value
            parts += ["-H", Self.shellQuoted("\(name): \(shown)")]
        }
        var cut: String?
        if let data, !data.isEmpty {
            let written = bodyLimit.map { data.prefix($0) } ?? data
            parts.append("--data-binary")
            if let text = String(data: written, encoding: .utf8), !text.contains("\0") {
                parts.append(Self.shellQuoted(text))
            } else {
                parts.append("$'" + written.map { String(format: "\\x%02x", $0) }.joined() + "'")
            }
            if written.count < data.count { cut = "# body cut, \(data.count) bytes in all" }
        }
        var url = self.url
        if redactsCredentials, let given = url, given.password != nil,
           var components = URLComponents(url: given, resolvingAgainstBaseURL: false) {
            components.password = "redacted"
            url = components.url ?? given
        }
        parts.append(Self.shellQuoted(url?.absoluteString ?? ""))
        if let cut { parts.append(cut) }
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, with each `'` written as `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
