import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

@Suite("Parsing and value types (no sockets)", .onItsOwnThread)
struct ParsingUnitTests {
    @Test("SandboxHeaders keeps order and looks names up case-insensitively")
    func headers() {
        var headers: SandboxHeaders = ["Content-Type": "text/plain", "X-Tag": "a"]
        headers.add("x-tag", "b")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-TAG") == ["a", "b"])
        #expect(headers.contains("X-Tag"))
        headers.set("X-TAG", "c")
        #expect(headers.pairs.map(\.name) == ["Content-Type", "X-TAG"])
        #expect(headers.values(for: "x-tag") == ["c"])
        headers.remove("CONTENT-TYPE")
        #expect(headers.count == 1)
        #expect(headers["Content-Type"] == nil)
        #expect(Array(headers).map(\.value) == ["c"])
    }

    @Test("SandboxRequest splits the target and decodes query items")
    func requestTarget() {
        let request = SandboxRequest(target: "/echo/?a=1&b=%E4%B8%AD&c&d=x+y&e=%zz&&f=1=2&a=3")
        #expect(request.path == "/echo/")
        #expect(request.rawQuery == "a=1&b=%E4%B8%AD&c&d=x+y&e=%zz&&f=1=2&a=3")
        #expect(request.queryItems.map(\.name) == ["a", "b", "c", "d", "e", "f", "a"])
        #expect(request.queryItems.map(\.value) == ["1", "中", "", "x+y", "%zz", "1=2", "3"])
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValues("a") == ["1", "3"])
        #expect(request.queryValue("missing") == nil)

        let absolute = SandboxRequest(target: "http://127.0.0.1:80/x/y?z=1")
        #expect(absolute.path == "/x/y")
        #expect(absolute.rawQuery == "z=1")
        #expect(SandboxRequest(target: "http://host").path == "/")
        #expect(SandboxRequest(target: "/p").rawQuery == "")
    }

    @Test("Request line parsing")
    func requestLine() throws {
        let head = try HTTPParser.parseRequestLine(Array("PUT /a?b HTTP/1.0".utf8))
        #expect(head.method == "PUT")
        #expect(head.target == "/a?b")
        #expect(head.isHTTP10)
        #expect(!head.wantsKeepAlive)
        for bad in ["", "GET", "GET /", "GET / HTTP/1.1 x", "G(T / HTTP/1.1", "GET / HTTP/x"] {
            #expect(throws: RequestError.self) { try HTTPParser.parseRequestLine(Array(bad.utf8)) }
        }
        #expect(throws: RequestError.rejected(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are supported")) {
            try HTTPParser.parseRequestLine(Array("GET / HTTP/3.0".utf8))
        }
    }

    @Test("Header line parsing trims whitespace and keeps non-UTF-8 bytes as Latin-1")
    func headerLine() throws {
        let field = try HTTPParser.parseHeaderLine(Array("X-Name: \t value with  spaces \t".utf8))
        #expect(field == SandboxHeaders.Field(name: "X-Name", value: "value with  spaces"))
        let latin = try HTTPParser.parseHeaderLine([0x58, 0x3A, 0x20, 0xE9])
        #expect(latin.value == "é")
        #expect(throws: RequestError.self) { try HTTPParser.parseHeaderLine(Array("X: a\u{01}b".utf8)) }
    }

    @Test("Chunk sizes: hex with optional extensions")
    func chunkSizes() {
        #expect(HTTPParser.parseChunkSize(Array("1a".utf8)) == 26)
        #expect(HTTPParser.parseChunkSize(Array("FF;name=value".utf8)) == 255)
        #expect(HTTPParser.parseChunkSize(Array("0".utf8)) == 0)
        #expect(HTTPParser.parseChunkSize(Array("10 ".utf8)) == 16)
        #expect(HTTPParser.parseChunkSize(Array("".utf8)) == nil)
        #expect(HTTPParser.parseChunkSize(Array("-1".utf8)) == nil)
        #expect(HTTPParser.parseChunkSize(Array("0x10".utf8)) == nil)
        #expect(HTTPParser.parseChunkSize(Array("FFFFFFFFFFFFFFFFFF".utf8)) == nil)
    }

    @Test("Body framing rules")
    func framing() throws {
        func head(_ headers: SandboxHeaders) -> RequestHead {
            RequestHead(method: "POST", target: "/", version: "HTTP/1.1", headers: headers)
        }
        #expect(try HTTPParser.framing(for: head([:])) == .none)
        #expect(try HTTPParser.framing(for: head(["Content-Length": "0"])) == .none)
        #expect(try HTTPParser.framing(for: head(["Content-Length": "12"])) == .length(12))
        #expect(try HTTPParser.framing(for: head(["Content-Length": "12, 12"])) == .length(12))
        #expect(try HTTPParser.framing(for: head(["Transfer-Encoding": "Chunked"])) == .chunked)
        for bad: SandboxHeaders in [["Content-Length": "+1"], ["Content-Length": "1, 2"], ["Content-Length": ""],
                                    ["Transfer-Encoding": "gzip, chunked"], ["Transfer-Encoding": "identity"]] {
            #expect(throws: RequestError.self) { try HTTPParser.framing(for: head(bad)) }
        }
    }

    @Test("Keep-alive decisions follow the version and Connection header")
    func keepAliveRules() {
        func head(_ version: String, _ connection: String?) -> RequestHead {
            var headers: SandboxHeaders = [:]
            if let connection { headers.add("Connection", connection) }
            return RequestHead(method: "GET", target: "/", version: version, headers: headers)
        }
        #expect(head("HTTP/1.1", nil).wantsKeepAlive)
        #expect(!head("HTTP/1.1", "close").wantsKeepAlive)
        #expect(!head("HTTP/1.1", "Upgrade, Close").wantsKeepAlive)
        #expect(!head("HTTP/1.0", nil).wantsKeepAlive)
        #expect(head("HTTP/1.0", "Keep-Alive").wantsKeepAlive)
    }

    @Test("The pattern body is i % 251 at any offset")
    func patternBody() {
        let body = SandboxBody.pattern(count: 100_000)
        let slice = body.bytes(at: 99_990, length: 50)
        #expect(slice.count == 10)
        #expect(slice.elementsEqual((99_990..<100_000).map { UInt8($0 % 251) }))
        #expect(SandboxBody.patternByte(at: 251) == 0)
        #expect(SandboxBody.patternByte(at: 252 + 251 * 1000) == 1)
        let big = SandboxBody.expectedPattern(offset: 1 << 31, count: 70_000)
        #expect(big.enumerated().allSatisfy { $0.element == UInt8((Int64($0.offset) + (1 << 31)) % 251) })
        #expect(SandboxBody.data(Data("abc".utf8)).collect() == Data("abc".utf8))
        #expect(SandboxBody.repeating(42, count: 3).collect() == Data([42, 42, 42]))
        #expect(SandboxBody.pattern(count: 10).collect(limit: 5) == nil)
    }

    @Test("Route paths normalise trailing slashes and prefixes")
    func routes() {
        #expect(ServerCore.normalize("/hello/") == "/hello")
        #expect(ServerCore.normalize("/hello//") == "/hello")
        #expect(ServerCore.normalize("/") == "/")
        #expect(ServerCore.normalize("") == "/")
        let prefix = Route(pattern: "/bytes/*") { _ in .text("") }
        #expect(prefix.matches("/bytes"))
        #expect(prefix.matches("/bytes/10"))
        #expect(!prefix.matches("/bytesx"))
        let exact = Route(pattern: "/hello/") { _ in .text("") }
        #expect(exact.matches("/hello"))
        #expect(!exact.matches("/hello/x"))
    }

    @Test("Charset labels resolve through CoreFoundation")
    func charsetLabels() {
        #expect(CharsetEncoder.encoding(forLabel: "UTF-16LE") == .utf16LittleEndian)
        #expect(CharsetEncoder.encoding(forLabel: " utf-8 ") == .utf8)
        #expect(CharsetEncoder.encoding(forLabel: "latin1") == .isoLatin1)
        #expect(CharsetEncoder.encoding(forLabel: "nonsense") == nil)
        #expect(CharsetEncoder.encode("中", label: "iso-8859-1") == .failure(.unencodable(label: "iso-8859-1")))
        #expect(SandboxResponse.reasonPhrase(for: 418) == "I'm a teapot")
        #expect(SandboxResponse.reasonPhrase(for: 599) == "Status 599")
    }

    @Test("Response heads never contain injected lines")
    func headSerialisation() {
        let head = ResponseWriter.serializeHead(
            status: 200, reason: "OK\r\nX-Evil: 1", headers: ["X-A": "1\r\nX-Evil: 2", "Bad Name": "x"])
        let text = String(decoding: head, as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK  X-Evil: 1\r\nX-A: 1  X-Evil: 2\r\n\r\n")
    }
}
