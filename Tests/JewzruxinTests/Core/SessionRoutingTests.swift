import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The session picks a transport per URL scheme: a transport that serves http only gets its https
// requests sent to URLSession by the session, not by a URLSession of its own; a session builds a
// URLSession only when one of its transports runs on it.
@Suite("Session: transports by scheme")
struct SessionRoutingTests {
    @Test("URLSession by default; a native session routes https to URLSession; a mock builds no URLSession")
    func routes() throws {
        let plain = HTTPSession(delegateQueue: OperationQueue())
        #expect(plain.core != nil)
        #expect(plain.transport(for: URL(string: "https://example.com/")) is URLSessionTransport)

        let native = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .native)
        #expect(native.core != nil)
        #expect(native.transport(for: URL(string: "http://example.com/")) is NativeTransport)
        #expect(native.transport(for: URL(string: "HTTPS://example.com/")) is URLSessionTransport)

        let strict = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .native(.init(usesURLSessionForHTTPS: false)))
        #expect(strict.core == nil)
        #expect(strict.transport(for: URL(string: "https://example.com/")) is NativeTransport)

        let mock = HTTPSession(delegateQueue: OperationQueue(), transport: MockSession())
        #expect(mock.core == nil)
        #expect(mock.transport(for: URL(string: "https://example.com/")) is MockSession)
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
        let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue())
        #expect(session.core?.configuration.timeoutIntervalForRequest == 11)
        #expect(session.resourceTimeout == 9)
    }
}
