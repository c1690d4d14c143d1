import Foundation
import Testing
@testable import JewzruxinSandbox
import JewzruxinTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("/echo/: status, content, charsets, headers, delay", .onItsOwnThread)
struct EchoEndpointTests {
    @Test("Defaults: 200, empty body, UTF-8 text")
    func defaults() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/echo")
        #expect(response.statusCode == 200)
        #expect(data.isEmpty)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "0")
    }

    @Test("code and content set the status and body")
    func codeAndContent() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("code", "201"), ("content", "hi there & 中文 + more")])
        let (data, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self) == "hi there & 中文 + more")
        #expect(Data("hi there & 中文 + more".utf8) == data)
    }

    @Test("Error statuses still carry the content", arguments: [400, 404, 500, 503])
    func errorStatus(code: Int) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (data, response) = try await TestSupport.get(sandbox, "/echo/?code=\(code)&content=oops")
        #expect(response.statusCode == code)
        #expect(String(decoding: data, as: UTF8.self) == "oops")
    }

    @Test("code=204 sends no body even with content")
    func noContent() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        let response = try client.exchange(TestSupport.getRequest("/echo/?code=204&content=ignored"))
        #expect(response.status == 204)
        #expect(response.header("Content-Length") == nil)
        #expect(try client.exchange(TestSupport.getRequest("/hello/")).text == "Hello World")
    }

    @Test("Invalid code is 400", arguments: ["600", "99", "abc", "2.5", ""])
    func invalidCode(code: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, "/echo/?code=\(code)")
        #expect(response.statusCode == 400)
    }

    static let encodings: [(label: String, content: String, hex: String)] = [
        ("gb18030", "中文", "D6D0CEC4"),
        ("gbk", "中文", "D6D0CEC4"),
        ("GB18030", "中文€", "D6D0CEC4A2E3"),
        ("big5", "中文", "A4A4A4E5"),
        ("shift_jis", "日本", "93FA967B"),
        ("euc-kr", "한국", "C7D1B1B9"),
        ("koi8-r", "привет", "D0D2C9D7C5D4"),
        ("windows-1252", "é", "E9"),
        ("windows-1252", "€", "80"),
        ("iso-8859-1", "é", "E9"),
        ("utf-16le", "é中", "E9002D4E"),
        ("utf-16be", "é中", "00E94E2D"),
        ("utf-8", "é中", "C3A9E4B8AD"),
    ]

    @Test("encoding converts the content and labels the charset as given", arguments: encodings)
    func encoding(label: String, content: String, hex: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("content", content), ("encoding", label)])
        let (data, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 200)
        #expect(TestSupport.hex(data) == TestSupport.hex(TestSupport.bytes(hex: hex)))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=\(label)")
    }

    @Test("Unknown charset label or unencodable content is 400",
          arguments: [("no-such-charset", "abc"), ("iso-8859-1", "中"), ("koi8-r", "é"), ("", "abc")])
    func encodingFailure(label: String, content: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("content", content), ("encoding", label)])
        let (data, response) = try await TestSupport.get(sandbox, path)
        #expect(response.statusCode == 400)
        #expect(!data.isEmpty)
    }

    @Test("Repeated header parameters become repeated header lines, in order")
    func repeatedHeaders() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [
            ("header", "X-Multi:one"), ("header", "X-Other: middle "), ("header", "x-multi:two"), ("content", "ok"),
        ])
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.status == 200)
        #expect(response.values(for: "X-Multi") == ["one", "two"])
        let names = response.headers.map(\.name)
        #expect(names == ["Content-Type", "X-Multi", "X-Other", "x-multi", "Content-Length"])
        #expect(response.header("X-Other") == "middle")
        #expect(response.text == "ok")
    }

    @Test("A Content-Type header replaces the default one")
    func contentTypeReplaced() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("header", "Content-Type:application/json"), ("content", "{}")])
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.values(for: "Content-Type") == ["application/json"])
        #expect(response.text == "{}")
    }

    @Test("An empty Content-Type header removes Content-Type entirely")
    func contentTypeRemoved() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("header", "Content-Type:"), ("content", "raw"), ("encoding", "gbk")])
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == nil)
        #expect(response.text == "raw")
        let (_, viaSession) = try await TestSupport.get(sandbox, path)
        #expect(viaSession.statusCode == 200)
    }

    @Test("Malformed or reserved header parameters are 400",
          arguments: ["no-colon", ":value", "Bad Name:x", "Content-Length:5", "transfer-encoding:chunked",
                      "Connection:close"])
    func badHeaderParameter(header: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, TestSupport.path("/echo/", [("header", header)]))
        #expect(response.statusCode == 400)
    }

    @Test("A header value with CR LF cannot split the response")
    func headerInjection() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/echo/", [("header", "X-A:1\r\nX-Injected: yes")])
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(response.status == 400)
        #expect(response.header("X-Injected") == nil)
    }

    @Test("delay waits before responding")
    func delay() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let ((data, response), elapsed) = try await TestSupport.measure {
            try await TestSupport.get(sandbox, "/echo/?delay=0.3&content=late")
        }
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "late")
        #expect(elapsed >= 0.29)
        // Loose: with many tests at once the awaiting task can wait seconds for a pool thread.
        #expect(elapsed < 29)
    }

    @Test("a client that leaves during the delay frees its connection at once, not when the delay ends")
    func clientLeavesDuringDelay() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let client = try RawHTTPClient(port: sandbox.port)
        try client.send(TestSupport.getRequest("/echo/?delay=30&content=late"))
        #expect(await eventually(timeout: 10) { sandbox.openConnectionCount == 1 })
        client.close()
        // Well before the 30 s delay: the connection's thread saw the client go.
        #expect(await eventually(timeout: 10) { sandbox.openConnectionCount == 0 && sandbox.runningThreadCount == 1 })
    }

    @Test("Invalid delay is 400", arguments: ["-1", "abc", "nan", "inf"])
    func invalidDelay(delay: String) async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, response) = try await TestSupport.get(sandbox, "/echo/?delay=\(delay)")
        #expect(response.statusCode == 400)
    }
}
