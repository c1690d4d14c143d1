import Foundation
import JewzruxinPrimitives

// `/flaky/` fails a set number of times per key, then succeeds:
//
// | Parameter   | Default | Meaning                                                            |
// |-------------|---------|--------------------------------------------------------------------|
// | key         | empty   | the counter to use; each distinct key counts separately            |
// | fail        | 1       | how many requests for the key fail (0...1000000)                   |
// | code        | 503     | the failure status (400...599)                                     |
// | retry_after | none    | when present, failures carry `Retry-After: <value as given>`       |
//
// Request n for a key (counting from 1, every method) answers `code` with body `flaky n`
// while n <= fail, and then 200 `ok after <fail> failures`. Requests with invalid
// parameters get 400 and are not counted. `Sandbox.requestCount(forFlakyKey:)` reads
// the counter.

extension Sandbox {
    /// The largest `/flaky/?fail=`.
    static let maximumFlakyFailures: Int64 = 1_000_000

    /// Adds `/flaky/`, counting in the sandbox's ``FlakyCounters``.
    static func registerFlakyEndpoint(on core: ServerCore) {
        let counters = core.flakyCounters
        core.addRoute("/flaky", guarded { request throws(ParameterError) in
            try flaky(request, counters: counters)
        })
    }

    /// Counts the request for its key and fails or succeeds as the table above says.
    static func flaky(_ request: SandboxRequest, counters: FlakyCounters) throws(ParameterError) -> SandboxResponse {
        let key = request.queryValue("key") ?? ""
        let failures = try integer(request, "fail", default: 1, in: 0...maximumFlakyFailures)
        let code = try integer(request, "code", default: 503, in: 400...599)
        let retryAfter = request.queryValue("retry_after")
        if let retryAfter, retryAfter.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ParameterError("retry_after must not contain control characters")
        }
        let attempt = counters.record(key)
        guard attempt > failures else {
            var response = SandboxResponse.text("flaky \(attempt)", status: Int(code))
            if let retryAfter {
                response.headers.add("Retry-After", retryAfter)
            }
            return response
        }
        return .text("ok after \(failures) failures")
    }
}

/// Per-key request counters for `/flaky/`, shared by all connection threads.
final class FlakyCounters: Sendable {
    private let counts = Locked([String: Int]())

    /// Counts one request for `key` and returns its number (1 for the first).
    func record(_ key: String) -> Int {
        counts.withLock { counts in
            let next = (counts[key] ?? 0) + 1
            counts[key] = next
            return next
        }
    }

    /// How many requests for `key` have been counted.
    func count(for key: String) -> Int {
        counts.withLock { $0[key] ?? 0 }
    }
}
