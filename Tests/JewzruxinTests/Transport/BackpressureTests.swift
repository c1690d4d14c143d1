import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// A slow content handler slows its own transfer only: the sender is held back (memory stays flat)
/// and the session's other requests go on meanwhile. URLSession on Linux reads ahead without limit
/// (L2), so these run on the native and curl transports.
@Suite("Backpressure: a slow handler holds back its own transfer only")
struct BackpressureTests {
    /// Blocks in `append` once `blockAfter` bytes have arrived, until ``open()``; counts the bytes.
    final class GatedHandler: ContentHandler {
        let blockAfter: Int
        private let received = Atomic<Int>(0)
        private let gate = DispatchSemaphore(value: 0)
        private let blocked: AsyncStream<Void>.Continuation
        /// Yields once, when `append` first waits at the gate.
        let didBlock: AsyncStream<Void>
        private let waited = Atomic<Bool>(false)

        init(blockAfter: Int) {
            self.blockAfter = blockAfter
            (didBlock, blocked) = AsyncStream.makeStream()
        }

        var count: Int { received.load(ordering: .relaxed) }

        func open() { gate.signal() }

        func prepare(for response: HTTPResponse) throws {}

        func append(_ data: Data) throws {
            let total = received.add(data.count, ordering: .relaxed).newValue
            if total >= blockAfter, !waited.exchange(true, ordering: .sequentiallyConsistent) {
                blocked.yield()
                blocked.finish()
                gate.wait()
            }
        }

        func parseContent() throws -> (any Sendable)? { count }
    }

    @Test("while a handler is stuck, the sender is held back and other requests of the session complete",
          .timeLimit(.minutes(1)), arguments: [TransportUnderTest.native, .curl])
    func slowHandler(transport: TransportUnderTest) async throws {
        try await withSandbox { sandbox in
            let size: Int64 = 256 << 20
            let produced = ProducedBytes()
            sandbox.route("/huge/") { _ in
                SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: produced.body(count: size, throttled: false))
            }
            let session = HTTPSession(configuration: .ephemeral, transport: transport.transport)
            let handler = GatedHandler(blockAfter: 4 << 20)
            let big = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/huge/"))), session: session)
            big.contentHandler = handler
            let running = Task { try await big.start() }
            for await _ in handler.didBlock {}

            // The handler is stuck: another request of the same session still completes.
            let small = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(small.response.statusCode == 200)
            // And the big body is held back: the sandbox has produced a fraction of it (what the
            // queue, libcurl's buffer and the sockets hold), not the whole of it.
            #expect(produced.count < size / 4)

            handler.open()
            let response = try await running.value
            #expect(handler.count == Int(size))
            #expect(response.content as? Int == Int(size))
        }
    }
}
