import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Basic endpoints: /hello/, /dumpupload/, /status/, /inspect/", .onItsOwnThread)
struct BasicEndpointTests {
    @Test("GET /hello/ with and without trailing slash", arguments: ["/hello/", "/hello"])
    func hello(path: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello World")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "11")
    }

    @Test("/hello/ rejects other methods with 405 and Allow")
    func helloMethodNotAllowed() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, "DELETE /hello/ HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }

    @Test("Unknown paths are 404")
    func unknownPath() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, "/no/such/thing")
        #expect(response.statusCode == 404)
        let (_, root) = try await TestSupport.get(sandbox, "/")
        #expect(root.statusCode == 404)
    }

    @Test("/dumpupload/ echoes the body byte for byte with its Content-Type", arguments: ["POST", "PUT", "PATCH"])
    func dumpUpload(method: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let body = Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let (data, response) = try await TestSupport.fetch(
            try #require(sandbox.url("/dumpupload/")),
            method: method,
            body: body,
            headers: ["Content-Type": "application/x-sandbox-test"]
        )
        #expect(response.statusCode == 200)
        #expect(data == body)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/x-sandbox-test")
    }

    @Test("/dumpupload/ without Content-Type answers application/octet-stream")
    func dumpUploadDefaultContentType() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(
            sandbox, "POST /dumpupload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde")
        #expect(response.status == 200)
        #expect(response.text == "abcde")
        #expect(response.header("Content-Type") == "application/octet-stream")
    }

    @Test("/dumpupload/ round-trips a 3 MiB upload")
    func dumpUploadLarge() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let body = SandboxBody.expectedPattern(count: 3 << 20)
        let (data, response) = try await TestSupport.fetch(
            try #require(sandbox.url("/dumpupload/")), method: "PUT", body: body)
        #expect(response.statusCode == 200)
        #expect(data.count == body.count)
        #expect(data == body)
    }

    @Test("/dumpupload/ rejects GET with 405")
    func dumpUploadRejectsGet() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, "/dumpupload/")
        #expect(response.statusCode == 405)
        #expect(response.value(forHTTPHeaderField: "Allow") == "POST, PUT, PATCH")
    }

    @Test("/status/N answers N with body `status N`", arguments: [200, 201, 202, 400, 404, 418, 500, 503, 599])
    func status(code: Int) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/status/\(code)")
        #expect(response.statusCode == code)
        #expect(String(decoding: data, as: UTF8.self) == "status \(code)")
    }

    @Test("/status/ accepts any method; 204 and 304 have no body")
    func statusWithoutBody() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let created = try client.exchange("POST /status/201/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(created.status == 201)
        #expect(created.text == "status 201")
        for code in [204, 304] {
            let response = try client.exchange(TestSupport.getRequest("/status/\(code)"))
            #expect(response.status == code)
            #expect(response.header("Content-Length") == nil)
            #expect(response.body.isEmpty)
        }
        // The connection is still in sync: nothing stray was sent after the bodiless responses.
        #expect(try client.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")
        #expect(sandbox.acceptedConnectionCount == 1)
    }

    @Test("/status/1xx sends only the interim head, then closes")
    func informationalStatus() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(TestSupport.getRequest("/status/103"))
        let head = try client.readHead(skipContinue: false)
        #expect(head.status == 103)
        #expect(head.header("Content-Length") == nil)
        #expect(client.isClosedByPeer())
    }

    @Test("/status/ rejects codes outside 100...599 and non-numbers",
          arguments: ["/status/99", "/status/600", "/status/abc", "/status/", "/status/2x0"])
    func statusInvalid(path: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 400)
    }

    /// The JSON document of `/inspect/`.
    struct Report: Decodable {
        let method: String
        let target: String
        let path: String
        let query: String
        let version: String
        let headers: [[String]]
        let body: String
        let bodyEncoding: String
        let bodyLength: Int
    }

    @Test("/inspect/ reports method, path, raw query, ordered headers and body")
    func inspectRaw() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let request = "PATCH /inspect/?b=%20x&a=1 HTTP/1.1\r\nHost: sandbox\r\nX-Zeta: z\r\nx-alpha:  a b \r\n"
            + "X-Zeta: second\r\nContent-Length: 6\r\n\r\nhéllo"
        let response = try TestSupport.raw(sandbox, request)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let report = try JSONDecoder().decode(Report.self, from: response.body)
        #expect(report.method == "PATCH")
        #expect(report.path == "/inspect/")
        #expect(report.target == "/inspect/?b=%20x&a=1")
        #expect(report.query == "b=%20x&a=1")
        #expect(report.version == "HTTP/1.1")
        #expect(report.headers == [
            ["Host", "sandbox"], ["X-Zeta", "z"], ["x-alpha", "a b"], ["X-Zeta", "second"], ["Content-Length", "6"],
        ])
        #expect(report.body == "héllo")
        #expect(report.bodyEncoding == "utf8")
        #expect(report.bodyLength == 6)
    }

    @Test("/inspect/ base64-encodes a body that is not UTF-8")
    func inspectBinary() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let body = Data([0xFF, 0xFE, 0x00, 0x80])
        let (data, response) = try await TestSupport.fetch(
            try #require(sandbox.url("/inspect?x")), method: "POST", body: body, headers: ["X-Test": "1"])
        #expect(response.statusCode == 200)
        let report = try JSONDecoder().decode(Report.self, from: data)
        #expect(report.method == "POST")
        #expect(report.path == "/inspect")
        #expect(report.query == "x")
        #expect(report.bodyEncoding == "base64")
        #expect(Data(base64Encoded: report.body) == body)
        #expect(report.bodyLength == 4)
        #expect(report.headers.contains(["X-Test", "1"]))
    }
}
