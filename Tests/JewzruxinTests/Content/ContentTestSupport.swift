import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every content-handler suite, run one test at a time.
///
/// The class-level defaults of ``SelectiveDiscarder`` are global: while a test changes them, a test
/// creating a handler with the default settings elsewhere would see the change. Nesting every suite
/// that creates handlers here keeps them apart; the whole set still takes well under a second or two.
@Suite("Content handlers", .serialized, .onEveryTransport)
struct ContentHandlingTests {}

/// Starts a cycle for `url` with `handler` as its content handler and waits for its completion.
///
/// - Parameters:
///   - url: The absolute URL string.
///   - handler: The content handler; `nil` leaves the cycle's own.
///   - session: The session to run on.
///   - configure: Changes to make to the cycle before it starts.
func fetchContent(
    _ url: String, handler: (any ContentHandler)?, session: HTTPSession,
    configure: (HTTPCycle) -> Void = { _ in }
) async throws -> Outcome {
    let target = try #require(URL(string: url))
    return try await outcome { completion in
        let cycle = HTTPCycle(requestURL: target, session: session)
        cycle.contentHandler = handler
        configure(cycle)
        cycle.start(completion)
        return cycle
    }
}

/// Waits for everything the session still has going and checks that no task is left running.
func settle(_ session: HTTPSession, sourceLocation: SourceLocation = #_sourceLocation) async {
    await session.drain()
    #expect(session.runningTaskCount == 0, sourceLocation: sourceLocation)
}

/// The `ContentHandlerError` an outcome ended with, recording an issue when it ended otherwise.
func contentError(
    _ result: Outcome, _ code: ContentHandlerError.Code, sourceLocation: SourceLocation = #_sourceLocation
) -> ContentHandlerError? {
    guard let error = result.error as? ContentHandlerError else {
        Issue.record("expected a ContentHandlerError \(code), got \(String(describing: result.error))", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    return error
}

/// The response an outcome's `HTTPError.statusCodeSeemsToHaveErred` carries, recording an issue when
/// it ended otherwise.
func erredResponse(_ result: Outcome, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponse? {
    guard case HTTPError.statusCodeSeemsToHaveErred(let response)? = result.error else {
        Issue.record("expected statusCodeSeemsToHaveErred, got \(String(describing: result.error))", sourceLocation: sourceLocation)
        return nil
    }
    return response
}

/// Counts the bytes the sandbox produced for a body, to prove a transfer was stopped early or held
/// back.
///
/// By default the body comes at most 64 KiB per millisecond, like a fast network rather than
/// loopback: URLSession on Linux reads without backpressure (L2), and a loopback sender flooding it
/// delays a cancel by seconds and hundreds of megabytes (see the report), which would hide whether
/// the client stopped the transfer at all. A backpressure test takes it at loopback speed.
final class ProducedBytes: Sendable {
    private let produced = Atomic<Int64>(0)

    var count: Int64 { produced.load(ordering: .relaxed) }

    /// A pattern body of `count` bytes that counts what the sandbox asks for; `throttled` as above.
    func body(count: Int64, throttled: Bool = true) -> SandboxBody {
        SandboxBody(count: count) { offset, length in
            self.produced.add(Int64(length), ordering: .relaxed)
            if throttled { Thread.sleep(forTimeInterval: 0.001) }
            return SandboxBody.expectedPattern(offset: offset, count: length)
        }
    }
}

/// The file names in a directory, hidden ones included, sorted.
func directoryListing(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-content-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

extension Sandbox {
    /// The URL string of `/echo/` answering with `code`, `content` (in `encoding`, if given) and the
    /// extra `Name:Value` headers, every value percent-encoded.
    func echo(code: Int = 200, content: String = "", encoding: String? = nil, headers: [String] = []) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        func escaped(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value }
        var query = ["code=\(code)", "content=\(escaped(content))"]
        if let encoding { query.append("encoding=\(escaped(encoding))") }
        query += headers.map { "header=\(escaped($0))" }
        return string("/echo/?" + query.joined(separator: "&"))
    }
}
