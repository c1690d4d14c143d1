import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

/// Sends a GET for `target` on a new connection and reads until the connection ends.
private func probe(_ sandbox: Sandbox, _ target: String, timeout: Double = 10) async throws -> (data: Data, ending: WireProbe.Ending) {
    let port = Int(sandbox.port)
    return try await TestSupport.onThread {
        let probe = try WireProbe(port: port)
        try probe.get(target)
        let result = probe.readAll(timeout: timeout)
        return (result.data, result.ending)
    }
}

/// Splits raw bytes at the end of the header section.
private func split(_ data: Data) -> (head: String, body: Data)? {
    guard let range = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
    return (String(decoding: data[..<range.upperBound], as: UTF8.self), Data(data[range.upperBound...]))
}

@Suite("/fault/ endpoints", .onItsOwnThread)
struct FaultEndpointTests {
    @Test("close-before-headers: the request is read, then FIN without a byte")
    func closeBeforeHeaders() async throws {
        try await Sandbox.withSandbox { sandbox in
            let result = try await probe(sandbox, "/fault/close-before-headers")
            #expect(result.data.isEmpty)
            #expect(result.ending == .eof)
        }
    }

    @Test("close-mid-headers: part of a header section, then FIN")
    func closeMidHeaders() async throws {
        try await Sandbox.withSandbox { sandbox in
            let result = try await probe(sandbox, "/fault/close-mid-headers/")
            #expect(String(decoding: result.data, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Type: text/pla")
            #expect(result.ending == .eof)
        }
    }

    @Test("close-mid-body: Content-Length announced, `sent` pattern bytes, then FIN", arguments: [
        ("", 1000, 500), ("?length=10&sent=0", 10, 0), ("?length=70000&sent=65537", 70000, 65537),
    ])
    func closeMidBody(query: String, length: Int, sent: Int) async throws {
        try await Sandbox.withSandbox { sandbox in
            let result = try await probe(sandbox, "/fault/close-mid-body" + query)
            let (head, body) = try #require(split(result.data))
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.contains("Content-Length: \(length)\r\n"))
            #expect(body == SandboxBody.expectedPattern(count: sent))
            #expect(result.ending != .timedOut)
        }
    }

    @Test("close-mid-chunked: `sent` bytes in chunks, no final chunk, then FIN")
    func closeMidChunked() async throws {
        try await Sandbox.withSandbox { sandbox in
            let result = try await probe(sandbox, "/fault/close-mid-chunked?sent=250&chunk=100")
            let (head, body) = try #require(split(result.data))
            #expect(head.contains("Transfer-Encoding: chunked\r\n"))
            var expected = Data()
            for (offset, size) in [(0, 100), (100, 100), (200, 50)] {
                expected.append(Data("\(String(size, radix: 16))\r\n".utf8))
                expected.append(SandboxBody.expectedPattern(offset: Int64(offset), count: size))
                expected.append(Data("\r\n".utf8))
            }
            #expect(body == expected)
            #expect(result.ending != .timedOut)
        }
    }

    @Test("reset: the first `sent` bytes of a 200 response, then RST", arguments: [0, 20, 150])
    func reset(sent: Int) async throws {
        try await Sandbox.withSandbox { sandbox in
            let result = try await probe(sandbox, "/fault/reset?sent=\(sent)")
            #expect(result.data == Sandbox.resetVictim.prefix(sent))
            #expect(result.ending == .reset)
        }
    }

    @Test("stall: nothing for `seconds`, then the connection closes")
    func stall() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (result, elapsed) = try await TestSupport.measure {
                try await probe(sandbox, "/fault/stall?seconds=0.4")
            }
            #expect(result.data.isEmpty)
            #expect(result.ending == .eof)
            #expect(elapsed >= 0.39)
        }
    }

    @Test("stall: ends when the client closes, and when the sandbox stops")
    func stallEnds() async throws {
        let sandbox = try Sandbox.start()
        let port = Int(sandbox.port)
        // A client that gives up: its connection thread is gone long before 30 s.
        try await TestSupport.onThread {
            let probe = try WireProbe(port: port)
            try probe.get("/fault/stall?seconds=30")
            #expect(!probe.hasInput(timeout: 0.2))
            probe.close()
        }
        let waiting = try await TestSupport.onThread { () -> WireProbe in
            let probe = try WireProbe(port: port)
            try probe.get("/fault/stall?seconds=30")
            return probe
        }
        // Timed on the thread that stops it: when the awaiting task resumes is up to the cooperative
        // pool, which the full suite keeps busy for seconds.
        let elapsed = try await TestSupport.onThread { () -> Double in
            let start = Date()
            sandbox.stop()
            return Date().timeIntervalSince(start)
        }
        #expect(elapsed < 20, "well before the 30 s stall ends")
        #expect(sandbox.runningThreadCount == 0)
        let ending = try await TestSupport.onThread { waiting.readAll(timeout: 5).ending }
        #expect(ending != .timedOut)
    }

    @Test("slow-body: every byte arrives, one per interval")
    func slowBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, elapsed) = try await TestSupport.measure {
                try await TestSupport.onThread { try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/slow-body?n=15&interval_ms=20")) }
            }
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "15")
            #expect(response.body == SandboxBody.expectedPattern(count: 15))
            #expect(elapsed >= 0.29)
        }
    }

    @Test("retry-after: 503 with Retry-After n times per key, then 200")
    func retryAfter() async throws {
        try await Sandbox.withSandbox { sandbox in
            var outcomes: [String] = []
            for _ in 0..<4 {
                let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/retry-after?key=r&n=2&seconds=7"))
                outcomes.append("\(response.status) \(response.header("Retry-After") ?? "-") \(response.text)")
            }
            #expect(outcomes == ["503 7 unavailable 1", "503 7 unavailable 2", "200 - ok after 2 failures", "200 - ok after 2 failures"])
            #expect(sandbox.requestCount(forFaultKey: "r") == 4)
            let other = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/retry-after?key=s"))
            #expect(other.status == 503 && other.header("Retry-After") == "1")
            #expect(sandbox.requestCount(forFaultKey: "s") == 1)
        }
    }

    @Test("unauthorized: 401 with a Basic challenge, whatever the credentials")
    func unauthorized() async throws {
        try await Sandbox.withSandbox { sandbox in
            for header in ["", "Authorization: Basic dGVzdDoxMjM0NQ==\r\n"] {
                let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/unauthorized?key=u", extraHeaders: header))
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate") == #"Basic realm="sandbox""#)
                #expect(response.text == "Unauthorized")
            }
            #expect(sandbox.requestCount(forFaultKey: "u") == 2)
        }
    }

    @Test("redirect-loop: a and b redirect to each other, keeping the query")
    func redirectLoop() async throws {
        try await Sandbox.withSandbox { sandbox in
            let a = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/redirect-loop/a?key=l&code=307"))
            #expect(a.status == 307)
            #expect(a.header("Location") == "/fault/redirect-loop/b?key=l&code=307")
            let b = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/redirect-loop/b/"))
            #expect(b.status == 302)
            #expect(b.header("Location") == "/fault/redirect-loop/a")
            #expect(sandbox.requestCount(forFaultKey: "l") == 1)
            let unknown = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/redirect-loop/c"))
            #expect(unknown.status == 400)
        }
    }

    @Test("redirect-chain/N: N redirects, then 200")
    func redirectChain() async throws {
        try await Sandbox.withSandbox { sandbox in
            var target = "/fault/redirect-chain/3?key=c&code=301"
            var statuses: [Int] = []
            while true {
                let response = try TestSupport.raw(sandbox, TestSupport.getRequest(target))
                statuses.append(response.status)
                guard let location = response.header("Location") else {
                    #expect(response.text == "end of chain")
                    break
                }
                target = location
            }
            #expect(statuses == [301, 301, 301, 200])
            #expect(target == "/fault/redirect-chain/0?key=c&code=301")
            #expect(sandbox.requestCount(forFaultKey: "c") == 4)
        }
    }

    @Test("truncated-gzip: a gzip stream of pattern bytes missing its last `cut` bytes", arguments: [
        ("?n=1000", 1000, nil), ("?n=100&cut=0", 100, 0), ("?n=70000&cut=5", 70000, 5),
    ] as [(String, Int, Int?)])
    func truncatedGzip(query: String, count: Int, cut: Int?) async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/truncated-gzip" + query))
            let complete = Gzip.stored(SandboxBody.expectedPattern(count: count))
            let kept = complete.count - (cut ?? complete.count / 2)
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Content-Length") == String(kept))
            #expect(response.body == complete.prefix(kept))
        }
    }

    @Test("corrupt-gzip: a complete gzip stream with its CRC-32, size or first block's length check wrong", arguments: [
        ("", -8), ("&part=crc", -8), ("&part=size", -4), ("&part=block", 13),
    ] as [(String, Int)])
    func corruptGzip(query: String, flipped: Int) async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/corrupt-gzip?n=1000" + query))
            var expected = Gzip.stored(SandboxBody.expectedPattern(count: 1000))
            expected[flipped < 0 ? expected.count + flipped : flipped] ^= 0xFF
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.body == expected)
        }
    }

    @Test("truncated-deflate: a zlib stream, or raw deflate, of pattern bytes missing its last `cut` bytes", arguments: [
        ("?n=1000", 1000, false, nil), ("?n=100&cut=0", 100, false, 0), ("?n=70000&cut=5&raw=1", 70000, true, 5),
    ] as [(String, Int, Bool, Int?)])
    func truncatedDeflate(query: String, count: Int, raw: Bool, cut: Int?) async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/truncated-deflate" + query))
            let pattern = SandboxBody.expectedPattern(count: count)
            let complete = raw ? Gzip.storedBlocks(pattern) : Gzip.zlib(pattern)
            let kept = complete.count - (cut ?? complete.count / 2)
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "deflate")
            #expect(response.body == complete.prefix(kept))
        }
    }

    @Test("the zlib writer makes valid streams: header, stored blocks, Adler-32 big-endian")
    func zlibFormat() {
        #expect(Gzip.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        let expected: [UInt8] = [0x78, 0x01, 1, 5, 0, 0xFA, 0xFF] + Array("hello".utf8) + [0x06, 0x2C, 0x02, 0x15]
        #expect([UInt8](Gzip.zlib(Data("hello".utf8))) == expected)
        #expect([UInt8](Gzip.storedBlocks(Data("hello".utf8))) == Array(expected[2..<12]))
    }

    @Test("the gzip writer makes valid members: CRC-32 check value, stored blocks, trailer")
    func gzipFormat() {
        #expect(Gzip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        let member = Gzip.stored(Data("hello".utf8))
        // header, final stored block of 5 bytes, "hello", CRC-32 and size, little-endian
        let expected: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 1, 5, 0, 0xFA, 0xFF]
            + Array("hello".utf8) + [0x86, 0xA6, 0x10, 0x36, 5, 0, 0, 0]
        #expect([UInt8](member) == expected)
        #expect([UInt8](Gzip.stored(Data())) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 1, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0])
        // Two blocks for more than 65535 bytes.
        #expect(Gzip.stored(Data(count: 70000)).count == 10 + 5 + 65535 + 5 + (70000 - 65535) + 8)
    }

    @Test("large: n pattern bytes, with Content-Length or chunked", arguments: [false, true])
    func large(chunked: Bool) async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try await TestSupport.onThread {
                try TestSupport.raw(sandbox, TestSupport.getRequest("/fault/large?n=300000&chunked=\(chunked ? 1 : 0)"))
            }
            #expect(response.body == SandboxBody.expectedPattern(count: 300_000))
            #expect(response.header("Transfer-Encoding") == (chunked ? "chunked" : nil))
        }
    }

    @Test("invalid parameters get 400", arguments: [
        "/fault/close-mid-body?length=10&sent=10", "/fault/close-mid-body?length=0", "/fault/reset?sent=100000",
        "/fault/stall?seconds=-1", "/fault/slow-body?interval_ms=x", "/fault/retry-after?n=-1&key=bad",
        "/fault/redirect-chain/x", "/fault/redirect-chain/2?code=200&key=bad", "/fault/truncated-gzip?cut=999999",
        "/fault/large?chunked=maybe", "/fault/corrupt-gzip?part=header", "/fault/truncated-deflate?raw=maybe",
        "/fault/truncated-deflate?cut=999999",
    ])
    func invalid(target: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try TestSupport.raw(sandbox, TestSupport.getRequest(target))
            #expect(response.status == 400)
            #expect(sandbox.requestCount(forFaultKey: "bad") == 0)
        }
    }
}
