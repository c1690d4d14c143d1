import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

/// The HTTP CONNECT proxy, spoken to byte by byte: the tunnel and its relay, the credentials it
/// requires, its refusals, what it records, and its stop.
@Suite("HTTP CONNECT proxy", .onItsOwnThread)
struct HTTPConnectProxyTests {
    /// A client connected to `proxy` that has sent `CONNECT target` with `headers`, and the
    /// proxy's answer's head.
    private func connect(_ proxy: HTTPConnectProxy, _ target: String, headers: String = "") throws -> (RawHTTPClient, RawResponse) {
        let client = try RawHTTPClient(port: UInt16(proxy.port))
        try client.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\(headers)\r\n")
        return (client, try client.readHead())
    }

    private func basic(_ userPass: String) -> String {
        "Proxy-Authorization: Basic \(Data(userPass.utf8).base64EncodedString())\r\n"
    }

    @Test("CONNECT to the sandbox: 200 Connection established, then requests go through the tunnel; the tunnel is recorded")
    func tunnel() throws {
        let sandbox = try Sandbox.start()
        let proxy = try HTTPConnectProxy(hosts: ["Sandbox.Test": "127.0.0.1"])
        defer { proxy.stop(); sandbox.stop() }
        let (client, answer) = try connect(proxy, "sandbox.test:\(sandbox.port)")
        #expect(answer.statusLine == "HTTP/1.1 200 Connection established")
        #expect(answer.header("Proxy-Agent") == HTTPConnectProxy.realm)
        #expect(try client.exchange(TestSupport.getRequest("/echo/?content=tunnelled")).text == "tunnelled")
        // Keep-alive: a second request on the same tunnel; then the target's close reaches the client.
        #expect(try client.exchange(TestSupport.getRequest("/hello/", extraHeaders: "Connection: close\r\n")).text == "Hello World")
        #expect(client.isClosedByPeer())

        var expected = HTTPConnectProxy.Tunnel()
        expected.method = "CONNECT"
        expected.target = "sandbox.test:\(sandbox.port)"
        expected.status = 200
        #expect(proxy.tunnels == [expected])
        #expect(proxy.connectionCount == 1)
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("a request sent right behind the CONNECT is relayed; a large body arrives whole")
    func optimisticClient() throws {
        let sandbox = try Sandbox.start()
        let proxy = try HTTPConnectProxy()
        defer { proxy.stop(); sandbox.stop() }
        let client = try RawHTTPClient(port: UInt16(proxy.port))
        try client.send("CONNECT 127.0.0.1:\(sandbox.port) HTTP/1.1\r\n\r\n" + TestSupport.getRequest("/bytes/3000000"))
        #expect(try client.readHead().status == 200)
        let response = try client.readResponse()
        #expect(response.body == Data((0..<3_000_000).map { UInt8($0 % 251) }))
    }

    @Test("required credentials: none or wrong ones get 407 with a Basic challenge and a close; the right ones, a colon in the user name, pass")
    func credentials() throws {
        let sandbox = try Sandbox.start()
        let proxy = try HTTPConnectProxy(credentials: .init(username: "us:er", password: "p@ss wörd"))
        defer { proxy.stop(); sandbox.stop() }
        let target = "127.0.0.1:\(sandbox.port)"

        let (none, challenged) = try connect(proxy, target)
        #expect(challenged.status == 407)
        #expect(challenged.header("Proxy-Authenticate") == "Basic realm=\"\(HTTPConnectProxy.realm)\"")
        #expect(challenged.header("Connection") == "close")
        #expect(none.isClosedByPeer())

        let (wrong, refused) = try connect(proxy, target, headers: basic("us:er:p@ss word"))
        #expect(refused.status == 407)
        #expect(wrong.isClosedByPeer())

        let (right, accepted) = try connect(proxy, target, headers: basic("us:er:p@ss wörd"))
        #expect(accepted.status == 200)
        #expect(try right.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")

        let seen = proxy.tunnels
        #expect(seen.map(\.userPass) == [nil, "us:er:p@ss word", "us:er:p@ss wörd"])
        #expect(seen.map(\.credentialsAccepted) == [false, false, true])
        #expect(seen.map(\.status) == [407, 407, 200])
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("refusals: a listed host gets its status, a refused connect 502, a name outside hosts 502, another method 405, a bad target 400")
    func refusals() throws {
        let closed = try RefusingPort()
        let proxy = try HTTPConnectProxy(refusals: ["Blocked.Test": 403], hosts: ["blocked.test": "127.0.0.1", "open.test": "127.0.0.1"])
        defer { proxy.stop() }

        let (blocked, forbidden) = try connect(proxy, "blocked.test:443")
        #expect(forbidden.status == 403)
        #expect(blocked.isClosedByPeer())
        #expect(try connect(proxy, "open.test:\(closed.port)").1.status == 502)
        #expect(try connect(proxy, "unknown.test:443").1.status == 502)

        let get = try RawHTTPClient(port: UInt16(proxy.port))
        let notAllowed = try get.exchange("GET http://open.test/ HTTP/1.1\r\nHost: open.test\r\n\r\n")
        #expect(notAllowed.status == 405)
        #expect(notAllowed.header("Allow") == "CONNECT")
        for target in ["open.test", "open.test:0", "open.test:99999", ":443", "::1:443", "[]:443", "/path"] {
            #expect(try connect(proxy, target).1.status == 400, "\(target)")
        }
        let garbage = try RawHTTPClient(port: UInt16(proxy.port))
        try garbage.send("\u{1}\u{2}\r\n\r\n")
        #expect(try garbage.readResponse().status == 400)
        let huge = try RawHTTPClient(port: UInt16(proxy.port))
        try huge.send("CONNECT a:1 HTTP/1.1\r\nX: " + String(repeating: "x", count: 70_000) + "\r\n\r\n")
        #expect(try huge.readResponse().status == 400)

        #expect(proxy.tunnels.prefix(4).map(\.status) == [403, 502, 502, 405])
        #expect(proxy.tunnels[3].method == "GET")
        #expect(proxy.tunnels.last?.method == nil)
        let literal = try #require(HTTPConnectHandshake.authority("[::1]:8443"))
        #expect(literal.host == "::1" && literal.port == 8443)
    }

    @Test("stop() ends requests and tunnels at once, closes their sockets and leaves no thread")
    func stopEndsEverything() throws {
        let sandbox = try Sandbox.start()
        let proxy = try HTTPConnectProxy()
        defer { sandbox.stop() }
        let waiting = try RawHTTPClient(port: UInt16(proxy.port))
        try waiting.send("CONNECT 127.0.0.1:")
        let (relaying, answer) = try connect(proxy, "127.0.0.1:\(sandbox.port)")
        #expect(answer.status == 200)
        #expect(try relaying.exchange(TestSupport.getRequest("/hello/")).status == 200)
        expectStopsAtOnce(proxy, clients: [waiting, relaying])
        #expect(proxy.tunnels.count == 2)
    }

    @Test("withProxy stops the proxy after its body, which may throw")
    func withProxy() async throws {
        try await expectScoped { body in try await HTTPConnectProxy.withProxy(body) }
    }
}
