import Foundation
import JewzruxinPrimitives

// `/range/N`: N pattern bytes (as /bytes/N) that can be fetched in parts, for resumable downloads.
// It sends `Accept-Ranges: bytes` and validators, and honours `Range: bytes=a-`, `bytes=a-b` and
// `bytes=-n` (one range; several are answered 200 with the whole body) with `If-Range` (RFC 9110
// §13.1.5, §14):
//
// | Answer | When                                                                                  |
// |--------|---------------------------------------------------------------------------------------|
// | 206    | a satisfiable range, and no `If-Range` or one equal to the current ETag (strong only) |
// |        | or Last-Modified; `Content-Range: bytes a-b/N`, the pattern bytes from offset a       |
// | 200    | no `Range`, an `If-Range` that doesn't match (the whole body), or `ignore_range=1`    |
// | 416    | a range starting at or past N; `Content-Range: bytes */N`                             |
//
// | Parameter     | Default | Meaning                                                              |
// |---------------|---------|----------------------------------------------------------------------|
// | key           | empty   | the per-key request counter (`Sandbox.rangeRequests(forKey:)`)        |
// | validator     | both    | `etag`, `last-modified`, `both`, `weak` (a weak ETag only) or `none`  |
// | change        | 0       | 1: every request after the key's first gets new validators            |
// | ignore_range  | 0       | 1: `Range` is ignored, every answer is 200 with the whole body        |
// | drop_after    | none    | the key's first request is cut after this many body bytes (closed)    |
// | drip_ms       | none    | the key's first request sends its body one byte every drip_ms         |
//
// Every request is recorded for its key with its `Range`, `If-Range` and `Accept-Encoding`.

extension Sandbox {
    /// The `Last-Modified` of `/range/N` before a validator change.
    static let rangeLastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
    /// The `Last-Modified` of `/range/N` after a validator change (`change=1`).
    static let rangeChangedLastModified = "Thu, 22 Oct 2015 07:28:00 GMT"

    /// Adds `/range/N`, recording in the sandbox's ``RangeRequestLog``.
    static func registerRangeEndpoint(on core: ServerCore) {
        let log = core.rangeRequests
        core.addRoute("/range/*", guarded { request throws(ParameterError) in
            try range(request, log: log)
        })
    }

    static func range(_ request: SandboxRequest, log: RangeRequestLog) throws(ParameterError) -> SandboxResponse {
        let count = try pathNumber(request, after: "/range", in: 0...maximumGeneratedBytes)
        let validators = request.queryValue("validator") ?? "both"
        guard ["etag", "last-modified", "both", "weak", "none"].contains(validators) else {
            throw ParameterError("validator must be etag, last-modified, both, weak or none")
        }
        let changes = try flag(request, "change")
        let ignoresRange = try flag(request, "ignore_range")
        let dropAfter = request.queryValue("drop_after") == nil ? nil : try integer(request, "drop_after", default: 0, in: 0...count)
        let drip = request.queryValue("drip_ms") == nil ? nil : try integer(request, "drip_ms", default: 0, in: 0...1000)
        let number = log.record(RangeRequest(
            range: request.headers["Range"], ifRange: request.headers["If-Range"],
            acceptEncoding: request.headers["Accept-Encoding"]), forKey: request.queryValue("key") ?? "")
        let version = changes && number > 1 ? 2 : 1
        let entityTag = "\"range-\(count)-v\(version)\""
        let lastModified = version == 1 ? rangeLastModified : rangeChangedLastModified

        var headers: SandboxHeaders = ["Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"]
        switch validators {
        case "etag": headers.add("ETag", entityTag)
        case "last-modified": headers.add("Last-Modified", lastModified)
        case "both":
            headers.add("ETag", entityTag)
            headers.add("Last-Modified", lastModified)
        case "weak": headers.add("ETag", "W/" + entityTag)
        default: break
        }
        var response = SandboxResponse(headers: headers, body: .pattern(count: count))
        if number == 1 {
            response.dropAfter = dropAfter
            response.dripInterval = drip.map { Double($0) / 1000 }
        }
        guard !ignoresRange, let rangeHeader = request.headers["Range"] else { return response }
        if let ifRange = request.headers["If-Range"] {
            // A strong ETag compares strongly; a date matches the current Last-Modified exactly.
            let strongTag = ["etag", "both"].contains(validators) ? entityTag : nil
            let date = ["last-modified", "both"].contains(validators) ? lastModified : nil
            guard ifRange == strongTag || ifRange == date else { return response }
        }
        guard let (first, last) = byteRange(rangeHeader, count: count) else { return response }
        guard first < count else {
            var refused = SandboxResponse(status: 416, headers: headers)
            refused.headers.add("Content-Range", "bytes */\(count)")
            return refused
        }
        response.status = 206
        response.headers.add("Content-Range", "bytes \(first)-\(last)/\(count)")
        response.body = SandboxBody(count: last - first + 1) { offset, length in
            SandboxBody.expectedPattern(offset: first + offset, count: length)
        }
        return response
    }

    /// The first and last offsets of a single `bytes=` range (the last clamped to the body); `nil`
    /// for a header that isn't one, which is then ignored. A first offset past the body is kept,
    /// for a 416.
    static func byteRange(_ header: String, count: Int64) -> (Int64, Int64)? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let start = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if start.isEmpty {
            guard let suffix = Int64(end), suffix > 0 else { return nil }
            return count == 0 ? (0, -1) : (max(0, count - suffix), count - 1)
        }
        guard let first = Int64(start), first >= 0 else { return nil }
        if end.isEmpty { return (first, count - 1) }
        guard let last = Int64(end), last >= first else { return nil }
        return (first, min(last, count - 1))
    }
}

/// One request to `/range/N`, as the sandbox saw it.
public struct RangeRequest: Sendable, Equatable {
    /// Its `Range` header, if any.
    public let range: String?
    /// Its `If-Range` header, if any.
    public let ifRange: String?
    /// Its `Accept-Encoding` header, if any.
    public let acceptEncoding: String?

    /// Creates a record.
    public init(range: String?, ifRange: String?, acceptEncoding: String?) {
        self.range = range
        self.ifRange = ifRange
        self.acceptEncoding = acceptEncoding
    }
}

/// The `/range/N` requests, per key, shared by all connection threads.
final class RangeRequestLog: Sendable {
    private let requests = Locked([String: [RangeRequest]]())

    /// Records `request` for `key` and returns its number (1 for the first).
    func record(_ request: RangeRequest, forKey key: String) -> Int {
        requests.withLock { requests in
            requests[key, default: []].append(request)
            return requests[key]?.count ?? 0
        }
    }

    /// The requests recorded for `key`, in order.
    func requests(forKey key: String) -> [RangeRequest] {
        requests.withLock { $0[key] ?? [] }
    }
}
