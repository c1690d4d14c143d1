import Foundation
import JewzruxinPrimitives

/// A SOCKS5 proxy (RFC 1928) on the loopback interface, for testing clients that go through one.
///
/// It serves the `CONNECT` command only, with no authentication or with a user name and password
/// (RFC 1929), to targets given as an IPv4 address, a domain name or an IPv6 address. Once it has
/// connected to the target it relays bytes both ways, passing on a side's close to the other, and
/// every connection's ``Handshake`` — the methods offered, the user name, the target and its address
/// type, the reply — is recorded in ``handshakes`` before the proxy answers, so a test reads it as
/// soon as its request is done.
///
/// ```swift
/// let sandbox = try Sandbox.start()
/// let proxy = try SOCKSProxy(credentials: .init(username: "user", password: "secret"),
///                            hosts: ["sandbox.test": "127.0.0.1"])
/// defer { proxy.stop(); sandbox.stop() }
/// var configuration = HTTPSession.Configuration(.ephemeral)
/// configuration.proxy = .init(.socks5, host: "127.0.0.1", port: proxy.port)
/// configuration.proxy?.username = "user"
/// configuration.proxy?.password = "secret"
/// let session = HTTPSession(configuration: configuration, transport: .curl)
/// let cycle = try await HTTPCycle.get("http://sandbox.test:\(sandbox.port)/hello/", session: session)
/// proxy.handshakes.first?.target  // sandbox.test:<port>, a domain name
/// ```
///
/// A failure gets the reply RFC 1928 names for it: a refused connection `0x05`, a name that doesn't
/// resolve or an unreachable host `0x04`, a command other than `CONNECT` `0x07`, an unknown address
/// type `0x08`; wrong credentials get the RFC 1929 status `0x01`, and a client that offers no method
/// the proxy accepts gets `0xFF`. The connection is then closed.
///
/// The proxy listens on `127.0.0.1` on a free port. Every connection runs on a thread of its own,
/// and another relays the target's bytes back; ``stop()`` ends them all, and closes every socket,
/// before it returns.
public final class SOCKSProxy: Sendable {
    /// A user name and password (RFC 1929), as the proxy requires them or a client sends them.
    public struct Credentials: Sendable, Hashable {
        /// The user name (at most 255 bytes of UTF-8).
        public var username: String
        /// The password (at most 255 bytes of UTF-8).
        public var password: String

        /// Credentials.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// An authentication method of RFC 1928 §3, as a client offers it.
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The method's number.
        public var rawValue: UInt8
        /// The method numbered `rawValue`.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `0x00`: no authentication.
        public static let noAuthentication = Method(rawValue: 0x00)
        /// `0x01`: GSSAPI (RFC 1961), which the proxy never chooses.
        public static let gssapi = Method(rawValue: 0x01)
        /// `0x02`: user name and password (RFC 1929).
        public static let usernamePassword = Method(rawValue: 0x02)
        /// `0xFF`: the proxy's answer when it accepts none of the methods offered.
        public static let noAcceptableMethods = Method(rawValue: 0xFF)

        public var description: String {
            switch self {
            case .noAuthentication: "no authentication"
            case .gssapi: "GSSAPI"
            case .usernamePassword: "username/password"
            case .noAcceptableMethods: "no acceptable methods"
            default: "method 0x" + String(rawValue, radix: 16)
            }
        }
    }

    /// A command of a SOCKS request (RFC 1928 §4); the proxy serves ``connect`` only.
    public struct Command: RawRepresentable, Sendable, Hashable {
        /// The command's number.
        public var rawValue: UInt8
        /// The command numbered `rawValue`.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `0x01`: a TCP connection to the target.
        public static let connect = Command(rawValue: 0x01)
        /// `0x02`: a connection from the target; answered with ``Reply/commandNotSupported``.
        public static let bind = Command(rawValue: 0x02)
        /// `0x03`: UDP relaying; answered with ``Reply/commandNotSupported``.
        public static let udpAssociate = Command(rawValue: 0x03)
    }

    /// How a request names its target (RFC 1928 §5).
    public enum AddressType: UInt8, Sendable, Hashable {
        /// Four bytes of IPv4 address.
        case ipv4 = 0x01
        /// A host name, which the proxy resolves: what a client that leaves name resolution to the
        /// proxy (curl's `socks5h`) sends.
        case domainName = 0x03
        /// Sixteen bytes of IPv6 address.
        case ipv6 = 0x04
    }

    /// The reply to a request (RFC 1928 §6).
    public enum Reply: UInt8, Sendable, Hashable {
        /// The target is connected; relaying follows.
        case succeeded = 0x00
        /// Any other failure.
        case generalFailure = 0x01
        /// Refused by the proxy's rules (this proxy has none).
        case notAllowed = 0x02
        /// No route to the target's network.
        case networkUnreachable = 0x03
        /// The target's name did not resolve, or the host could not be reached.
        case hostUnreachable = 0x04
        /// The target refused the connection.
        case connectionRefused = 0x05
        /// The connection attempt expired.
        case ttlExpired = 0x06
        /// The command is not `CONNECT`.
        case commandNotSupported = 0x07
        /// The address type is none of the three.
        case addressTypeNotSupported = 0x08
    }

    /// Where a request asks to be connected.
    public struct Target: Sendable, Hashable, CustomStringConvertible {
        /// How the client named the target.
        public var addressType: AddressType
        /// The host: the name as sent, or the address as text (`127.0.0.1`, `::1`).
        public var host: String
        /// The TCP port.
        public var port: Int

        /// A target.
        public init(addressType: AddressType, host: String, port: Int) {
            self.addressType = addressType
            self.host = host
            self.port = port
        }

        /// `host:port`, with an IPv6 address in brackets.
        public var description: String {
            (addressType == .ipv6 ? "[\(host)]" : host) + ":\(port)"
        }
    }

    /// What the proxy saw and answered on one connection, as far as the client got.
    public struct Handshake: Sendable, Hashable, ProxyRecord {
        /// The methods the client offered, in its order.
        public var offeredMethods: [Method] = []
        /// The method the proxy chose (``Method/noAcceptableMethods`` when none would do); `nil`
        /// when the client's greeting was not SOCKS5.
        public var chosenMethod: Method?
        /// The user name the client sent, when it authenticated with one.
        public var username: String?
        /// Whether the proxy accepted the client's user name and password; `nil` when none were
        /// asked for.
        public var credentialsAccepted: Bool?
        /// The command of the request; `nil` when the client got no further.
        public var command: Command?
        /// The target of the request, when it could be read.
        public var target: Target?
        /// The proxy's reply to the request; `nil` when none was sent.
        public var reply: Reply?

        /// A handshake that got nowhere yet.
        public init() {}
    }

    /// The address the proxy listens on: `127.0.0.1`.
    public let host = "127.0.0.1"
    /// The port the proxy listens on, picked by the system.
    public var port: Int { core.port }

    private let core: RelayingProxyCore<SOCKSHandshake>

    /// Starts a proxy on `127.0.0.1`, on a free port.
    ///
    /// - Parameters:
    ///   - credentials: The user name and password a client must send (RFC 1929); `nil` (the default)
    ///     for a proxy that asks for none (a client that offers only user name and password then has
    ///     any accepted).
    ///   - hosts: `nil` (the default) to resolve a target's name with the system's resolver; otherwise
    ///     the only names that resolve, to a numeric address each (`["sandbox.test": "127.0.0.1"]`):
    ///     the proxy then asks no resolver, and answers any other name with
    ///     ``Reply/hostUnreachable``. A test proves so that a name reached the proxy unresolved, since
    ///     nothing else can resolve it, and stays off the network's DNS.
    /// - Throws: ``SandboxError`` when the listening socket can't be set up.
    public init(credentials: Credentials? = nil, hosts: [String: String]? = nil) throws(SandboxError) {
        core = try RelayingProxyCore(SOCKSHandshake(credentials: credentials, hosts: hosts))
    }

    deinit {
        stop()
    }

    /// Runs `body` with a running proxy (made as ``init(credentials:hosts:)`` makes it), stopped
    /// afterwards on a thread of its own, so that waiting for its threads blocks no task.
    ///
    /// - Parameters:
    ///   - credentials: The user name and password a client must send; `nil` for none.
    ///   - hosts: The only names that resolve, to an address each; `nil` for the system's resolver.
    ///   - body: What to do with the proxy.
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` if the proxy can't start, or what `body` throws.
    public static func withProxy<T>(
        credentials: Credentials? = nil, hosts: [String: String]? = nil, _ body: (SOCKSProxy) async throws -> T
    ) async throws -> T {
        try await ServerLifetime.run(try SOCKSProxy(credentials: credentials, hosts: hosts), stop: { $0.stop() }, body)
    }

    /// Every connection's handshake so far, in the order they ended (each is recorded before the
    /// proxy's last answer on it is sent).
    public var handshakes: [Handshake] { core.records }

    /// The number of connections accepted so far.
    public var connectionCount: Int { core.connectionCount }

    /// Whether ``stop()`` has completed.
    public var isStopped: Bool { core.isStopped }

    /// Stops the proxy: wakes every thread (handshakes, connects to targets, relays), closes every
    /// socket and the listener, and returns once all the proxy's threads have finished; the port then
    /// refuses connections.
    ///
    /// Idempotent and safe from any thread; it blocks while threads finish (briefly), so call it
    /// off the cooperative pool, or use ``withProxy(credentials:hosts:_:)``.
    public func stop() {
        core.stop()
    }

    /// The number of the proxy's threads (accept loop, connections, relays) still running.
    var runningThreadCount: Int { core.threads.count }
}
