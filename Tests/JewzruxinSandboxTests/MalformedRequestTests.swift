import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

@Suite("Malformed requests get 400 and a closed connection, never a crash", .onItsOwnThread)
struct MalformedRequestTests {
    static let badRequests: [(name: String, request: String)] = [
        ("garbage request line", "GARBAGE\r\n\r\n"),
        ("missing version", "GET /hello/\r\n\r\n"),
        ("extra spaces in request line", "GET  /hello/ HTTP/1.1\r\n\r\n"),
        ("lowercase protocol", "GET /hello/ http/1.1\r\n\r\n"),
        ("target without slash", "GET hello HTTP/1.1\r\n\r\n"),
        ("control byte in target", "GET /he\u{01}llo HTTP/1.1\r\n\r\n"),
        ("header without colon", "GET /hello/ HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"),
        ("space in header name", "GET /hello/ HTTP/1.1\r\nX Bad: a\r\n\r\n"),
        ("space before colon", "GET /hello/ HTTP/1.1\r\nX-Bad : a\r\n\r\n"),
        ("empty header name", "GET /hello/ HTTP/1.1\r\n: a\r\n\r\n"),
        ("obsolete line folding", "GET /hello/ HTTP/1.1\r\nX-A: a\r\n  folded\r\n\r\n"),
        ("non-numeric Content-Length", "POST /dumpupload/ HTTP/1.1\r\nContent-Length: abc\r\n\r\n"),
        ("negative Content-Length", "POST /dumpupload/ HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
        ("conflicting Content-Length",
         "POST /dumpupload/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef"),
        ("overflowing Content-Length", "POST /dumpupload/ HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
        ("body over 64 MiB", "POST /dumpupload/ HTTP/1.1\r\nContent-Length: 67108865\r\n\r\nabc"),
        ("bad chunk size", "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n"),
        ("empty chunk size", "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\r\nabc\r\n0\r\n\r\n"),
        ("chunk over 64 MiB", "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\nabc"),
        ("chunk data too long",
         "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n"),
        ("Transfer-Encoding with Content-Length",
         "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
        ("unsupported Transfer-Encoding", "POST /dumpupload/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"),
        ("header section over 64 KiB",
         "GET /hello/ HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n"),
        ("many headers over 64 KiB",
         "GET /hello/ HTTP/1.1\r\n"
            + String(repeating: "X-Many: " + String(repeating: "a", count: 30) + "\r\n", count: 2500) + "\r\n"),
    ]

    @Test("Malformed request is answered with 400 and closed", arguments: badRequests)
    func malformed(name: String, request: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange(request)
        #expect(response.status == 400, "\(name)")
        #expect(response.header("Connection") == "close", "\(name)")
        #expect(!response.body.isEmpty, "\(name)")
        #expect(client.isClosedByPeer(), "\(name)")
        // The server is still alive and well.
        let hello = try TestSupport.raw(sandbox, TestSupport.getRequest("/hello/"))
        #expect(hello.text == "Hello World", "\(name)")
    }

    @Test("Binary garbage is answered with 400")
    func binaryGarbage() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(Data([0x00, 0xFF, 0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x0D, 0x0A, 0x0D, 0x0A]))
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(client.isClosedByPeer())
    }

    @Test("A header section without end, beyond 64 KiB, is rejected without waiting for more")
    func endlessHeaders() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send("GET /hello/ HTTP/1.1\r\nX-Endless: " + String(repeating: "b", count: 66_000))
        let response = try client.readResponse()
        #expect(response.status == 400)
    }

    @Test("Unsupported HTTP version is 505", arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/1.2"])
    func unsupportedVersion(version: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange("GET /hello/ \(version)\r\nHost: x\r\n\r\n")
        #expect(response.status == 505)
        #expect(client.isClosedByPeer())
    }

    @Test("The server survives a burst of malformed connections")
    func burst() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        for (_, request) in Self.badRequests.prefix(12) {
            let client = try RawHTTPClient(port: sandbox.port)
            try client.send(request)
            client.close()
        }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/hello/"))
        #expect(response.status == 200)
        #expect(sandbox.acceptedConnectionCount == 13)
    }
}
