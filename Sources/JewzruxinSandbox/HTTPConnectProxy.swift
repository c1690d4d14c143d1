import Foundation
import JewzruxinAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP proxy that serves `CONNECT` (RFC 9110 §9.3.6) on the loopback interface, for testing
/// clients that tunnel through one: an `https` request through an HTTP proxy.
///
/// A client sends `CONNECT host:port HTTP/1.1`; the proxy checks its `Proxy-Authorization: Basic`
/// credentials when it requires some, connects to the target, answers
/// `HTTP/1.1 200 Connection established` (with a `Proxy-Agent` header, which a client must not take
/// for the response's) and relays bytes both ways, passing on a side's close to the other. Every
/// connection's ``Tunnel`` — the method, the target, the credentials, the status answered — is
/// recorded in ``tunnels`` before the proxy answers, so a test reads it as soon as its request is
/// done.
///
/// ```swift
/// let proxy = try HTTPConnectProxy(credentials: .init(username: "user", password: "secret"))
/// defer { proxy.stop() }
/// var configuration = HTTPSession.Configuration(.ephemeral)
/// configuration.proxy = .init(.http, host: "127.0.0.1", port: proxy.port)
/// configuration.proxy?.username = "user"
/// configuration.proxy?.password = "secret"
/// // … an https request on a curl session with the configuration …
/// proxy.tunnels.first?.target  // "127.0.0.1:<the server's port>"
/// ```
///
/// Refusals are answered with a status, `Connection: close` and a line of text saying why, then the
/// connection is closed: missing or wrong credentials `407` with
/// `Proxy-Authenticate: Basic realm="JewzruxinSandbox proxy"`, a host given in `refusals` its status
/// (`403`), a target that can't be resolved or connected `502` (`504` when the connect timed out),
/// a method other than `CONNECT` `405`, a target that isn't `host:port` or a malformed head `400`.
///
/// The proxy listens on `127.0.0.1` on a free port. Every connection runs on a thread of its own,
/// and another relays the target's bytes back; ``stop()`` ends them all, and closes every socket,
/// before it returns.
public final class HTTPConnectProxy: Sendable {
    /// A user name and password, as the proxy requires them in `Proxy-Authorization: Basic`.
    public typealias Credentials = SOCKSProxy.Credentials

    /// What the proxy saw and answered on one connection, as far as the client got.
    public struct Tunnel: Sendable, Hashable, ProxyRecord {
        /// The request's method; `nil` when its head could not be read.
        public var method: String?
        /// The request's target as sent: `host:port` for a `CONNECT`.
        public var target: String?
        /// The `Proxy-Authorization: Basic` credentials the client sent, decoded: the user name and
        /// the password joined by a colon (RFC 7617), kept whole since a colon in the user name
        /// makes the split ambiguous; `nil` when none were sent, or not Basic.
        public var userPass: String?
        /// Whether the client's credentials were those required; `nil` when none are.
        public var credentialsAccepted: Bool?
        /// The status the proxy answered with: `200` for a tunnel; `nil` when none was sent.
        public var status: Int?

        /// A tunnel that got nowhere yet.
        public init() {}
    }

    /// The realm of the proxy's `Proxy-Authenticate: Basic` challenge.
    public static let realm = "JewzruxinSandbox proxy"

    /// The address the proxy listens on: `127.0.0.1`.
    public let host = "127.0.0.1"
    /// The port the proxy listens on, picked by the system.
    public var port: Int { core.port }

    private let core: RelayingProxyCore<HTTPConnectHandshake>

    /// Starts a proxy on `127.0.0.1`, on a free port.
    ///
    /// - Parameters:
    ///   - credentials: The user name and password a client must send in
    ///     `Proxy-Authorization: Basic`; `nil` (the default) for a proxy that asks for none.
    ///   - refusals: Target hosts the proxy refuses (matched without regard to case, whatever the
    ///     port), with the status to answer: `["blocked.test": 403]`. Checked after the credentials.
    ///   - hosts: `nil` (the default) to resolve a target's name with the system's resolver; otherwise
    ///     the only names that resolve, to a numeric address each (`["sandbox.test": "127.0.0.1"]`):
    ///     the proxy then asks no resolver, and answers any other name with `502`.
    /// - Throws: ``SandboxError`` when the listening socket can't be set up.
    public init(credentials: Credentials? = nil, refusals: [String: Int] = [:], hosts: [String: String]? = nil) throws(SandboxError) {
        core = try RelayingProxyCore(HTTPConnectHandshake(credentials: credentials, refusals: refusals, hosts: hosts))
    }

    deinit {
        stop()
    }

    /// Runs `body` with a running proxy (made as ``init(credentials:refusals:hosts:)`` makes it),
    /// stopped afterwards on a thread of its own, so that waiting for its threads blocks no task.
    ///
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` if the proxy can't start, or what `body` throws.
    public static func withProxy<T>(
        credentials: Credentials? = nil, refusals: [String: Int] = [:], hosts: [String: String]? = nil,
        _ body: (HTTPConnectProxy) async throws -> T
    ) async throws -> T {
        let proxy = try HTTPConnectProxy(credentials: credentials, refusals: refusals, hosts: hosts)
        return try await ServerLifetime.run(proxy, stop: { $0.stop() }, body)
    }

    /// Every connection's tunnel so far, in the order they ended (each is recorded before the
    /// proxy's answer on it is sent).
    public var tunnels: [Tunnel] { core.records }

    /// The number of connections accepted so far.
    public var connectionCount: Int { core.connectionCount }

    /// Whether ``stop()`` has completed.
    public var isStopped: Bool { core.isStopped }

    /// Stops the proxy: wakes every thread (requests, connects to targets, relays), closes every
    /// socket and the listener, and returns once all the proxy's threads have finished.
    ///
    /// Idempotent and safe from any thread; it blocks while threads finish (briefly), so call it
    /// off the cooperative pool, or use ``withProxy(credentials:refusals:hosts:_:)``.
    public func stop() {
        core.stop()
    }

    /// The number of the proxy's threads (accept loop, connections, relays) still running.
    var runningThreadCount: Int { core.threads.count }
}

/// The `CONNECT` request of an ``HTTPConnectProxy``'s connection, up to the connect to the target.
struct HTTPConnectHandshake: ProxyHandshake {
    static let name = "HTTPConnectProxy"

    let credentials: HTTPConnectProxy.Credentials?
    /// Refused hosts, lowercased, with their status.
    let refusals: [String: Int]
    let hosts: [String: String]?

    init(credentials: HTTPConnectProxy.Credentials?, refusals: [String: Int], hosts: [String: String]?) {
        self.credentials = credentials
        self.refusals = Dictionary(refusals.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.hosts = hosts
    }

    func negotiate(_ client: SocketStream, _ tunnel: inout HTTPConnectProxy.Tunnel, stop: StopSignal) throws(RequestError) -> ProxyEnding {
        let head: RequestHead
        do throws(RequestError) {
            // The parser bounds the head (64 KiB) and checks every line.
            guard let read = try HTTPParser.readHead(from: client, authorityForm: true) else { throw .disconnected }
            head = read
        } catch .rejected(let status, let message) {
            return refusal(status, message, &tunnel)
        }
        tunnel.method = head.method
        tunnel.target = head.target
        guard head.method == "CONNECT" else {
            return refusal(405, "this proxy serves CONNECT only", &tunnel, headers: [("Allow", "CONNECT")])
        }
        guard let (host, port) = Self.authority(head.target) else {
            return refusal(400, "the target of a CONNECT is host:port", &tunnel)
        }
        tunnel.userPass = head.headers["Proxy-Authorization"]
            .flatMap(BasicCredentials.init(authorization:)).map { $0.username + ":" + $0.password }
        if let credentials {
            let accepted = tunnel.userPass == credentials.username + ":" + credentials.password
            tunnel.credentialsAccepted = accepted
            guard accepted else {
                return refusal(407, "proxy credentials required", &tunnel,
                               headers: [("Proxy-Authenticate", "Basic realm=\"\(HTTPConnectProxy.realm)\"")])
            }
        }
        if let status = refusals[host.lowercased()] {
            return refusal(status, "the proxy refuses \(host)", &tunnel)
        }
        switch Dialer.connect(target: host, isAddress: false, port: port, hosts: hosts, stop: stop) {
        case .success(let connected):
            tunnel.status = 200
            let head = ResponseWriter.serializeHead(
                status: 200, reason: "Connection established", headers: ["Proxy-Agent": HTTPConnectProxy.realm])
            return .answer(head, target: connected)
        case .failure(.stopped):
            throw .stopped
        case .failure(.unresolved):
            return refusal(502, "can't resolve \(host)", &tunnel)
        case .failure(.failed(let code)):
            return refusal(code == ETIMEDOUT ? 504 : 502, "can't connect to \(head.target): \(String(cString: strerror(code)))", &tunnel)
        }
    }

    /// An answer of `status` with `message` as its body, after which the connection closes.
    private func refusal(
        _ status: Int, _ message: String, _ tunnel: inout HTTPConnectProxy.Tunnel, headers: [(name: String, value: String)] = []
    ) -> ProxyEnding {
        tunnel.status = status
        let body = Data((message + "\n").utf8)
        let fields = SandboxHeaders(headers + [
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count)), ("Connection", "close"),
        ])
        return .answer(ResponseWriter.serializeHead(status: status, reason: nil, headers: fields) + body, target: nil)
    }

    /// The host (without an IPv6 literal's brackets) and port of an authority-form target; `nil`
    /// unless it is `host:port` with a port from 1 to 65535.
    static func authority(_ target: String) -> (host: String, port: Int)? {
        guard let colon = target.lastIndex(of: ":") else { return nil }
        var host = target[..<colon]
        let digits = target[target.index(after: colon)...]
        guard (1...5).contains(digits.count), digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let port = Int(digits), (1...65_535).contains(port)
        else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            return nil
        }
        guard !host.isEmpty else { return nil }
        return (String(host), port)
    }
}
