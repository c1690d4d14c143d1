import Foundation

// Built-in sandbox endpoints. Every path also matches with/without a trailing slash.
// Query parameters are percent-decoded; a bad value answers 400 with a one-line message.
//
// | Method         | Path         | Parameters (default)               | Response                                |
// |----------------|--------------|------------------------------------|-----------------------------------------|
// | GET HEAD       | /hello/      |                                    | 200 `Hello World`, text/plain; utf-8    |
// | POST PUT PATCH | /dumpupload/ |                                    | 200 body echoed, request's Content-Type |
// | POST PUT PATCH | /multipart/  |                                    | JSON of the form's parts; Sandbox+Multipart |
// | any            | /echo/       | code content encoding header delay | see Sandbox+Echo.swift                  |
// | any            | /redirect/   | to (/hello/), code (302; 301-308)  | `code` with `Location: to`              |
// | any            | /bytes/N     | chunked (0), chunk (16384)         | N pattern bytes (i % 251), octet-stream |
// | any            | /drip/       | n (10), interval (0.1 s)           | n `*` bytes, one per interval           |
// | any            | /drop/       | after (0), chunked (0), chunk      | announces 2N+100, sends N bytes, closes |
// | any            | /inspect/    |                                    | 200 JSON of the request as received     |
// | any            | /status/N    |                                    | status N, body `status N`               |
// | any            | /flaky/      | key fail(1) code(503) retry_after  | see Sandbox+Flaky.swift                 |
// | GET HEAD       | /stores/     | zip (all stores)                   | JSON store array; see Sandbox+Stores    |
// | any            | /image/F     | width (8), height (6)              | a png, jpeg, gif or svg; Sandbox+Images |
// | any            | /range/N     | key validator change ignore_range  | N pattern bytes with Range, If-Range,   |
// |                |              | drop_after drip_ms                 | 206/416; see Sandbox+Range.swift        |
// | any            | /events/     | n per drop retry bom eol chunk     | server-sent events, resumed from        |
// |                |              | drip_ms                            | Last-Event-ID; see Sandbox+Events.swift |
// | any            | /stream/N    | chunk                              | N JSON lines (httpbin), chunked         |
//
// Authentication (user `test`, password `12345`): /hello_with_basic_auth/,
// /hello_with_basic_auth_norealm/ and /digest_auth/<qop>/<algorithm>/; see Sandbox+Auth.swift.
// Bearer tokens that go stale when refreshed: /bearer/ and /bearer/refresh/; see Sandbox+Bearer.swift.
// NTLM (any user and password, in the path) and Negotiate: /auth/ntlm/<user>/<password>/ and
// /auth/negotiate/; see Sandbox+NTLM.swift.
//
// Faults (closes, resets, stalls, 503 storms, redirect loops, truncated gzip…) live under
// /fault/; see Sandbox+Faults.swift.
//
// Anything else is 404; a known path with a wrong method is 405 with `Allow`.

extension Sandbox {
    /// The largest `/bytes/N` and `/drop/?after=N` (2 GiB).
    static let maximumGeneratedBytes: Int64 = 2 << 30
    /// The longest `delay` or drip `interval`, in seconds; larger values are capped.
    static let maximumWait: Double = 30
    /// The largest `/drip/?n=`.
    static let maximumDripCount: Int64 = 1 << 20
    /// The default chunk size for chunked responses.
    static let defaultChunkSize = 16 << 10

    /// A client-caused problem with an endpoint's parameters (answered with 400).
    struct ParameterError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    static func registerBuiltInEndpoints(on core: ServerCore) {
        core.addRoute("/hello", hello)
        core.addRoute("/dumpupload", dumpUpload)
        core.addRoute("/echo", guarded(echo))
        core.addRoute("/redirect", guarded(redirect))
        core.addRoute("/bytes/*", guarded(bytes))
        core.addRoute("/drip", guarded(drip))
        core.addRoute("/drop", guarded(drop))
        core.addRoute("/inspect", inspect)
        core.addRoute("/status/*", guarded(status))
        core.addRoute("/stores", storeLocator)
        registerImageEndpoints(on: core)
        registerFlakyEndpoint(on: core)
        registerMultipartEndpoint(on: core)
        registerAuthEndpoints(on: core)
        registerBearerEndpoints(on: core)
        registerConnectionAuthEndpoints(on: core)
        registerFaultEndpoints(on: core)
        registerRangeEndpoint(on: core)
        registerStreamEndpoints(on: core)
    }

    /// Turns a throwing endpoint into a handler that answers parameter errors with 400.
    static func guarded(
        _ endpoint: @escaping @Sendable (SandboxRequest) throws(ParameterError) -> SandboxResponse
    ) -> SandboxHandler {
        { request in
            do throws(ParameterError) {
                return try endpoint(request)
            } catch {
                return .error(400, error.message)
            }
        }
    }

    static func methodNotAllowed(_ allowed: [String]) -> SandboxResponse {
        var response = SandboxResponse.error(405, "method not allowed; use \(allowed.joined(separator: ", "))")
        response.headers.add("Allow", allowed.joined(separator: ", "))
        return response
    }

    // MARK: Endpoints

    static func hello(_ request: SandboxRequest) -> SandboxResponse {
        guard ["GET", "HEAD"].contains(request.method) else { return methodNotAllowed(["GET", "HEAD"]) }
        return .text("Hello World")
    }

    static func dumpUpload(_ request: SandboxRequest) -> SandboxResponse {
        let allowed = ["POST", "PUT", "PATCH"]
        guard allowed.contains(request.method) else { return methodNotAllowed(allowed) }
        return .data(request.body, contentType: request.headers["Content-Type"] ?? "application/octet-stream")
    }

    static func redirect(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let code = try integer(request, "code", default: 302, in: 100...599)
        guard [301, 302, 303, 307, 308].contains(code) else {
            throw ParameterError("code must be one of 301, 302, 303, 307, 308")
        }
        let location = request.queryValue("to") ?? "/hello/"
        let hasControl = location.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        guard !location.isEmpty, !hasControl else {
            throw ParameterError("to must be a non-empty path or URL without control characters")
        }
        var response = SandboxResponse.text("redirecting to \(location)\n", status: Int(code))
        response.headers.add("Location", location)
        return response
    }

    static func bytes(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try pathNumber(request, after: "/bytes", in: 0...maximumGeneratedBytes)
        var response = SandboxResponse(
            headers: ["Content-Type": "application/octet-stream"], body: .pattern(count: count))
        if try flag(request, "chunked") {
            response.transferEncoding = .chunked(chunkSize: try chunkSize(request))
        }
        return response
    }

    static func drip(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try integer(request, "n", default: 10, in: 0...maximumDripCount)
        var response = SandboxResponse(headers: ["Content-Type": "text/plain; charset=utf-8"],
                                       body: .repeating(UInt8(ascii: "*"), count: count))
        response.dripInterval = try seconds(request, "interval", default: 0.1)
        return response
    }

    static func drop(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let sent = try integer(request, "after", default: 0, in: 0...maximumGeneratedBytes)
        var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"],
                                       body: .pattern(count: sent * 2 + 100))
        response.dropAfter = sent
        if try flag(request, "chunked") {
            response.transferEncoding = .chunked(chunkSize: try chunkSize(request))
        }
        return response
    }

    static func status(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let code = try pathNumber(request, after: "/status", in: 100...599)
        return .text("status \(code)", status: Int(code))
    }

    /// The JSON document served by `/inspect/`.
    struct InspectReport: Encodable {
        let method: String
        let target: String
        let path: String
        let query: String
        let version: String
        let headers: [[String]]
        let body: String
        let bodyEncoding: String
        let bodyLength: Int
    }

    static func inspect(_ request: SandboxRequest) -> SandboxResponse {
        let text = String(data: request.body, encoding: .utf8)
        let report = InspectReport(
            method: request.method,
            target: request.target,
            path: request.path,
            query: request.rawQuery,
            version: request.version,
            headers: request.headers.fields.map { [$0.name, $0.value] },
            body: text ?? request.body.base64EncodedString(),
            bodyEncoding: text == nil ? "base64" : "utf8",
            bodyLength: request.body.count
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .json(try encoder.encode(report))
        } catch {
            return .error(500, "cannot encode inspect report: \(error)")
        }
    }

    // MARK: Parameter parsing

    static func integer(
        _ request: SandboxRequest, _ name: String, default value: Int64, in range: ClosedRange<Int64>
    ) throws(ParameterError) -> Int64 {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Int64(text), range.contains(number) else {
            throw ParameterError("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A non-negative number of seconds, capped at ``maximumWait``.
    static func seconds(
        _ request: SandboxRequest, _ name: String, default value: Double
    ) throws(ParameterError) -> Double {
        guard let text = request.queryValue(name) else { return value }
        guard let number = Double(text), number.isFinite, number >= 0 else {
            throw ParameterError("\(name) must be a non-negative number of seconds")
        }
        return min(number, maximumWait)
    }

    static func flag(_ request: SandboxRequest, _ name: String) throws(ParameterError) -> Bool {
        switch request.queryValue(name)?.lowercased() {
        case nil, "", "0", "false", "no": return false
        case "1", "true", "yes": return true
        default: throw ParameterError("\(name) must be 1 or 0")
        }
    }

    static func chunkSize(_ request: SandboxRequest) throws(ParameterError) -> Int {
        Int(try integer(request, "chunk", default: Int64(defaultChunkSize), in: 1...Int64(ResponseWriter.pieceSize)))
    }

    /// The number in the path segment after `prefix`, as in `/bytes/1024`.
    static func pathNumber(
        _ request: SandboxRequest, after prefix: String, in range: ClosedRange<Int64>
    ) throws(ParameterError) -> Int64 {
        let path = ServerCore.normalize(request.path)
        let segment = path.dropFirst(prefix.count + 1)
        guard path.hasPrefix(prefix + "/"), !segment.isEmpty, segment.utf8.allSatisfy(HTTPParser.isDigit),
              let number = Int64(segment), range.contains(number)
        else {
            throw ParameterError("\(prefix)/N needs N in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}
