import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SOCKS5 proxy, spoken to byte by byte: the replies RFC 1928 and RFC 1929 prescribe, the
/// relay, what it records, and its stop.
@Suite("SOCKS5 proxy", .onItsOwnThread)
struct SOCKSProxyTests {
    /// A client connected to `proxy` that has been through the greeting (offering `methods`) and
    /// got `expectedMethod`.
    private func greet(_ proxy: SOCKSProxy, methods: [UInt8] = [0], expectedMethod: UInt8 = 0) throws -> RawHTTPClient {
        let client = try RawHTTPClient(port: UInt16(proxy.port))
        try client.send(Data([5, UInt8(methods.count)] + methods))
        #expect(try client.read(exactly: 2) == Data([5, expectedMethod]))
        return client
    }

    /// The bytes of a CONNECT request to `address` (ATYP and address) and `port`.
    private func connect(_ address: [UInt8], port: Int, command: UInt8 = 1) -> Data {
        Data([5, command, 0] + address + [UInt8(port >> 8), UInt8(port & 0xFF)])
    }

    private func domain(_ name: String) -> [UInt8] {
        [3, UInt8(name.utf8.count)] + Array(name.utf8)
    }

    @Test("no authentication, an IPv4 target: the reply names the bound address, bytes go both ways, the handshake is recorded")
    func ipv4Connect() throws {
        let sandbox = try Sandbox.start()
        let proxy = try SOCKSProxy(hosts: [:])
        defer { proxy.stop(); sandbox.stop() }
        let client = try greet(proxy, methods: [0, 2])
        try client.send(connect([1, 127, 0, 0, 1], port: Int(sandbox.port)))
        let reply = try client.read(exactly: 10)
        #expect(Array(reply.prefix(8)) == [5, 0, 0, 1, 127, 0, 0, 1])
        #expect(Int(reply[8]) << 8 | Int(reply[9]) != 0)

        let response = try client.exchange(TestSupport.getRequest("/echo/?content=relayed"))
        #expect(response.status == 200)
        #expect(response.text == "relayed")
        // Keep-alive: a second request on the same tunnel.
        #expect(try client.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")

        var expected = SOCKSProxy.Handshake()
        expected.offeredMethods = [.noAuthentication, .usernamePassword]
        expected.chosenMethod = .noAuthentication
        expected.command = .connect
        expected.target = .init(addressType: .ipv4, host: "127.0.0.1", port: Int(sandbox.port))
        expected.reply = .succeeded
        #expect(proxy.handshakes == [expected])
        #expect(proxy.connectionCount == 1)
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("a client that sends its request right behind the handshake has it relayed; a large body arrives whole")
    func optimisticClient() throws {
        let sandbox = try Sandbox.start()
        let proxy = try SOCKSProxy(hosts: [:])
        defer { proxy.stop(); sandbox.stop() }
        let client = try RawHTTPClient(port: UInt16(proxy.port))
        try client.send(Data([5, 1, 0]) + connect([1, 127, 0, 0, 1], port: Int(sandbox.port)) + Data(TestSupport.getRequest("/bytes/3000000").utf8))
        #expect(try client.read(exactly: 2) == Data([5, 0]))
        #expect(try client.read(exactly: 2) == Data([5, 0]))
        _ = try client.read(exactly: 8)
        let response = try client.readResponse()
        #expect(response.body.count == 3_000_000)
        #expect(response.body == Data((0..<3_000_000).map { UInt8($0 % 251) }))
    }

    @Test("a domain name is resolved by the proxy, through its hosts and no one else; an IPv6 target too")
    func domainAndIPv6() throws {
        let sandbox = try Sandbox.start()
        let proxy = try SOCKSProxy(hosts: ["Sandbox.Test": "127.0.0.1"])
        defer { proxy.stop(); sandbox.stop() }
        let named = try greet(proxy)
        try named.send(connect(domain("sandbox.test"), port: Int(sandbox.port)))
        #expect(try named.read(exactly: 4) == Data([5, 0, 0, 1]))
        _ = try named.read(exactly: 6)
        let response = try named.exchange(TestSupport.getRequest("/hello/", extraHeaders: "Connection: close\r\n"))
        #expect(response.text == "Hello World")
        // The target's close reaches the client.
        #expect(named.isClosedByPeer())
        #expect(proxy.handshakes.first?.target == .init(addressType: .domainName, host: "sandbox.test", port: Int(sandbox.port)))

        // Not in the hosts: not resolved, even a name the system knows.
        let unknown = try greet(proxy)
        try unknown.send(connect(domain("localhost"), port: Int(sandbox.port)))
        #expect(try unknown.read(exactly: 2) == Data([5, SOCKSProxy.Reply.hostUnreachable.rawValue]))
        #expect(unknown.isClosedByPeer())

        let sandbox6: Sandbox
        do {
            sandbox6 = try Sandbox.start(host: "::1")
        } catch {
            // A machine without IPv6 on loopback can't have an IPv6 target.
            return
        }
        defer { sandbox6.stop() }
        let six = try greet(proxy)
        try six.send(connect([4] + [UInt8](repeating: 0, count: 15) + [1], port: Int(sandbox6.port)))
        let reply = try six.read(exactly: 22)
        #expect(Array(reply.prefix(4)) == [5, 0, 0, 4])
        #expect(try six.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")
        #expect(proxy.handshakes.last?.target == .init(addressType: .ipv6, host: "::1", port: Int(sandbox6.port)))
        #expect(proxy.handshakes.last?.target?.description == "[::1]:\(sandbox6.port)")
    }

    @Test("required credentials: the right ones pass, wrong ones get status 1 and a close; no acceptable method gets 0xFF")
    func credentials() throws {
        let sandbox = try Sandbox.start()
        let proxy = try SOCKSProxy(credentials: .init(username: "user:name", password: "p@ss wörd"), hosts: [:])
        defer { proxy.stop(); sandbox.stop() }
        func login(_ client: RawHTTPClient, _ username: String, _ password: String) throws -> Data {
            try client.send(Data([1, UInt8(username.utf8.count)] + Array(username.utf8) + [UInt8(password.utf8.count)] + Array(password.utf8)))
            return try client.read(exactly: 2)
        }

        let right = try greet(proxy, methods: [0, 2], expectedMethod: 2)
        #expect(try login(right, "user:name", "p@ss wörd") == Data([1, 0]))
        try right.send(connect([1, 127, 0, 0, 1], port: Int(sandbox.port)))
        #expect(try right.read(exactly: 2) == Data([5, 0]))

        let wrong = try greet(proxy, methods: [0, 2], expectedMethod: 2)
        #expect(try login(wrong, "user:name", "p@ss word") == Data([1, 1]))
        #expect(wrong.isClosedByPeer())

        // Offering only "no authentication" to a proxy that requires credentials.
        _ = try greet(proxy, methods: [0], expectedMethod: 0xFF)

        let seen = proxy.handshakes
        #expect(seen.count == 3)
        #expect(seen.map(\.username) == ["user:name", "user:name", nil])
        #expect(seen.map(\.credentialsAccepted) == [true, false, nil])
        #expect(seen.map(\.chosenMethod) == [.usernamePassword, .usernamePassword, .noAcceptableMethods])
        #expect(seen.map(\.reply) == [.succeeded, nil, nil])
        #expect(seen[1].target == nil)
    }

    @Test("a proxy without credentials accepts any from a client that offers only them")
    func credentialsNotRequired() throws {
        let proxy = try SOCKSProxy(hosts: [:])
        defer { proxy.stop() }
        let client = try greet(proxy, methods: [2], expectedMethod: 2)
        try client.send(Data([1, 1, UInt8(ascii: "u"), 0]))
        #expect(try client.read(exactly: 2) == Data([1, 0]))
    }

    @Test("failures get RFC 1928's replies: refused 0x05, BIND 0x07, unknown address type 0x08")
    func failureReplies() throws {
        let refusing = try RefusingPort()
        let proxy = try SOCKSProxy(hosts: [:])
        defer { proxy.stop() }

        let refused = try greet(proxy)
        try refused.send(connect([1, 127, 0, 0, 1], port: refusing.port))
        #expect(try refused.read(exactly: 10) == Data([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]))
        #expect(refused.isClosedByPeer())

        let bind = try greet(proxy)
        try bind.send(connect([1, 127, 0, 0, 1], port: refusing.port, command: 2))
        #expect(try bind.read(exactly: 2) == Data([5, 7]))

        let unknownType = try greet(proxy)
        try unknownType.send(Data([5, 1, 0, 9]))
        #expect(try unknownType.read(exactly: 2) == Data([5, 8]))

        #expect(proxy.handshakes.map(\.reply) == [.connectionRefused, .commandNotSupported, .addressTypeNotSupported])
        #expect(proxy.handshakes[1].command == .bind)
        #expect(proxy.handshakes[1].target?.port == refusing.port)
        #expect(SOCKSHandshake.reply(forConnectError: ENETUNREACH) == .networkUnreachable)
        #expect(SOCKSHandshake.reply(forConnectError: ETIMEDOUT) == .hostUnreachable)
        #expect(SOCKSHandshake.reply(forConnectError: EACCES) == .generalFailure)
    }

    @Test("a greeting that isn't SOCKS5 is closed without a word")
    func notSOCKS5() throws {
        let proxy = try SOCKSProxy(hosts: [:])
        defer { proxy.stop() }
        let client = try RawHTTPClient(port: UInt16(proxy.port))
        try client.send(Data([4, 1, 0, 80, 127, 0, 0, 1, 0]))
        #expect(try client.readToEnd().isEmpty)
        #expect(proxy.handshakes == [SOCKSProxy.Handshake()])
    }

    @Test("stop() ends handshakes and relays at once, closes their sockets and leaves no thread")
    func stopEndsEverything() throws {
        let sandbox = try Sandbox.start()
        let proxy = try SOCKSProxy(hosts: [:])
        defer { sandbox.stop() }
        // One client mid-greeting, one relaying through an idle keep-alive connection.
        let waiting = try RawHTTPClient(port: UInt16(proxy.port))
        try waiting.send(Data([5]))
        let relaying = try greet(proxy)
        try relaying.send(connect([1, 127, 0, 0, 1], port: Int(sandbox.port)))
        _ = try relaying.read(exactly: 10)
        #expect(try relaying.exchange(TestSupport.getRequest("/hello/")).status == 200)
        expectStopsAtOnce(proxy, clients: [waiting, relaying])
        #expect(proxy.handshakes.count == 2)
    }

    @Test("withProxy stops the proxy after its body, which may throw")
    func withProxy() async throws {
        try await expectScoped { body in try await SOCKSProxy.withProxy(body) }
    }
}
