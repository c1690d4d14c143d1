import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sandbox lifecycle, concurrency and custom routes", .onItsOwnThread)
struct LifecycleTests {
    @Test("start() picks a free port and builds URLs")
    func startAndURLs() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        #expect(sandbox.port != 0)
        #expect(sandbox.host == "127.0.0.1")
        #expect(sandbox.baseURL.absoluteString == "http://127.0.0.1:\(sandbox.port)")
        #expect(sandbox.url("/hello/")?.absoluteString == "http://127.0.0.1:\(sandbox.port)/hello/")
        let echo = sandbox.url("echo/?content=a%20b")
        #expect(echo?.absoluteString == "http://127.0.0.1:\(sandbox.port)/echo/?content=a%20b")
        #expect(sandbox.acceptedConnectionCount == 0)
    }

    @Test("Binding a port that is in use throws bindFailed(EADDRINUSE)")
    func portInUse() throws {
        let first = try Sandbox.start()
        defer { first.stop() }
        #expect(throws: SandboxError.bindFailed(host: "127.0.0.1", port: first.port, errno: EADDRINUSE)) {
            try Sandbox.start(port: first.port)
        }
        do {
            let second = try Sandbox.start(port: first.port)
            second.stop()
        } catch {
            #expect(error.isAddressInUse)
            #expect(error.code == EADDRINUSE)
            #expect(error.description.contains("127.0.0.1:\(first.port)"))
        }
    }

    @Test("Binding an address that is not local throws bindFailed")
    func foreignAddress() throws {
        do {
            let sandbox = try Sandbox.start(host: "192.0.2.1")
            sandbox.stop()
            Issue.record("binding a TEST-NET address unexpectedly succeeded")
        } catch let error {
            guard case let .bindFailed(host, _, code) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(host == "192.0.2.1")
            #expect(code == EADDRNOTAVAIL)
            #expect(error.description.contains("192.0.2.1"))
        }
    }

    @Test("A stopped sandbox's fixed port can be reused at once (SO_REUSEADDR)")
    func reuseAddress() throws {
        let first = try TestSupport.startOutsideEphemeralRange()
        let port = first.port
        _ = try TestSupport.raw(first, TestSupport.getRequest("/hello/", extraHeaders: "Connection: close\r\n"))
        first.stop()
        let second = try Sandbox.start(port: port)
        defer { second.stop() }
        #expect(second.port == port)
        #expect(try TestSupport.raw(second, TestSupport.getRequest("/hello/")).status == 200)
    }

    @Test("stop() returns promptly with idle keep-alive connections, closes them, and frees the port")
    func stopWithIdleConnections() throws {
        let sandbox = try TestSupport.startOutsideEphemeralRange()
        let clients = try (0..<10).map { _ in try RawHTTPClient(port: sandbox.port) }
        for client in clients {
            #expect(try client.exchange(TestSupport.getRequest("/hello/")).status == 200)
        }
        #expect(sandbox.openConnectionCount == 10)
        let start = Date()
        sandbox.stop()
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(sandbox.isStopped)
        #expect(sandbox.openConnectionCount == 0)
        #expect(sandbox.runningThreadCount == 0)
        for client in clients {
            #expect(client.isClosedByPeer(timeout: 2))
        }
        #expect(TestSupport.isRefused(port: sandbox.port))
        sandbox.stop()  // idempotent
    }

    @Test("stop() interrupts delayed and dripping responses")
    func stopInterruptsWaits() async throws {
        let sandbox = try Sandbox.start()
        let (handled, continuation) = AsyncStream<Void>.makeStream()
        sandbox.route("/slow/*") { request in
            defer { continuation.yield() }
            return request.path.hasPrefix("/slow/drip")
                ? Sandbox.guarded(Sandbox.drip)(request) : Sandbox.guarded(Sandbox.echo)(request)
        }
        let port = sandbox.port
        let delayed = Task.detached {
            try await TestSupport.onThread {
                try RawHTTPClient(port: port).exchange(TestSupport.getRequest("/slow/?delay=30"))
            }
        }
        let dripping = Task.detached {
            try await TestSupport.onThread {
                try RawHTTPClient(port: port).exchange(TestSupport.getRequest("/slow/drip?n=100&interval=30"))
            }
        }
        var iterator = handled.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        let start = Date()
        sandbox.stop()
        #expect(Date().timeIntervalSince(start) < 2)
        // Both clients see the connection end instead of a response.
        await #expect(throws: RawClientError.self) { _ = try await delayed.value }
        await #expect(throws: RawClientError.self) { _ = try await dripping.value }
    }

    @Test("Dropping the last reference stops the sandbox")
    func deinitStops() throws {
        var sandbox: Sandbox? = try TestSupport.startOutsideEphemeralRange()
        let port = try #require(sandbox?.port)
        #expect(!TestSupport.isRefused(port: port))
        sandbox = nil
        #expect(TestSupport.isRefused(port: port))
    }

    @Test("64 clients connected at once are served concurrently")
    func concurrentRawClients() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let clients = try (0..<64).map { _ in try RawHTTPClient(port: sandbox.port) }
        for (index, client) in clients.enumerated() {
            try client.send(TestSupport.getRequest("/echo/?delay=0.5&content=\(index)"))
        }
        // Each response waits 0.5 s; served one after another they would take 32 s.
        let start = Date()
        for (index, client) in clients.enumerated() {
            #expect(try client.readResponse().text == "\(index)")
        }
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(sandbox.acceptedConnectionCount == 64)
        #expect(sandbox.openConnectionCount == 64)
    }

    @Test("64 concurrent URLSession requests all succeed")
    func concurrentSessionRequests() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let url = try #require(sandbox.url("/bytes/50000"))
        let expected = SandboxBody.expectedPattern(count: 50000)
        try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<64 {
                group.addTask { try await TestSupport.fetch(url).0 }
            }
            var count = 0
            for try await data in group {
                #expect(data == expected)
                count += 1
            }
            #expect(count == 64)
        }
    }

    @Test("Custom routes: exact, trailing slash, prefix, and overriding built-ins")
    func customRoutes() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        sandbox.route("/custom") { request in
            let query = request.queryValue("q") ?? "-"
            var response = SandboxResponse.text("custom \(request.method) \(query)", status: 201)
            response.headers.add("X-Custom", "1")
            return response
        }
        sandbox.route("/files/*") { request in .text("file at \(request.path)") }
        sandbox.route("/hello/") { _ in .text("overridden") }

        let (custom, customResponse) = try await TestSupport.get(sandbox, "/custom/?q=%E4%B8%AD")
        #expect(customResponse.statusCode == 201)
        #expect(String(decoding: custom, as: UTF8.self) == "custom GET 中")
        #expect(customResponse.value(forHTTPHeaderField: "X-Custom") == "1")
        let (file, _) = try await TestSupport.get(sandbox, "/files/a/b.txt")
        #expect(String(decoding: file, as: UTF8.self) == "file at /files/a/b.txt")
        let (hello, _) = try await TestSupport.get(sandbox, "/hello")
        #expect(String(decoding: hello, as: UTF8.self) == "overridden")
        let (_, missing) = try await TestSupport.get(sandbox, "/filesystem")
        #expect(missing.statusCode == 404)
    }

    @Test("A handler returning an invalid status produces 500")
    func invalidHandlerStatus() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        sandbox.route("/broken") { _ in SandboxResponse(status: 42) }
        let (_, response) = try await TestSupport.get(sandbox, "/broken")
        #expect(response.statusCode == 500)
    }
}
