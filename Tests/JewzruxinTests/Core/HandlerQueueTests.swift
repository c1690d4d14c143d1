import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// Where a cycle's handlers run (``HandlerQueue``): the session's delegate queue, another queue of
/// either kind, or inline, chosen per session or per cycle.
@Suite("Handler queues", .onEveryTransport)
struct HandlerQueueTests {
    /// A dispatch queue that a handler can tell it runs on.
    final class MarkedQueue: Sendable {
        let queue: DispatchQueue
        private let key = DispatchSpecificKey<String>()
        let label: String

        init(_ label: String) {
            self.label = label
            queue = DispatchQueue(label: label)
            queue.setSpecific(key: key, value: label)
        }

        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == label }
    }

    @Test("inline (per session): progress, download and completion run where the events happen, with the delegate queue suspended, in order", .timeLimit(.minutes(1)))
    func inlineSession() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.handlerQueue = .inline
            session.delegateQueue.isSuspended = true
            defer { session.delegateQueue.isSuspended = false }
            let calls = Locked<[String]>([])
            let outcome = try await outcome { completion in
                try HTTPCycle.download(
                    sandbox.string("/bytes/200000"), session: session,
                    didWriteDataHandler: { _, _, total, _ in
                        calls.withLock { $0.append(OperationQueue.current === session.delegateQueue ? "progress on delegate" : "progress \(total)") }
                    },
                    downloadFileHandler: { _, file in
                        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
                        calls.withLock { $0.append("file \(size)") }
                    },
                    completionHandler: { cycle, error in
                        calls.withLock { $0.append("completion \(error == nil)") }
                        completion(cycle, error)
                    })
            }
            #expect(outcome.error == nil)
            let recorded = calls.withLock { $0 }
            let progress = recorded.dropLast(2)
            #expect(!progress.isEmpty)
            #expect(progress.last == "progress 200000")
            #expect(!progress.contains("progress on delegate"))
            #expect(recorded.suffix(2) == ["file 200000", "completion true"])
        }
    }

    @Test("a cycle's own dispatch queue overrides the session's: upload progress and completion run on it, in order")
    func cycleDispatchQueue() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.handlerQueue = .inline
            let marked = MarkedQueue("handlers")
            let url = try #require(URL(string: sandbox.string("/dumpupload/")))
            let cycle = HTTPCycle(requestURL: url, requestMethod: .post, session: session)
            cycle.handlerQueue = .queue(marked.queue)
            let calls = Locked<[String]>([])
            cycle.configure { settings in
                settings.uploadSource = .data(Data(repeating: 7, count: 100_000))
                settings.didSendBodyData = { _, _, total, _ in calls.withLock { $0.append("sent \(total) \(marked.isCurrent)") } }
            }
            let outcome = try await outcome { completion in
                cycle.start { cycle, error in
                    calls.withLock { $0.append("completion \(marked.isCurrent)") }
                    completion(cycle, error)
                }
                return cycle
            }
            #expect(outcome.error == nil)
            let recorded = calls.withLock { $0 }
            #expect(recorded.last == "completion true")
            #expect(recorded.dropLast().last == "sent 100000 true")
            #expect(recorded.allSatisfy { $0.hasSuffix("true") })
        }
    }

    @Test("an operation queue: the completion runs in one of its operations; the session's delegate queue named so is the delegate queue")
    func operationQueue() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let other = OperationQueue()
            other.maxConcurrentOperationCount = 1
            let url = try #require(URL(string: sandbox.string("/hello/")))
            for (queue, expected) in [(other, other), (session.delegateQueue, session.delegateQueue)] {
                let cycle = HTTPCycle(requestURL: url, session: session)
                cycle.handlerQueue = .queue(queue)
                let ranOn = try await outcome { completion in
                    cycle.start { cycle, error in
                        #expect(OperationQueue.current === expected)
                        completion(cycle, error)
                    }
                    return cycle
                }
                #expect(ranOn.response.text == "Hello World")
            }
            #expect(session.handlerLine(for: .queue(session.delegateQueue)) === session.handlerLine)
            #expect(session.handlerLine(for: .delegateQueue) === session.handlerLine)
            #expect(session.handlerLine(for: .queue(other)) !== session.handlerLine)
        }
    }

    @Test("the main queue is one place whichever kind names it", .usesMainQueue)
    func mainQueue() {
        let names: [HandlerQueue] = [.main, .queue(DispatchQueue.main), .queue(OperationQueue.main)]
        for name in names {
            #expect(name.line === HandlerLine.main)
        }
        let session = HTTPSession(transport: TransportUnderTest.current.transport)
        #expect(session.handlerLine(for: .main) === session.handlerLine)
        #expect(session.handlerLine(for: .queue(DispatchQueue.main)) === session.handlerLine)
        #expect(HandlerQueue.inline.isInline)
        #expect(!HandlerQueue.main.isInline)
        #expect(!HandlerQueue.delegateQueue.isInline)
    }

    @Test("a change of the session's handler queue applies to the runs that begin after it, not to the one running")
    func changeAppliesToNextRun() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let release = DispatchSemaphore(value: 0)
            sandbox.route("/held/") { _ in
                release.wait()
                return .text("held")
            }
            let url = try #require(URL(string: sandbox.string("/held/")))
            let cycle = HTTPCycle(requestURL: url, session: session)
            let first = try await outcome { completion in
                cycle.start { cycle, error in
                    #expect(OperationQueue.current === session.delegateQueue)
                    completion(cycle, error)
                }
                session.handlerQueue = .inline
                // Rejected while running: delivered as a start of its own would be, where the
                // handler queue is now (inline: before `start` returns), not where the running run
                // delivers.
                let rejected = Locked(false)
                cycle.start { _, error in
                    #expect(error.map { "\($0)" } == "\(HTTPError.alreadyRunning)")
                    rejected.withLock { $0 = true }
                }
                #expect(rejected.withLock { $0 })
                release.signal()
                return cycle
            }
            #expect(first.response.text == "held")
            // The next run is inline: it completes with the delegate queue suspended.
            session.delegateQueue.isSuspended = true
            defer { session.delegateQueue.isSuspended = false }
            release.signal()
            let again = try await outcome { completion in
                cycle.start(completion)
                return cycle
            }
            #expect(again.response.text == "held")
        }
    }
}
