import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

@Suite("ScriptedServer", .onItsOwnThread)
struct ScriptedServerTests {
    @Test("reads a request, sends the script's bytes exactly, then closes in order")
    func sendAndClose() async throws {
        try await ScriptedServer.withServer([[.readRequest, .sendText("HTTP/1.1 200 OK\r\n"), .send(Data("X: 1\r\n".utf8)), .close]]) { server in
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            let (data, ending) = try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.send("GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n")
                let result = probe.readAll()
                return (result.data, result.ending)
            }
            #expect(String(decoding: data, as: UTF8.self) == "HTTP/1.1 200 OK\r\nX: 1\r\n")
            #expect(ending == .eof)
            #expect(server.connectionCount == 1)
            #expect(server.requestHeads == ["GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n"])
        }
    }

    @Test("reset ends the connection with a TCP reset, after what was sent")
    func reset() async throws {
        try await ScriptedServer.withServer([[.readRequest, .sendText("HTTP/1.1 200 OK\r\nContent-Le"), .pause(0.05), .reset]]) { server in
            let (data, ending) = try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.get("/")
                let result = probe.readAll()
                return (result.data, result.ending)
            }
            #expect(String(decoding: data, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Le")
            #expect(ending == .reset)
        }
    }

    @Test("the i-th connection runs script min(i, count - 1)")
    func perConnectionScripts() async throws {
        let scripts: [[ScriptedServer.Step]] = [
            [.readRequest, .sendText("first"), .close],
            [.readRequest, .sendText("second"), .close],
            [.readRequest, .sendText("rest"), .close],
        ]
        try await ScriptedServer.withServer(scripts) { server in
            var replies: [String] = []
            for index in 0..<5 {
                let reply = try await TestSupport.onThread {
                    let probe = try WireProbe(port: server.port)
                    try probe.get("/\(index)")
                    return String(decoding: probe.readAll().data, as: UTF8.self)
                }
                replies.append(reply)
            }
            #expect(replies == ["first", "second", "rest", "rest", "rest"])
            #expect(server.connectionCount == 5)
            #expect(server.requestHeads.map { $0.split(separator: " ")[1] } == ["/0", "/1", "/2", "/3", "/4"])
        }
    }

    @Test("readRequest consumes the Content-Length body, so the next head is read on the same connection")
    func bodiesAndKeepAlive() async throws {
        try await ScriptedServer.withServer([[.readRequest, .sendText("one;"), .readRequest, .sendText("two"), .close]]) { server in
            let reply = try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.send("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
                try probe.send("GET /y HTTP/1.1\r\n\r\n")
                return String(decoding: probe.readAll().data, as: UTF8.self)
            }
            #expect(reply == "one;two")
            #expect(server.requestHeads == ["POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "GET /y HTTP/1.1\r\n\r\n"])
            #expect(server.connectionCount == 1)
        }
    }

    @Test("pause delays the next step")
    func pause() async throws {
        try await ScriptedServer.withServer([[.pause(0.3), .sendText("late"), .close]]) { server in
            let (reply, elapsed) = try await TestSupport.measure {
                try await TestSupport.onThread {
                    let probe = try WireProbe(port: server.port)
                    return String(decoding: probe.readAll().data, as: UTF8.self)
                }
            }
            #expect(reply == "late")
            #expect(elapsed >= 0.29)
        }
    }

    @Test("waitForClientClose keeps the connection open until the client closes it")
    func waitForClientClose() async throws {
        try await ScriptedServer.withServer([[.readRequest, .waitForClientClose, .sendText("too late")]]) { server in
            let quiet = try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.get("/")
                let quiet = !probe.hasInput(timeout: 0.3)
                probe.close()
                return quiet
            }
            #expect(quiet)
            #expect(server.requestHeads.count == 1)
        }
    }

    @Test("a script that runs out of steps closes the connection; an empty script list closes at once")
    func endOfScript() async throws {
        for scripts: [[ScriptedServer.Step]] in [[[.sendText("x")]], [], [[]]] {
            try await ScriptedServer.withServer(scripts) { server in
                let result = try await TestSupport.onThread {
                    let probe = try WireProbe(port: server.port)
                    let result = probe.readAll(timeout: 5)
                    return (String(decoding: result.data, as: UTF8.self), result.ending)
                }
                #expect(result.1 == .eof)
                #expect(result.0 == (scripts.first?.isEmpty == false ? "x" : ""))
            }
        }
    }

    @Test("a peer that goes away ends the script: readRequest records nothing, the server stays usable")
    func peerGone() async throws {
        try await ScriptedServer.withServer([[.readRequest, .sendText("reply"), .close]]) { server in
            try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.send("GET / HT")
                probe.close()
            }
            let reply = try await TestSupport.onThread {
                let probe = try WireProbe(port: server.port)
                try probe.get("/again")
                return String(decoding: probe.readAll().data, as: UTF8.self)
            }
            #expect(reply == "reply")
            #expect(server.requestHeads.count == 1)
            #expect(server.connectionCount == 2)
        }
    }

    @Test("stop ends long pauses and waits promptly, and the port then refuses connections")
    func stopInterruptsWaits() async throws {
        // Below the ephemeral range: a freed ephemeral port can be taken by another test's connection
        // before the check that it refuses.
        let server = try TestSupport.scriptedOutsideEphemeralRange([[.pause(30)], [.readRequest, .waitForClientClose]])
        let port = server.port
        let probes = try await TestSupport.onThread { () -> [WireProbe] in
            let first = try WireProbe(port: port)
            let second = try WireProbe(port: port)
            try second.get("/")
            return [first, second]
        }
        // Timed on the thread that stops it: when the awaiting task resumes is up to the cooperative
        // pool, which the full suite keeps busy for seconds.
        let elapsed = try await TestSupport.onThread { () -> Double in
            let start = Date()
            server.stop()
            return Date().timeIntervalSince(start)
        }
        #expect(elapsed < 20, "well before the 30 s pause ends")
        let endings = try await TestSupport.onThread { probes.map { $0.readAll(timeout: 5).ending } }
        #expect(endings.allSatisfy { $0 != .timedOut })
        #expect(TestSupport.isRefused(port: UInt16(port)))
        server.stop()  // idempotent
    }
}
