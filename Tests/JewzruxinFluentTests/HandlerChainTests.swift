import Foundation
import Jewzruxin
@testable import JewzruxinFluent
import Testing
import JewzruxinTestSupport

/// The order of handlers as plain transitions, with no network and no queues.
@Suite("Handler chain", .onEveryTransport)
struct HandlerChainTests {
    private typealias Chain = ServiceTask.HandlerChain
    private typealias Outcome = ServiceTask.Outcome

    private struct Failure: Error, Equatable {
        let name: String
    }

    /// A handler whose body records its label.
    private func handler(
        _ kind: ServiceTask.Handler.Kind, _ label: String, _ recorder: Recorder, throwing error: (any Error)? = nil
    ) -> ServiceTask.Handler {
        ServiceTask.Handler(kind: kind, place: .handlers(.inline)) { _ in
            recorder.record(label)
            if let error { throw error }
        }
    }

    /// Runs every step the chain hands out, as the task does, starting with `first`.
    private func drain(_ chain: inout Chain, from first: ServiceTask.Step?) {
        var step = first
        while let current = step {
            var thrown: (any Error)?
            if case .run(let body) = current.handler.plan(current.outcome) {
                do { try body() } catch { thrown = error }
            }
            step = chain.handlerEnded(throwing: thrown)
        }
    }

    @Test("handlers wait for the outcome, then run in the order added")
    func waitsThenRunsInOrder() {
        let recorder = Recorder()
        var chain = Chain()
        #expect(chain.append(handler(.success, "a", recorder)) == nil)
        #expect(chain.append(handler(.always, "b", recorder)) == nil)
        #expect(chain.append(handler(.success, "c", recorder)) == nil)
        #expect(recorder.all.isEmpty)
        drain(&chain, from: chain.finish(Outcome(response: HTTPResponse(), error: nil)))
        #expect(recorder.all == ["a", "b", "c"])
        #expect(chain.pendingCount == 0)
        #expect(!chain.isRunning)
    }

    @Test("one step at a time: a handler added while one runs waits its turn")
    func oneAtATime() {
        let recorder = Recorder()
        var chain = Chain()
        _ = chain.append(handler(.success, "a", recorder))
        let first = chain.finish(Outcome(response: HTTPResponse(), error: nil))
        #expect(first != nil)
        #expect(chain.isRunning)
        #expect(chain.append(handler(.success, "b", recorder)) == nil)
        drain(&chain, from: first)
        #expect(recorder.all == ["a", "b"])
    }

    @Test("after an error only failure and always handlers run")
    func errorSkipsSuccessHandlers() {
        let recorder = Recorder()
        var chain = Chain()
        _ = chain.append(handler(.success, "success", recorder))
        _ = chain.append(handler(.failure, "failure", recorder))
        _ = chain.append(handler(.always, "always", recorder))
        drain(&chain, from: chain.finish(Outcome(response: nil, error: Failure(name: "request"))))
        #expect(recorder.all == ["failure", "always"])
    }

    @Test("a success handler that throws skips the success handlers after it; the error handlers get its error")
    func thrownErrorFailsTheChain() {
        let recorder = Recorder()
        var chain = Chain()
        _ = chain.append(handler(.failure, "early failure", recorder))
        _ = chain.append(handler(.success, "a", recorder, throwing: Failure(name: "thrown")))
        _ = chain.append(handler(.success, "b", recorder))
        _ = chain.append(handler(.failure, "failure", recorder))
        drain(&chain, from: chain.finish(Outcome(response: HTTPResponse(), error: nil)))
        #expect(recorder.all == ["a", "failure"])
        #expect(chain.outcome?.error as? Failure == Failure(name: "thrown"))
    }

    @Test("the first error stands: record after a failure changes nothing")
    func firstErrorStands() {
        var chain = Chain()
        _ = chain.finish(Outcome(response: nil, error: Failure(name: "first")))
        chain.record(Failure(name: "second"))
        #expect(chain.outcome?.error as? Failure == Failure(name: "first"))
    }

    @Test("an error recorded before the outcome fails a request that succeeded")
    func earlyError() {
        let recorder = Recorder()
        var chain = Chain()
        chain.record(Failure(name: "early"))
        _ = chain.append(handler(.success, "success", recorder))
        _ = chain.append(handler(.failure, "failure", recorder))
        drain(&chain, from: chain.finish(Outcome(response: HTTPResponse(), error: nil)))
        #expect(recorder.all == ["failure"])
        #expect(chain.outcome?.error as? Failure == Failure(name: "early"))
    }

    @Test("only the first finish counts")
    func finishOnce() {
        var chain = Chain()
        _ = chain.finish(Outcome(response: nil, error: Failure(name: "cancelled")))
        let recorder = Recorder()
        #expect(chain.finish(Outcome(response: HTTPResponse(), error: nil)) == nil)
        drain(&chain, from: chain.append(handler(.failure, "failure", recorder)))
        #expect(recorder.all == ["failure"])
    }

    @Test("handlers added after the outcome run at once, in order")
    func lateHandlers() {
        let recorder = Recorder()
        var chain = Chain()
        #expect(chain.finish(Outcome(response: HTTPResponse(), error: nil)) == nil)
        drain(&chain, from: chain.append(handler(.success, "late a", recorder)))
        drain(&chain, from: chain.append(handler(.failure, "late failure", recorder)))
        drain(&chain, from: chain.append(handler(.success, "late b", recorder)))
        #expect(recorder.all == ["late a", "late b"])
    }
}
