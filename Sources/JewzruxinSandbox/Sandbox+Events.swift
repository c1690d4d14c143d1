import Foundation

// Streams for the line and event readers: `/events/` (server-sent events, with reconnection) and
// `/stream/N` (httpbin's: N JSON documents, one per line).
//
// `/events/` sends events 1 to `n` (3), each
//
//     : comment <i>
//     id: <i>
//     event: tick
//     data: {"n":<i>}
//     <empty line>
//
// with a second data line, `data: second line`, when `multiline=1`;
// starting after the request's `Last-Event-ID`, at most `per` (all) per connection, after which
// the response ends; with `drop=1` it ends instead in the middle of one more event, the
// connection cut short (the client must drop that event). Once `Last-Event-ID` is `n` or more it
// answers `204 No Content`. `retry=<ms>` sends a `retry:` line first, `bom=1` a byte order mark,
// `eol=lf|crlf|cr|mixed` picks the line ends (`mixed` turns through the three), `chunk=<bytes>`
// sends the body chunked in pieces that size (events split across chunks), and `drip_ms=<ms>` one
// byte at a time.
extension Sandbox {
    /// The most events `/events/` and lines `/stream/N` send.
    static let maximumStreamCount: Int64 = 100_000

    static func registerStreamEndpoints(on core: ServerCore) {
        core.addRoute("/events", guarded(events))
        core.addRoute("/stream/*", guarded(lineStream))
    }

    static func events(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try integer(request, "n", default: 3, in: 0...maximumStreamCount)
        let per = try integer(request, "per", default: count, in: 1...maximumStreamCount)
        let lastID = request.headers["Last-Event-ID"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        guard lastID < count else { return SandboxResponse(status: 204) }
        let ends: [String]
        switch request.queryValue("eol") ?? "lf" {
        case "lf": ends = ["\n"]
        case "crlf": ends = ["\r\n"]
        case "cr": ends = ["\r"]
        case "mixed": ends = ["\n", "\r\n", "\r"]
        default: throw ParameterError("eol must be lf, crlf, cr or mixed")
        }
        var lineNumber = 0
        var text = ""
        func line(_ content: String) {
            text += content + ends[lineNumber % ends.count]
            lineNumber += 1
        }
        if let retry = request.queryValue("retry") {
            guard let milliseconds = Int(retry), milliseconds >= 0 else { throw ParameterError("retry must be a number of milliseconds") }
            line("retry: \(milliseconds)")
        }
        let multiline = try flag(request, "multiline")
        let last = min(count, lastID + per)
        for index in (lastID + 1)...last {
            line(": comment \(index)")
            line("id: \(index)")
            line("event: tick")
            line("data: {\"n\":\(index)}")
            if multiline { line("data: second line") }
            line("")
        }
        var body = Data(text.utf8)
        if try flag(request, "bom") { body = Data([0xEF, 0xBB, 0xBF]) + body }
        var response = SandboxResponse(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"], body: .data(body))
        if try flag(request, "drop") {
            // One more event, cut before its empty line: the client must not dispatch it.
            let partial = Data("id: \(last + 1)\ndata: cut short\n".utf8)
            response.body = .data(body + partial + Data(repeating: UInt8(ascii: " "), count: 64))
            response.dropAfter = Int64(body.count + partial.count)
        }
        if request.queryValue("chunk") != nil {
            response.transferEncoding = .chunked(chunkSize: try chunkSize(request))
        }
        if let drip = request.queryValue("drip_ms") {
            guard let milliseconds = Double(drip), milliseconds >= 0 else { throw ParameterError("drip_ms must be a number of milliseconds") }
            response.dripInterval = min(milliseconds / 1000, maximumWait)
        }
        return response
    }

    /// httpbin's `/stream/N`: N JSON documents, one per line, chunked one line a chunk.
    static func lineStream(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try pathNumber(request, after: "/stream", in: 0...maximumStreamCount)
        var body = Data()
        var longest = 1
        for index in 0..<count {
            let line = Data("{\"id\":\(index),\"url\":\"\(request.path)\"}\n".utf8)
            longest = max(longest, line.count)
            body += line
        }
        var response = SandboxResponse(headers: ["Content-Type": "application/json"], body: .data(body))
        response.transferEncoding = .chunked(chunkSize: request.queryValue("chunk") != nil ? try chunkSize(request) : longest)
        return response
    }
}
