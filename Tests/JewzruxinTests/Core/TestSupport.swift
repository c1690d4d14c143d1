import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `body` with a fresh sandbox on a free loopback port, stopped afterwards.
func withSandbox<T>(_ body: (Sandbox) async throws -> T) async throws -> T {
    try await Sandbox.withSandbox(body)
}

extension Sandbox {
    /// The absolute URL string of a path on this sandbox.
    func string(_ pathAndQuery: String) -> String {
        baseURL.absoluteString + pathAndQuery
    }

    /// Routes `path` to an answer held `seconds` (ended sooner when the sandbox stops): each
    /// request's arrival is an element of the stream returned, so a test knows its request is out
    /// and unanswered, however long a loaded machine took to get it there.
    func routeHeld(_ path: String, for seconds: TimeInterval) -> AsyncStream<Void>.AsyncIterator {
        let (arrivals, arrival) = AsyncStream<Void>.makeStream()
        route(path) { _ in
            arrival.yield()
            var response = SandboxResponse.text("late")
            response.delay = seconds
            return response
        }
        return arrivals.makeAsyncIterator()
    }
}

/// What a completion handler was called with.
struct Outcome: Sendable {
    let cycle: HTTPCycle
    let error: (any Error)?

    var response: HTTPResponse { cycle.response }
}

/// Starts a cycle through a callback API and waits for its completion handler.
///
/// - Parameter start: Calls the API with the handler it is given and returns the cycle.
func outcome(_ start: (@escaping HTTPCycle.CompletionHandler) throws -> HTTPCycle) async throws -> Outcome {
    try await withThrowingHandover { continuation in
        do {
            _ = try start { cycle, error in continuation.resume(returning: Outcome(cycle: cycle, error: error)) }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

/// Counts calls made from any thread.
final class CallCounter: Sendable {
    private let calls = Mutex<[String]>([])

    func record(_ label: String = "") { calls.withLock { $0.append(label) } }
    var count: Int { calls.withLock { $0.count } }
    var labels: [String] { calls.withLock { $0 } }
}

/// A session whose handlers run on a private serial queue, so a test can drain that queue, on the
/// transport under test.
func makeSession(_ configure: (URLSessionConfiguration) -> Void = { _ in }) -> HTTPSession {
    let configuration = URLSessionConfiguration.ephemeral
    // FoundationNetworking traps when a task is cancelled while its URLCache lookup runs
    // (swift-corelibs-foundation#3296); the tests cancel a lot and need no cache.
    configuration.urlCache = nil
    configure(configuration)
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return HTTPSession(configuration: configuration, delegateQueue: queue, transport: TransportUnderTest.current.transport)
}

extension HTTPSession {
    /// Waits until every transfer of the session has reported its end and every handler call
    /// handed to the delegate queue so far has run.
    ///
    /// Through the session's handler line, not an operation of the queue: calls that come while an
    /// operation runs the waiting ones go to the next operation, which an operation added meanwhile
    /// would run before.
    func drain() async {
        await transfers.whenIdle()
        await withHandover { (continuation: Handover<Void, Never>) in
            handlerLine.enqueue { continuation.resume() }
        }
    }
}

/// Decodes the JSON the sandbox's `/inspect/` endpoint answers with.
struct Inspection: Decodable {
    let method: String
    let path: String
    let query: String
    let headers: [[String]]
    let body: String
    let bodyLength: Int

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(Inspection.self, from: response.data)
    }

    /// Every value a header was received with, the name matched case-insensitively.
    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}
