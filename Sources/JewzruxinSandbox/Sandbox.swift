import Foundation
import JewzruxinPrimitives

/// A real HTTP/1.1 server on the loopback interface, for testing HTTP clients.
///
/// `Sandbox` listens on a TCP port in the current process and serves a fixed set of
/// endpoints (see <doc:JewzruxinSandbox>) that return known bytes, echo what they
/// received, or misbehave on purpose: delays, dripping, chunking, dropped connections.
/// Each connection is served on its own thread; the server supports persistent
/// connections, chunked request bodies and `Expect: 100-continue`.
///
/// ```swift
/// let sandbox = try Sandbox.start()
/// defer { sandbox.stop() }
/// let url = try #require(sandbox.url("/hello/"))
/// let (data, _) = try await URLSession.shared.data(from: url)  // "Hello World"
/// ```
///
/// Start one sandbox per test or suite on port `0` (a free port is picked) and stop it
/// when done. Stopping also happens automatically when the last reference goes away.
public final class Sandbox: Sendable {
    /// The host the sandbox was asked to listen on, for example `127.0.0.1`.
    public let host: String

    /// The TCP port the sandbox listens on (the one picked, when started with port `0`).
    public let port: UInt16

    /// The URL of the server root without a trailing slash, for example
    /// `http://127.0.0.1:49152`.
    public let baseURL: URL

    private let core: ServerCore
    private let listenFD: Int32
    private let stopped = Locked(false)

    private init(host: String, port: UInt16, baseURL: URL, core: ServerCore, listenFD: Int32) {
        self.host = host
        self.port = port
        self.baseURL = baseURL
        self.core = core
        self.listenFD = listenFD
    }

    deinit {
        stop()
    }

    /// Runs `body` with a sandbox started on a free loopback port, stopped afterwards.
    ///
    /// ```swift
    /// try await Sandbox.withSandbox { sandbox in
    ///     let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/")
    /// }
    /// ```
    ///
    /// ``stop()`` waits for the connection threads, which may be in the middle of a slow body, so it
    /// runs on a thread of its own: a blocked cooperative thread (one of two on a 2-core machine)
    /// would stall every other task of the process.
    /// - Parameter body: What to do with the running sandbox.
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` if the sandbox can't start, or what `body` throws.
    public static func withSandbox<T>(_ body: (Sandbox) async throws -> T) async throws -> T {
        try await ServerLifetime.run(try start(), stop: { $0.stop() }, body)
    }

    /// Starts listening on `host` and `port`, serving on background threads.
    ///
    /// The built-in endpoints are registered before the first connection is accepted.
    /// The listening socket uses `SO_REUSEADDR`, so a fixed port can be reused right
    /// after a previous sandbox on it stopped.
    ///
    /// - Parameters:
    ///   - host: a local address to bind; use a numeric address such as `127.0.0.1` or
    ///     `::1` (a name is resolved, and only its first usable address is bound).
    ///   - port: the port to bind, or `0` to let the system pick a free one.
    /// - Returns: a running sandbox.
    /// - Throws: ``SandboxError`` if the address cannot be resolved or bound.
    public static func start(host: String = "127.0.0.1", port: UInt16 = 0) throws(SandboxError) -> Sandbox {
        let urlHost = HostSyntax.bracketed(host)
        let signal = try StopSignal()
        let listener: (fd: Int32, port: UInt16)
        do {
            listener = try Listener.open(host: host, port: port)
        } catch {
            signal.close()
            throw error
        }
        guard let baseURL = URL(string: "http://\(urlHost):\(listener.port)") else {
            Platform.closeDescriptor(listener.fd)
            signal.close()
            throw .addressResolutionFailed(host: host, code: 0, message: "host cannot be used in a URL")
        }
        let core = ServerCore(stopSignal: signal)
        registerBuiltInEndpoints(on: core)
        let sandbox = Sandbox(host: host, port: listener.port, baseURL: baseURL, core: core, listenFD: listener.fd)
        let listenFD = listener.fd
        core.threads.spawn(name: "JewzruxinSandbox accept") {
            Listener.acceptLoop(listenFD: listenFD, core: core)
        }
        return sandbox
    }

    /// The URL for `pathAndQuery` on this server, such as `"/echo/?content=hi"`.
    ///
    /// A missing leading slash is added. The text is used as-is, so it must already
    /// be percent-encoded where needed.
    ///
    /// - Returns: the URL, or `nil` if the text does not form a valid URL.
    public func url(_ pathAndQuery: String) -> URL? {
        let separator = pathAndQuery.hasPrefix("/") ? "" : "/"
        return URL(string: baseURL.absoluteString + separator + pathAndQuery)
    }

    /// The number of TCP connections accepted since the sandbox started.
    ///
    /// Compare it before and after a series of requests to prove a client reused one
    /// persistent connection.
    public var acceptedConnectionCount: Int { core.acceptedConnectionCount }

    /// How many requests `/flaky/` has counted for `key` (0 if none).
    ///
    /// Every valid `/flaky/?key=…` request counts, failed or not, so a test can prove
    /// how many times a client retried. Requests rejected with 400 are not counted.
    public func requestCount(forFlakyKey key: String) -> Int {
        core.flakyCounters.count(for: key)
    }

    /// How many `/fault/retry-after`, `/fault/unauthorized`, `/fault/redirect-loop/…` and
    /// `/fault/redirect-chain/…` requests have been counted for `key` (0 if none).
    ///
    /// The endpoints share one counter per key, so use a distinct key per endpoint in a test.
    /// Requests answered with 400 are not counted.
    public func requestCount(forFaultKey key: String) -> Int {
        core.faultCounters.count(for: key)
    }

    /// The `/range/N` requests recorded for `key`, in order, with their `Range`, `If-Range` and
    /// `Accept-Encoding`.
    public func rangeRequests(forKey key: String) -> [RangeRequest] {
        core.rangeRequests.requests(forKey: key)
    }

    /// How many times `/bearer/refresh/` was called for `key`, failed refreshes included.
    public func bearerRefreshCount(forKey key: String) -> Int {
        core.bearerTokens.refreshCount(for: key)
    }

    /// How many `/bearer/` requests for `key` were refused with a 401 (no token, or not the
    /// key's current one).
    public func bearerRejectionCount(forKey key: String) -> Int {
        core.bearerTokens.rejectionCount(for: key)
    }

    /// The number of accepted connections that are still open.
    public var openConnectionCount: Int { core.openConnectionCount }

    /// Whether ``stop()`` has completed.
    public var isStopped: Bool { stopped.withLock { $0 } }

    /// Stops the server.
    ///
    /// Wakes every waiting thread (idle keep-alive connections, delayed and dripping
    /// responses, the accept loop), closes all connections and the listening socket,
    /// and returns once every server thread has finished, so afterwards the port
    /// refuses connections and no descriptors or threads are left behind.
    ///
    /// Idempotent and safe to call from any thread; a concurrent second call waits for
    /// the first to finish. A route handler that is still running is waited for, so do
    /// not call `stop()` from inside a route handler.
    public func stop() {
        ServerLifetime.stop(stopped, signal: core.stopSignal, threads: core.threads, listener: listenFD)
    }

    /// Registers a handler for `path`, taking precedence over built-in endpoints and
    /// earlier registrations for the same path.
    ///
    /// `path` matches with or without a trailing slash (`"/login"` serves `/login` and
    /// `/login/`). A path ending in `/*` also matches everything below it
    /// (`"/files/*"` serves `/files`, `/files/a` and `/files/a/b`). Handlers receive
    /// requests of every method and run on connection threads, possibly concurrently.
    ///
    /// - Parameters:
    ///   - path: the path to serve, starting with `/`.
    ///   - handler: builds the response for a request.
    public func route(_ path: String, _ handler: @escaping @Sendable (SandboxRequest) -> SandboxResponse) {
        core.addRoute(path, handler)
    }

    /// The number of server threads (accept loop plus connections) still running.
    var runningThreadCount: Int { core.threads.count }

    /// The connections whose NTLM handshake (`/auth/ntlm/`) the sandbox remembers.
    var ntlmConnectionCount: Int { core.ntlmConnections.count }
}
