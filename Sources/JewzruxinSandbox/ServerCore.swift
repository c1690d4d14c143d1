import Foundation
import JewzruxinPrimitives

/// A route handler, as registered with ``Sandbox/route(_:_:)``.
public typealias SandboxHandler = @Sendable (SandboxRequest) -> SandboxResponse

/// One registered route: an exact path, or a prefix when registered as `/prefix/*`.
struct Route: Sendable {
    let path: String
    let isPrefix: Bool
    let handler: SandboxHandler

    init(pattern: String, handler: @escaping SandboxHandler) {
        if pattern.hasSuffix("/*") {
            path = ServerCore.normalize(String(pattern.dropLast(2)))
            isPrefix = true
        } else {
            path = ServerCore.normalize(pattern)
            isPrefix = false
        }
        self.handler = handler
    }

    func matches(_ normalizedPath: String) -> Bool {
        if normalizedPath == path { return true }
        guard isPrefix else { return false }
        return path == "/" || normalizedPath.hasPrefix(path + "/")
    }
}

/// State shared by the public ``Sandbox`` object, its accept thread and its connection
/// threads. Threads hold this rather than the `Sandbox`, so dropping the last reference
/// to a `Sandbox` stops it.
final class ServerCore: Sendable {
    private struct State: Sendable {
        var routes: [Route] = []
        var acceptedConnections = 0
        var openConnections = 0
    }

    let stopSignal: StopSignal
    let threads = ThreadTracker()
    /// Nonces issued by the `/digest_auth/` endpoints.
    let digestNonces = DigestNonceStore()
    /// The NTLM handshakes of `/auth/ntlm/`, per connection.
    let ntlmConnections = NTLMConnectionStore()
    /// Per-key request counters of `/flaky/`.
    let flakyCounters = FlakyCounters()
    /// Per-key request counters of the `/fault/` endpoints.
    let faultCounters = FlakyCounters()
    /// The requests of `/range/N`, per key.
    let rangeRequests = RangeRequestLog()
    /// The tokens of `/bearer/`, per key.
    let bearerTokens = BearerTokens()
    private let state = Locked(State())

    init(stopSignal: StopSignal) {
        self.stopSignal = stopSignal
    }

    var acceptedConnectionCount: Int { state.withLock { $0.acceptedConnections } }
    var openConnectionCount: Int { state.withLock { $0.openConnections } }

    /// Counts a new connection; returns its number (1 for the first).
    func connectionOpened() -> Int {
        state.withLock {
            $0.acceptedConnections += 1
            $0.openConnections += 1
            return $0.acceptedConnections
        }
    }

    /// Counts the end of connection `number`, and forgets its NTLM state.
    func connectionClosed(_ number: Int) {
        ntlmConnections.forget(number)
        state.withLock { $0.openConnections -= 1 }
    }

    /// Adds a route; later routes win over earlier ones for the same path.
    func addRoute(_ pattern: String, _ handler: @escaping SandboxHandler) {
        let route = Route(pattern: pattern, handler: handler)
        state.withLock { $0.routes.append(route) }
    }

    /// Finds the newest matching route and runs it; `404` when none matches.
    func respond(to request: SandboxRequest) -> SandboxResponse {
        let routes = state.withLock { $0.routes }
        let path = Self.normalize(request.path)
        guard let route = routes.last(where: { $0.matches(path) }) else {
            return .error(404, "no sandbox route for \(request.path)")
        }
        let response = route.handler(request)
        guard (100...599).contains(response.status) else {
            return .error(500, "route handler returned invalid status \(response.status)")
        }
        return response
    }

    /// Drops trailing slashes (except for the root), so `/hello` and `/hello/` are one route.
    static func normalize(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1, result.hasSuffix("/") { result = result.dropLast() }
        return result.isEmpty || !result.hasPrefix("/") ? "/" + result : String(result)
    }
}

/// Starts threads and waits for all of them to finish.
///
/// The wait is a `DispatchGroup`'s, not a condition variable over the count: the count is only read
/// for ``count``.
final class ThreadTracker: Sendable {
    private let group = DispatchGroup()
    private let running = Locked(0)

    /// Runs `body` on a new thread that is counted until `body` returns.
    func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        running.withLock { $0 += 1 }
        group.enter()
        let thread = Thread { [self] in
            body()
            running.withLock { $0 -= 1 }
            group.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The number of threads still running.
    var count: Int { running.withLock { $0 } }

    /// Blocks until every spawned thread has finished its body.
    func waitForAll() {
        group.wait()
    }
}
