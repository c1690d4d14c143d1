import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP/1.1 connection handling", .onItsOwnThread)
struct ConnectionBehaviourTests {
    @Test("Keep-alive: several requests share one connection")
    func keepAlive() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        for index in 0..<3 {
            let response = try client.exchange(TestSupport.getRequest("/echo/?content=\(index)"))
            #expect(response.status == 200)
            #expect(response.text == "\(index)")
            #expect(response.header("Connection") == nil)
        }
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("URLSession reuses a persistent connection")
    func keepAliveViaSession() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        for _ in 0..<5 {
            let (data, _) = try await TestSupport.fetch(try #require(sandbox.url("/hello/")), session: session)
            #expect(String(decoding: data, as: UTF8.self) == "Hello World")
        }
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("Pipelined requests are answered in order")
    func pipelining() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let first = TestSupport.getRequest("/echo/?content=first")
        try client.send(first + TestSupport.getRequest("/echo/?content=second"))
        #expect(try client.readResponse().text == "first")
        #expect(try client.readResponse().text == "second")
    }

    @Test("Connection: close is honoured")
    func connectionClose() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange(TestSupport.getRequest("/hello/", extraHeaders: "Connection: close\r\n"))
        #expect(response.text == "Hello World")
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByPeer())
    }

    @Test("HTTP/1.0 closes by default")
    func http10Closes() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange("GET /hello/ HTTP/1.0\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.statusLine.hasPrefix("HTTP/1.1 200"))
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByPeer())
    }

    @Test("HTTP/1.0 with Connection: keep-alive stays open")
    func http10KeepAlive() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let request = "GET /hello/ HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
        let first = try client.exchange(request)
        #expect(first.header("Connection") == "keep-alive")
        let second = try client.exchange(request)
        #expect(second.text == "Hello World")
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("HTTP/1.0 gets chunked responses unframed, delimited by close")
    func http10Chunked() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange("GET /bytes/1000?chunked=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("Content-Length") == nil)
        #expect(response.body == SandboxBody.expectedPattern(count: 1000))
    }

    @Test("HEAD gets the GET headers and no body",
          arguments: ["/hello/", "/bytes/1000000", "/echo/?content=abc", "/drop/?after=10"])
    func head(path: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(TestSupport.getRequest(path, extraHeaders: "Connection: close\r\n"))
        let get = try client.readHead()
        let headClient = try RawHTTPClient(port: sandbox.port)
        let head = try headClient.exchange(TestSupport.getRequest(path, method: "HEAD"), head: true)
        #expect(head.status == get.status)
        #expect(head.header("Content-Length") == get.header("Content-Length"))
        #expect(head.header("Content-Type") == get.header("Content-Type"))
        // No body bytes follow: the next response on the connection parses cleanly.
        #expect(try headClient.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")
    }

    @Test("A chunked request body is de-chunked (extensions and trailers allowed)")
    func chunkedRequestBody() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let request = "POST /dumpupload/ HTTP/1.1\r\nHost: x\r\n"
            + "Transfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
            + "7\r\nHello, \r\n8;ext=1\r\nchunked \r\nA\r\n world!!!!\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let response = try client.exchange(request)
        #expect(response.status == 200)
        #expect(response.text == "Hello, chunked  world!!!!")
        #expect(response.header("Content-Type") == "text/plain")
        // The connection stays usable after the trailer section.
        #expect(try client.exchange(TestSupport.getRequest("/hello/")).status == 200)
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send("PUT /dumpupload/ HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readHead(skipContinue: false)
        #expect(interim.status == 100)
        try client.send("body")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "body")
    }

    @Test("Absolute-form request targets are routed by their path")
    func absoluteForm() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(
            sandbox, TestSupport.getRequest("http://127.0.0.1:\(sandbox.port)/echo/?content=abs"))
        #expect(response.status == 200)
        #expect(response.text == "abs")
    }

    @Test("A client that disconnects mid-request does not disturb the server")
    func truncatedRequest() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        do {
            let client = try RawHTTPClient(port: sandbox.port)
            try client.send("POST /dumpupload/ HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly a little")
            client.close()
        }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/hello/"))
        #expect(response.text == "Hello World")
    }
}
