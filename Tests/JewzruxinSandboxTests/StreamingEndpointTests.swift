import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Streaming endpoints: /bytes/, /drip/, /drop/, /redirect/", .onItsOwnThread)
struct StreamingEndpointTests {
    @Test("/bytes/N serves N pattern bytes with Content-Length", arguments: [0, 1, 250, 251, 252, 100_000])
    func bytes(count: Int) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/bytes/\(count)")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "\(count)")
        #expect(data.count == count)
        #expect(data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
    }

    @Test("/bytes/N?chunked=1 uses chunked encoding in 16 KiB chunks")
    func bytesChunked() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/bytes/40000?chunked=1"))
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.chunkSizes == [16384, 16384, 7232])
        #expect(response.body == SandboxBody.expectedPattern(count: 40000))
    }

    @Test("/bytes/N?chunked=1&chunk=1000 uses the requested chunk size")
    func bytesChunkSize() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/bytes/2500/?chunked=1&chunk=1000"))
        #expect(response.chunkSizes == [1000, 1000, 500])
        #expect(response.body == SandboxBody.expectedPattern(count: 2500))
    }

    @Test("URLSession reassembles a chunked /bytes/ body")
    func bytesChunkedViaSession() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/bytes/300000?chunked=1")
        #expect(response.statusCode == 200)
        #expect(data == SandboxBody.expectedPattern(count: 300_000))
    }

    @Test("/bytes/ without a valid N is 400",
          arguments: ["/bytes/", "/bytes", "/bytes/-1", "/bytes/abc", "/bytes/3000000000", "/bytes/10?chunked=maybe",
                      "/bytes/10?chunked=1&chunk=0"])
    func bytesInvalid(path: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 400)
    }

    @Test("/drip/ sends n stars, one per interval")
    func drip() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let start = Date()
        try client.send(TestSupport.getRequest("/drip/?n=3&interval=0.15", extraHeaders: "Connection: close\r\n"))
        let head = try client.readHead()
        let headElapsed = Date().timeIntervalSince(start)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "3")
        #expect(head.header("Content-Type") == "text/plain; charset=utf-8")
        let body = try client.readToEnd()
        let elapsed = Date().timeIntervalSince(start)
        #expect(String(decoding: body, as: UTF8.self) == "***")
        // Headers come at once; the three bytes take three intervals.
        #expect(headElapsed < 0.44)
        #expect(elapsed >= 0.44)
    }

    @Test("/drip/ body arrives complete through URLSession")
    func dripViaSession() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let ((data, response), elapsed) = try await TestSupport.measure {
            try await TestSupport.get(sandbox, "/drip/?n=4&interval=0.05")
        }
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "****")
        #expect(elapsed >= 0.19)
    }

    @Test("/drip/ defaults to 10 bytes", .timeLimit(.minutes(1)))
    func dripDefaults() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, _) = try await TestSupport.get(sandbox, "/drip/?interval=0")
        #expect(String(decoding: data, as: UTF8.self) == "**********")
    }

    @Test("/drip/ rejects invalid parameters", arguments: ["/drip/?n=-1", "/drip/?n=x", "/drip/?interval=-0.5"])
    func dripInvalid(path: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 400)
    }

    @Test("/drop/?after=N announces more, sends N pattern bytes, then closes", arguments: [0, 1000, 70_000])
    func drop(after: Int) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(TestSupport.getRequest("/drop/?after=\(after)"))
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "\(after * 2 + 100)")
        let body = try client.readToEnd()
        #expect(body == SandboxBody.expectedPattern(count: after))
    }

    @Test("/drop/?chunked=1 sends N bytes in chunks and closes without the last chunk")
    func dropChunked() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(TestSupport.getRequest("/drop/?after=40000&chunked=1"))
        let head = try client.readHead()
        #expect(head.header("Transfer-Encoding") == "chunked")
        var rest = try client.readToEnd()[...]
        var payload = Data()
        var sizes: [Int] = []
        while let lineEnd = rest.firstIndex(of: 0x0A) {
            let sizeLine = String(decoding: rest[..<lineEnd], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let size = try #require(Int(sizeLine, radix: 16))
            sizes.append(size)
            let start = rest.index(after: lineEnd)
            payload.append(rest[start..<(start + size)])
            rest = rest[(start + size + 2)...]
        }
        #expect(rest.isEmpty)
        #expect(sizes == [16384, 16384, 7232])
        #expect(!sizes.contains(0))
        #expect(payload == SandboxBody.expectedPattern(count: 40000))
    }

    @Test("URLSession reports an error for a dropped response")
    func dropViaSession() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let url = try #require(sandbox.url("/drop/?after=500"))
        await #expect(throws: (any Error).self) {
            _ = try await TestSupport.fetch(url)
        }
    }

    @Test("/redirect/ defaults to 302 to /hello/")
    func redirectDefaults() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/redirect/"))
        #expect(response.status == 302)
        #expect(response.header("Location") == "/hello/")
    }

    @Test("/redirect/ uses code and to, for any method", arguments: [301, 302, 303, 307, 308])
    func redirectCodes(code: Int) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let target = TestSupport.path("/redirect", [("code", "\(code)"), ("to", "https://example.com/a?b=c")])
        let response = try TestSupport.raw(
            sandbox, "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(response.status == code)
        #expect(response.header("Location") == "https://example.com/a?b=c")
    }

    @Test("/redirect/ rejects other codes and bad targets",
          arguments: ["/redirect/?code=300", "/redirect/?code=200", "/redirect/?code=x", "/redirect/?to=",
                      "/redirect/?to=%0D%0Aevil"])
    func redirectInvalid(path: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.status == 400)
        #expect(response.header("Location") == nil)
    }

    @Test("URLSession follows /redirect/ to the target")
    func redirectFollowed() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/redirect/?code=301&to=/echo/%3Fcontent%3Dmoved")
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "moved")
        // Note: swift-corelibs-foundation drops the trailing slash of a relative Location
        // (it requests /echo?content=moved); the sandbox serves both spellings.
        #expect(response.url?.query == "content=moved")

        let (reportData, _) = try await TestSupport.get(sandbox, "/redirect/?code=307&to=/inspect/%3Fx%3D1")
        let report = try JSONDecoder().decode(BasicEndpointTests.Report.self, from: reportData)
        #expect(report.method == "GET")
        #expect(report.path.hasPrefix("/inspect"))
        #expect(report.query == "x=1")
    }
}
