import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport

/// Where a task's handlers run when they name a ``HandlerQueue``, or name none and take the
/// cycle's or the session's.
@Suite("Handler placement", .onEveryTransport)
struct HandlerPlacementTests {
    @Test("inline handlers run where the chain moves on, with the delegate queue suspended, in order", .timeLimit(.minutes(1)))
    func inlineHandlers() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.delegateQueue.isSuspended = true
            defer { session.delegateQueue.isSuspended = false }
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox, session: session)
                    .GET("/stores", parameters: ["zip": "15217"])
                    .response(.inline) { _, _ in recorder.record("1 \(currentQueueName())") }
                    .responseJSON(.inline) { json in recorder.record("2 \(json[0]?["name"]?.stringValue != nil)") }
                    .responseError(.inline) { _ in recorder.record("never") }
                    .responseString(.inline) { _ in
                        recorder.record("3 \(currentQueueName())")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["1 other", "2 true", "3 other"])
        }
    }

    @Test("an inline handler with nothing to read, added once the task has finished, runs at once, on the adding thread")
    func lateInlineHandler() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let task = makeService(sandbox, session: session).GET("/hello/")
            #expect(await waitForCall { done in task.response { _, _ in done() } })
            // The handler's operation has ended once the serial delegate queue runs the next one:
            // the chain is idle.
            #expect(await waitForCall { done in session.delegateQueue.addOperation { done() } })
            let recorder = Recorder()
            task.response(.inline) { _, data in recorder.record("handler \(data.count)") }
            recorder.record("add returned")
            #expect(recorder.all == ["handler 11", "add returned"])
        }
    }

    @Test("handlers without a queue take the session's handler queue, or the cycle's when it has one")
    func sessionAndCycleQueues() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let q1 = makeNamedQueue("q1")
            let q2 = makeNamedQueue("q2")
            session.handlerQueue = .queue(q1)
            let service = makeService(sandbox, session: session)
            let recorder = Recorder()
            let done = await waitForCall { done in
                service.GET("/hello/")
                    .responseString { _ in recorder.record("session \(currentQueueName())") }
                    .response(.delegateQueue) { _, _ in
                        recorder.record("named \(currentQueueName())")
                        done()
                    }
            }
            #expect(done)
            let cycleDone = await waitForCall { done in
                chain(on: service) { service.GET("/hello/").configure { $0.handlerQueue = .queue(q2) } }
                    .responseString { _ in
                        recorder.record("cycle \(currentQueueName())")
                        done()
                    }
            }
            #expect(cycleDone)
            #expect(recorder.all == ["session q1", "named delegate", "cycle q2"])
        }
    }

    @Test("the delegate queue named as an operation queue is the delegate queue: handlers in a row on it share one turn")
    func namingTheDelegateQueue() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let service = makeService(sandbox, session: session)
            let recorder = Recorder()
            let done = await waitForCall { done in
                // Written with the delegate queue suspended: both handlers are in the chain before
                // the first can run.
                _ = chain(on: service) { () -> ServiceTask in
                    service.GET("/hello/")
                        .response(.queue(session.delegateQueue)) { _, _ in
                            recorder.record("1 \(currentQueueName())")
                            // Runs after the next handler only if that one is in this same turn.
                            session.delegateQueue.addOperation {
                                recorder.record("operation")
                                done()
                            }
                        }
                        .response { _, _ in recorder.record("2 \(currentQueueName())") }
                }
            }
            #expect(done)
            #expect(recorder.all == ["1 delegate", "2 delegate", "operation"])
        }
    }
}
