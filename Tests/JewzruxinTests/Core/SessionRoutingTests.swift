import Foundation
import Synchronization
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinTestSupport
import JewzruxinTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The session picks a transport per URL scheme: a transport that serves http only gets its https
// requests sent to URLSession by the session, not by a URLSession of its own; a session builds a
// URLSession only when one of its transports runs on it.
@Suite("Session: transports by scheme")
struct SessionRoutingTests {
    @Test("the default transport by default; .urlSession builds a URLSession; a native session routes https to curl where it is the default, else URLSession; a mock builds none")
    func routes() throws {
        let plain = HTTPSession(delegateQueue: OperationQueue())
        let expected: any HTTPTransport.Type = HTTPSession.defaultTransport.name == "curl" ? CurlTransport.self : URLSessionTransport.self
        #expect(type(of: plain.transport) == expected)
        #expect(type(of: plain.transport(for: URL(string: "https://example.com/"))) == expected)
        #expect((plain.core != nil) == (expected == URLSessionTransport.self))

        let urlSession = HTTPSession(delegateQueue: OperationQueue(), transport: .urlSession)
        #expect(urlSession.core != nil)
        #expect(urlSession.transport(for: URL(string: "https://example.com/")) is URLSessionTransport)

        // FoundationNetworking traps on some valid responses: https is steered away from it where curl loads.
        let native = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .native)
        #expect((native.core != nil) == (expected == URLSessionTransport.self))
        #expect(native.transport(for: URL(string: "http://example.com/")) is NativeTransport)
        #expect(type(of: native.transport(for: URL(string: "HTTPS://example.com/"))) == expected)

        let strict = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .native(.init(usesURLSessionForHTTPS: false)))
        #expect(strict.core == nil)
        #expect(strict.transport(for: URL(string: "https://example.com/")) is NativeTransport)

        let mock = HTTPSession(delegateQueue: OperationQueue(), transport: MockSession())
        #expect(mock.core == nil)
        #expect(mock.transport(for: URL(string: "https://example.com/")) is MockSession)
    }

    @Test("on Linux the default transport is curl when libcurl loads with TLS, and says why")
    func defaultTransport() {
        let chosen = HTTPSession.defaultTransport
        #if os(Linux)
        switch CurlLibrary.system {
        case .success(let curl) where curl.features.contains(.ssl):
            #expect(chosen.name == "curl")
            #expect(chosen.reason.contains(curl.version))
            #expect(chosen.reason.contains(curl.name))
        case .success:
            #expect(chosen.name == "urlsession")
            #expect(chosen.reason.contains("no TLS"))
        case .failure(let error):
            #expect(chosen.name == "urlsession")
            #expect(chosen.reason == error.description)
        }
        #else
        #expect(chosen.name == "urlsession")
        #endif
        #expect(chosen.description.hasPrefix(chosen.name + ": "))
    }

    @Test("the neutral configuration carries a URLSession configuration's values, both ways")
    func configurationBridge() {
        let source = URLSessionConfiguration.ephemeral
        source.timeoutIntervalForRequest = 7
        source.timeoutIntervalForResource = 9
        source.httpMaximumConnectionsPerHost = 3
        source.httpAdditionalHeaders = ["X-A": "1", "X-N": 2]
        source.httpShouldSetCookies = false
        var configuration = HTTPSession.Configuration(source)
        #expect(configuration.timeoutIntervalForRequest == 7)
        #expect(configuration.timeoutIntervalForResource == 9)
        #expect(configuration.httpMaximumConnectionsPerHost == 3)
        #expect(configuration.httpAdditionalHeaders == ["X-A": "1", "X-N": "2"])
        #expect(!configuration.httpShouldSetCookies)
        configuration.timeoutIntervalForRequest = 11
        let bridged = configuration.urlSessionConfiguration
        #expect(bridged.timeoutIntervalForRequest == 11)
        #expect(bridged.httpMaximumConnectionsPerHost == 3)
        #expect(bridged.httpAdditionalHeaders?["X-N"] as? String == "2")
        // The source is left as it was.
        #expect(source.timeoutIntervalForRequest == 7)
        let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .urlSession)
        #expect(session.core?.configuration.timeoutIntervalForRequest == 11)
        #expect(session.resourceTimeout == 9)
    }
}

/// A transport whose transfers, when resumed, check from another thread that the cycle's lock is
/// free, then answer 204.
private final class LockProbingTransport: HTTPTransport {
    let cycle = Mutex<HTTPCycle?>(nil)
    let lockWasFree = Mutex<[Bool]>([])

    func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer {
        Transfer(transport: self, url: request.url ?? URL(fileURLWithPath: "/"), events: events)
    }

    struct Transfer: HTTPTransfer {
        let transport: LockProbingTransport
        let url: URL
        let events: HTTPTransferEvents

        func resume() {
            // Another thread reads the cycle's state, which takes its lock: if resume() ran under
            // that lock, the read could not finish while resume() waits for it.
            let cycle = transport.cycle.withLock { $0 }
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = cycle?.state
                done.signal()
            }
            let free = done.wait(timeout: .now() + 5) == .success
            transport.lockWasFree.withLock { $0.append(free) }
            // Answered from another thread, as a transport does.
            let (url, events) = (url, events)
            DispatchQueue.global().async {
                events.didReceive(HTTPResponseHead(url: url, statusCode: 204, fields: [.init(name: "X-Probe", value: "1")]))
                events.didComplete(error: nil)
            }
        }

        func cancel() { events.didComplete(error: URLError(.cancelled)) }
    }
}

@Suite("Session: transport calls outside the cycle's lock")
struct TransportCallsOutsideLockTests {
    @Test("resume() runs with the cycle's lock free; a third-party transport's HTTPResponseHead reaches the response")
    func resumeOutsideLock() async throws {
        let transport = LockProbingTransport()
        let session = HTTPSession(delegateQueue: OperationQueue(), transport: transport)
        session.networkActivityIndicator = nil
        let cycle = HTTPCycle(requestURL: try #require(URL(string: "probe://host/path")), session: session)
        transport.cycle.withLock { $0 = cycle }
        let result = try await outcome { handler in
            cycle.start(handler)
            return cycle
        }
        #expect(result.error == nil)
        #expect(transport.lockWasFree.withLock { $0 } == [true])
        #expect(cycle.response.statusCode == 204)
        #expect(cycle.response.value(forHTTPHeaderField: "x-probe") == "1")
        #expect(cycle.response.core?.statusCode == 204)
    }
}
