import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// `HTTPResponse.metrics` on every transport: the native and curl transports measure each attempt,
/// URLSession on Linux gives none (L14). IPv6Tests checks the addresses of a connection to ::1.
@Suite("Transfer metrics", .onEveryTransport)
struct TransferMetricsTests {
    /// Whether the transport under test reports metrics.
    private var measures: Bool { TransportUnderTest.current != .urlSession }

    /// The bytes of the head of `response` on the wire, as the transport parsed it: status line,
    /// fields, blank line.
    private func headSize(of response: HTTPResponse) -> Int? {
        guard case .parsed(let head)? = response.head else { return nil }
        let statusLine = "\(head.httpVersion) \(head.statusCode) \(head.reasonPhrase)\r\n".utf8.count
        return head.orderedFields.reduce(statusLine + 2) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count + 2 }
    }

    /// The milestones of `metrics` come in order, each after the start of the attempt. On a reused
    /// connection libcurl gives the connect time as 0 and a lookup time above it: only the native
    /// transport keeps the two in order there (both 0).
    private func expectInOrder(_ metrics: HTTPTransferMetrics, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(metrics.nameLookup >= 0, sourceLocation: sourceLocation)
        if !metrics.reusedConnection || TransportUnderTest.current == .native {
            #expect(metrics.nameLookup <= metrics.connect, sourceLocation: sourceLocation)
        }
        #expect(metrics.connect <= metrics.requestStart, sourceLocation: sourceLocation)
        #expect(metrics.requestStart <= metrics.firstByte, sourceLocation: sourceLocation)
        #expect(metrics.firstByte <= metrics.total, sourceLocation: sourceLocation)
        #expect(metrics.total > 0, sourceLocation: sourceLocation)
    }

    @Test("a new connection, then reused ones: times in order, protocol, addresses, sizes each way")
    func newThenReused() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let first = try await HTTPCycle.get(sandbox.string("/bytes/1000"), session: session)
            #expect(first.response.data.count == 1000)
            guard measures else {
                #expect(first.response.metrics == nil)
                return
            }
            let metrics = try #require(first.response.metrics)
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.remotePort == Int(sandbox.port))
            #expect(metrics.localAddress == "127.0.0.1")
            let localPort = try #require(metrics.localPort)
            #expect(localPort > 0 && localPort != Int(sandbox.port))
            #expect(metrics.tlsHandshake == nil)
            #expect(!metrics.reusedConnection)
            #expect(metrics.connect > 0)
            expectInOrder(metrics)
            #expect(metrics.requestBodyBytes == 0)
            #expect(metrics.responseBodyBytes == 1000)
            #expect(metrics.responseHeaderBytes == headSize(of: first.response))

            // A small body, sent with the head (on native, by the submitting thread).
            let small = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .data(Data("again".utf8)), session: session)
            #expect(small.response.data == Data("again".utf8))
            let reused = try #require(small.response.metrics)
            #expect(reused.reusedConnection)
            #expect(reused.remotePort == Int(sandbox.port))
            #expect(reused.localPort == localPort)
            #expect(reused.requestBodyBytes == 5)
            #expect(reused.responseBodyBytes == 5)
            expectInOrder(reused)
            if TransportUnderTest.current == .native {
                // No name to resolve, no connection to make.
                #expect(reused.nameLookup == 0)
                #expect(reused.connect == 0)
            }

            // A body sent in parts, a chunked response: the counts are of the bodies, not the framing.
            let large = SandboxBody.expectedPattern(count: 200_000)
            let posted = try await HTTPCycle.post(
                sandbox.string("/dumpupload/"), requestObject: large, requestProcessors: [HTTPDataProcessor()], session: session)
            #expect(posted.response.data.count == 200_000)
            let sent = try #require(posted.response.metrics)
            #expect(sent.reusedConnection)
            #expect(sent.requestBodyBytes == 200_000)
            #expect(sent.responseBodyBytes == 200_000)
            expectInOrder(sent)

            let chunked = try await HTTPCycle.get(sandbox.string("/bytes/100000?chunked=1&chunk=999"), session: session)
            let received = try #require(chunked.response.metrics)
            #expect(received.responseBodyBytes == 100_000)
            #expect(received.responseHeaderBytes == headSize(of: chunked.response))
            #expect(received.reusedConnection)
        }
    }

    @Test("a response cut mid-body keeps the metrics of its attempt: the bytes that came")
    func failedAfterConnecting() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.retryPolicy.maximumRetryCount = 0
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/fault/close-mid-body?length=1000&sent=500"), session: session, completionHandler: $0)
            }
            #expect(result.error != nil)
            guard measures else { return }
            let metrics = try #require(result.cycle.response.metrics)
            #expect(metrics.remotePort == Int(sandbox.port))
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.responseBodyBytes == 500)
            #expect(metrics.responseHeaderBytes > 0)
            expectInOrder(metrics)
        }
    }
}
