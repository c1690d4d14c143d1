import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession task cancelled while URLSession waits to ask about its response or a redirect.
/// FoundationNetworking stops the task at once, and it crashes the process if the question is
/// answered after that.
@Suite("URLSession transport: a cancel while a response or a redirect waits for its answer")
struct URLSessionCancelTests {
    @Test(
        "the question gets no answer once the transfer is cancelled: the cycle ends cancelled, the process lives",
        arguments: ["/redirect/?code=302&to=/hello/", "/hello/"])
    func cancelBeforeTheAnswer(path: String) async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .urlSession)
            session.retryPolicy.maximumRetryCount = 0
            let transport = try #require(session.transport as? URLSessionTransport)
            let queue = try #require(transport.delegateQueue)
            // URLSession's calls to the router wait: the redirect's question is queued, not asked.
            queue.isSuspended = true
            defer { queue.isSuspended = false }

            let url = sandbox.string(path)
            let error = await withHandover { (handover: Handover<(any Error)?, Never>) in
                let cycle: HTTPCycle
                do {
                    cycle = try HTTPCycle.get(url, session: session) { _, error in handover.resume(returning: error) }
                } catch {
                    handover.resume(returning: error)
                    return
                }
                Task {
                    // The head has arrived and URLSession has queued its question: what to do
                    // with the response, or with the 302.
                    #expect(await eventually { queue.operationCount >= 1 })
                    cycle.cancel(explicitly: false)
                    // URLSession stops the task, and queues its end after the question.
                    #expect(await eventually { queue.operationCount >= 2 })
                    queue.isSuspended = false
                }
            }
            guard case HTTPError.cancelled? = error else {
                Issue.record("expected HTTPError.cancelled, got \(String(describing: error))")
                return
            }
            // The session still works.
            #expect(try await HTTPCycle.get(sandbox.string("/hello/"), session: session).response.statusCode == 200)
        }
    }
}
