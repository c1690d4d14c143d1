import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session on a native transport with `options`, its handlers on a private serial queue.
private func nativeSession(
    _ options: NativeTransport.Options = .init(), configure: (URLSessionConfiguration) -> Void = { _ in }
) -> (HTTPSession, NativeTransport) {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = HTTPSession(configuration: configuration, delegateQueue: queue, transport: .native(options))
    session.networkActivityIndicator = nil
    session.retryPolicy.maximumRetryCount = 0
    // `.native` takes the session's configuration: the session holds a transport of its own.
    guard let transport = session.transport as? NativeTransport else { preconditionFailure("not a native session") }
    return (session, transport)
}

/// The `URLError` code inside a cycle's error, if any.
private func urlErrorCode(_ error: (any Error)?) -> URLError.Code? {
    if case HTTPError.transport(let error)? = error as? HTTPError { return error.code }
    return nil
}

@Suite("Native transport: connections, limits, timeouts, cancellation")
struct NativeTransportTests {
    @Test("`.native` takes the session's configuration; a configured one keeps its own")
    func configurationAdoption() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 7
        let session = HTTPSession(configuration: configuration, transport: .native)
        #expect((session.transport as? NativeTransport)?.settings.shared.requestTimeout == 7)
        let own = NativeTransport(configuration: .ephemeral)
        #expect((HTTPSession(configuration: configuration, transport: own).transport as? NativeTransport) === own)
    }

    @Test("sequential requests reuse one keep-alive connection")
    func keepAlive() async throws {
        try await withSandbox { sandbox in
            let (session, transport) = nativeSession()
            for index in 0..<20 {
                let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "n\(index)"], session: session)
                #expect(cycle.response.text == "n\(index)")
            }
            let chunked = try await HTTPCycle.get(sandbox.string("/bytes/100000?chunked=1&chunk=999"), session: session)
            #expect(chunked.response.data == SandboxBody.expectedPattern(count: 100_000))
            // Bodies on both sides of the 64 KiB a submitting thread sends itself, one after the other.
            for size in [65_536, 65_537, 200_000, 10, 65_536] {
                let body = SandboxBody.expectedPattern(count: size)
                let posted = try await HTTPCycle.post(
                    sandbox.string("/dumpupload/"), requestObject: body, requestProcessors: [HTTPDataProcessor()], session: session)
                #expect(posted.response.statusCode == 200)
                // Compared to a Bool: a failed `==` of large Data would be diffed element by element.
                let echoed = posted.response.data == body
                #expect(echoed, "a body of \(size) bytes came back as \(posted.response.data.count) bytes")
            }
            #expect(transport.openConnectionCount == 1)
        }
    }

    @Test("no more connections per host than the limit, however many requests are in flight")
    func perHostLimit() async throws {
        try await withSandbox { sandbox in
            let (session, transport) = nativeSession(.init(maximumConnectionsPerHost: 3))
            let peak = Peak()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": "\(index)", "delay": "0.02"], session: session)
                        #expect(cycle.response.text == "\(index)")
                        peak.record(transport.openConnectionCount)
                    }
                }
                try await group.waitForAll()
            }
            #expect(peak.value <= 3)
            #expect(transport.openConnectionCount <= 3)
        }
    }

    @Test("idle connections close after the idle timeout")
    func idleExpiry() async throws {
        try await withSandbox { sandbox in
            let (session, transport) = nativeSession(.init(idleConnectionTimeout: 0.1))
            _ = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(await eventually { transport.openConnectionCount == 0 })
            let again = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(again.response.text == "Hello World")
        }
    }

    @Test("a host name is resolved, and IPv6 literals work where the machine has ::1")
    func addressing() async throws {
        try await withSandbox { sandbox in
            let (session, _) = nativeSession()
            let port = try #require(sandbox.baseURL.port)
            let byName = try await HTTPCycle.get("http://localhost:\(port)/hello/", session: session)
            #expect(byName.response.text == "Hello World")
        }
        guard let sandbox6 = try? Sandbox.start(host: "::1") else { return }
        defer { sandbox6.stop() }
        let (session, _) = nativeSession()
        let cycle = try await HTTPCycle.get(sandbox6.baseURL.absoluteString + "/inspect/", session: session)
        let inspection = try JSONDecoder().decode([String: JSONValueProbe].self, from: cycle.response.data)
        #expect(inspection["method"] == .string("GET"))
    }

    @Test("a refused connection and an unknown host give URLSession's errors")
    func connectFailures() async throws {
        let (session, _) = nativeSession()
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let refused = try await outcome { try HTTPCycle.get(closed.url(), session: session, completionHandler: $0) }
        #expect(urlErrorCode(refused.error) == .cannotConnectToHost)
        let unknown = try await outcome { try HTTPCycle.get("http://no-such-host.invalid/", session: session, completionHandler: $0) }
        #expect(urlErrorCode(unknown.error) == .cannotFindHost)
    }

    @Test("a stalled response times out with the request's timeout")
    func timeout() async throws {
        try await withSandbox { sandbox in
            let (session, transport) = nativeSession { $0.timeoutIntervalForRequest = 0.3 }
            // The sandbox would answer after 5 s: a timeout error shows the 0.3 s limit ended it.
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?delay=5"), session: session, completionHandler: $0) }
            #expect(urlErrorCode(result.error) == .timedOut)
            // As on curl, an attempt that timed out reports no metrics.
            #expect(result.response.metrics == nil)
            await session.drain()
            #expect(transport.openConnectionCount <= 1)
            // A slow drip that keeps making progress within the timeout succeeds.
            let drip = try await HTTPCycle.get(sandbox.string("/drip/?n=5&interval=0.1"), session: session)
            #expect(drip.response.text == "*****")
            #expect(drip.response.metrics?.responseBodyBytes == 5)
        }
    }

    @Test("on a pooled connection the request is sent at once; a stall is still cancelled and timed out at once")
    func pooledSendStall() async throws {
        try await withSandbox { sandbox in
            var arrived = sandbox.routeHeld("/stall/", for: 100)
            // The request timeout (120 s) outlasts the idle worker's wait (60 s), which the answer
            // (100 s) outlasts too: only the cancel can wake the worker that waits for the answer to
            // a request sent on its connection.
            let (session, transport) = nativeSession(.init(idleConnectionTimeout: 60)) { $0.timeoutIntervalForRequest = 120 }
            _ = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            let stalled = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/stall/"))), session: session)
            let began = ContinuousClock.now
            async let ended = outcome { handler in stalled.start(handler); return stalled }
            _ = await arrived.next()
            stalled.cancel(explicitly: false)
            guard case HTTPError.cancelled? = try await ended.error as? HTTPError else {
                Issue.record("expected a cancellation")
                return
            }
            // The cycle ends at the cancel; the transfer ends when the worker has stopped it: within
            // milliseconds, long before the worker's own 60 s wait would end. The bound is far from
            // both: in the whole suite, which starts a thousand tests at once on two cores, each
            // `await` here can wait seconds for a thread of the pool (12 s in all, seen once).
            await session.drain()
            #expect(ContinuousClock.now - began < .seconds(30))
            let after = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(after.response.text == "Hello World")
            #expect(transport.openConnectionCount <= 2)

            // With a request timeout shorter than the worker's wait, the worker is woken to keep it.
            let (quick, _) = nativeSession { $0.timeoutIntervalForRequest = 0.3 }
            _ = try await HTTPCycle.get(sandbox.string("/hello/"), session: quick)
            let sent = ContinuousClock.now
            let timedOut = try await outcome { try HTTPCycle.get(sandbox.string("/stall/"), session: quick, completionHandler: $0) }
            #expect(urlErrorCode(timedOut.error) == .timedOut)
            #expect(ContinuousClock.now - sent < .seconds(10))
        }
    }

    @Test("cancelling one transfer closes its connection only")
    func cancelOne() async throws {
        try await withSandbox { sandbox in
            let (session, _) = nativeSession()
            let slow = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=30&content=slow"))), session: session)
            async let slowResult = outcome { handler in slow.start(handler); return slow }
            let other = try await HTTPCycle.get(sandbox.string("/echo/?delay=0.05&content=fine"), session: session)
            slow.cancel(explicitly: false)
            let result = try await slowResult
            guard case HTTPError.cancelled? = result.error as? HTTPError else {
                Issue.record("expected a cancellation, got \(String(describing: result.error))")
                return
            }
            #expect(other.response.text == "fine")
            let after = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(after.response.text == "Hello World")
            await session.drain()
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("strict: https:// fails with unsupportedURL; by default it goes to URLSession")
    func https() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let (strict, _) = nativeSession(.init(usesURLSessionForHTTPS: false))
        let refused = try await outcome { try HTTPCycle.get(closed.url(scheme: "https"), session: strict, completionHandler: $0) }
        #expect(urlErrorCode(refused.error) == .unsupportedURL)
        let (lenient, transport) = nativeSession()
        let viaURLSession = try await outcome { try HTTPCycle.get(closed.url(scheme: "https"), session: lenient, completionHandler: $0) }
        #expect(urlErrorCode(viaURLSession.error) == .cannotConnectToHost)
        #expect(transport.openConnectionCount == 0)
    }

    @Test("cookies set by a response are sent back, as URLSession does")
    func cookies() async throws {
        try await withSandbox { sandbox in
            let (session, _) = nativeSession { $0.httpShouldSetCookies = true }
            _ = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": ["Set-Cookie:flavour=oat; Path=/", "Set-Cookie:size=2; Path=/"]], session: session)
            let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            let inspection = try Inspection(cycle.response)
            let cookie = inspection.values("Cookie").joined(separator: "; ")
            #expect(cookie.contains("flavour=oat") && cookie.contains("size=2"))
        }
    }

    @Test("the request on the wire: Host, method, target, body framing")
    func wire() async throws {
        try await withSandbox { sandbox in
            let (session, _) = nativeSession { $0.httpAdditionalHeaders = ["X-Extra": "from configuration"] }
            let cycle = try await HTTPCycle.post(sandbox.string("/inspect/?a=1&b=%20"), requestObject: Data("payload".utf8),
                                                 requestProcessors: [HTTPDataProcessor()], session: session)
            let inspection = try Inspection(cycle.response)
            #expect(inspection.method == "POST")
            #expect(inspection.query == "a=1&b=%20")
            #expect(inspection.body == "payload")
            #expect(inspection.values("Host") == ["127.0.0.1:\(sandbox.baseURL.port ?? 0)"])
            #expect(inspection.values("Content-Length") == ["7"])
            #expect(inspection.values("X-Extra") == ["from configuration"])
            #expect(inspection.values("Accept-Encoding").isEmpty)
            let head = try await HTTPCycle.head(sandbox.string("/hello/"), session: session)
            #expect(head.response.statusCode == 200 && head.response.data.isEmpty)
        }
    }

    @Test("an upload from a file streams with progress; a chunked one when asked")
    func uploads() async throws {
        try await withSandbox { sandbox in
            let (session, _) = nativeSession()
            let payload = Data((0..<300_000).map { UInt8($0 % 251) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("native-upload-\(UUID().uuidString)")
            try payload.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let sent = Mutex<[Int64]>([])
            let cycle = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .file(file), session: session,
                                                   didSendBodyDataHandler: { _, _, total, _ in sent.withLock { $0.append(total) } })
            #expect(cycle.response.data == payload)
            await session.drain()
            #expect(sent.withLock { $0.last } == Int64(payload.count))
            #expect(sent.withLock { $0.count } > 1)

            let chunked = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))), requestMethod: .post, session: session)
            chunked.request.setValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
            chunked.request.data = Data("in chunks".utf8)
            let response = try await chunked.start()
            let inspection = try Inspection(response)
            #expect(inspection.body == "in chunks")
            #expect(inspection.values("Transfer-Encoding") == ["chunked"])
        }
    }

    /// A loopback port nothing listens on.
}

/// The largest value recorded, from any thread.
private final class Peak: Sendable {
    private let state = Mutex(0)
    func record(_ value: Int) { state.withLock { $0 = max($0, value) } }
    var value: Int { state.withLock { $0 } }
}

/// Enough of a JSON value to compare fields of the sandbox's `/inspect/` answer.
private enum JSONValueProbe: Decodable, Equatable {
    case string(String)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) { self = .string(string) } else { self = .other }
    }
}
