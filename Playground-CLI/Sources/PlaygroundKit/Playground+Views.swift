import Foundation
import Jewzruxin

// The views of the last exchange: `headers`, `text`, `json`, `curl`, `save`.
extension Playground {
    /// The last response, or an error saying why there is none to show.
    ///
    /// - Parameter needsBody: Whether the view reads the body, which a download doesn't keep.
    func lastResponse(needsBody: Bool) throws(PlaygroundError) -> HTTPResponse {
        guard let last else { throw PlaygroundError("no response yet: send a request first (GET /hello/)") }
        guard let response = last.response else { throw PlaygroundError("the last request got no response") }
        if needsBody, let path = last.savedTo {
            throw PlaygroundError("the last body went to \(path) (download), not to memory")
        }
        return response
    }

    /// The response headers, `Name: value`, sorted case-insensitively, without `Date`.
    static func headerLines(_ response: HTTPResponse) -> [String] {
        response.headers
            .filter { $0.key.caseInsensitiveCompare("Date") != .orderedSame }
            .sorted { lhs, rhs in
                let order = lhs.key.caseInsensitiveCompare(rhs.key)
                return order == .orderedSame ? lhs.key < rhs.key : order == .orderedAscending
            }
            .map { "\($0.key): \($0.value)" }
    }

    func showResponseHeaders() throws(PlaygroundError) {
        let response = try lastResponse(needsBody: false)
        for line in Self.headerLines(response) { console.line(line) }
    }

    /// What `text` and `json` print for a body of no bytes, so that they never print nothing.
    static let emptyBody = "(empty body)"

    /// Prints the body as text, as it is; a newline is added when the body doesn't end with one.
    ///
    /// An empty body prints ``emptyBody``. A body with a NUL byte is taken to be binary and refused,
    /// so it can't garble the terminal.
    func showText() throws(PlaygroundError) {
        let response = try lastResponse(needsBody: true)
        guard !response.data.isEmpty else {
            console.line(Self.emptyBody)
            return
        }
        if response.data.contains(0) {
            let type = response.value(forHTTPHeaderField: "Content-Type").map { ", \($0)" } ?? ""
            throw PlaygroundError("the body (\(response.data.count) bytes\(type)) looks binary; save FILE keeps it")
        }
        guard let text = response.text else {
            throw PlaygroundError("the body (\(response.data.count) bytes) is not text in \(response.textEncoding); save FILE keeps it")
        }
        console.raw(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Prints the body as pretty JSON, or the value at a key path.
    ///
    /// An empty body prints ``emptyBody``, as `text` does; with a key path it is an error, as a key
    /// path that finds nothing is.
    func showJSON(keyPath: String?) throws(PlaygroundError) {
        let response = try lastResponse(needsBody: true)
        if response.data.isEmpty {
            if let keyPath { throw PlaygroundError("the body is empty: no value at the key path \(keyPath)") }
            console.line(Self.emptyBody)
            return
        }
        guard let json = try? JSON(data: response.data) else {
            let type = response.value(forHTTPHeaderField: "Content-Type").map { " (\($0))" } ?? ""
            throw PlaygroundError("the body\(type) is not JSON; text shows it")
        }
        guard let keyPath else {
            console.line(JSONPrinter.pretty(json))
            return
        }
        guard let value = json.value(atKeyPath: keyPath) else {
            throw PlaygroundError("no value at the key path \(keyPath)")
        }
        console.line(JSONPrinter.pretty(value))
    }

    func showCurl() throws(PlaygroundError) {
        guard let last else { throw PlaygroundError("no request yet: send one first (GET /hello/)") }
        console.line(last.request.curlDescription)
    }

    /// Writes the last body to a file.
    func save(to path: String) throws(PlaygroundError) {
        let response = try lastResponse(needsBody: true)
        do {
            try response.data.write(to: fileURL(path), options: .atomic)
        } catch {
            throw PlaygroundError("cannot write \(path): \(error.localizedDescription)")
        }
        console.line("saved \(response.data.count == 1 ? "1 byte" : "\(response.data.count) bytes") to \(path)")
    }
}
