import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Races between cancel, restart and completion", .onEveryTransport)
struct RaceTests {
    @Test("cancel racing completion: every cycle's handler runs exactly once")
    func cancelRacingCompletion() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            var cycles: [HTTPCycle] = []
            for index in 0..<300 {
                let cycle = try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["content": index], session: session) { cycle, error in
                    switch error {
                    case nil: counter.record("\(cycle.response.text ?? "nil")")
                    case HTTPError.cancelled?: counter.record("\(index)")
                    case let error?: counter.record("error \(error)")
                    }
                }
                cycles.append(cycle)
            }
            // Cancel every other cycle from many threads while responses arrive.
            let started = cycles
            DispatchQueue.concurrentPerform(iterations: started.count / 2) { started[$0 * 2].cancel(explicitly: false) }
            await session.drain()
            let labels = counter.labels
            #expect(labels.count == cycles.count)
            #expect(Set(labels) == Set((0..<cycles.count).map(String.init)))
            #expect(cycles.allSatisfy { $0.state == .finished || $0.state == .cancelled })
        }
    }

    @Test("restart racing restart: only the last run reports")
    func restartStorm() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let counter = CallCounter()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?delay=0.05&content=done"))), session: session)
            cycle.start { cycle, error in counter.record("\(cycle.response.text ?? "nil") \(error == nil)") }
            DispatchQueue.concurrentPerform(iterations: 50) { _ in cycle.restart() }
            await session.drain()
            #expect(counter.labels == ["done true"])
            #expect(cycle.state == .finished)
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("the content handler starts over for every response of a task (L3)")
    func bodyResetsPerResponse() throws {
        let url = try #require(URL(string: "http://h/"))
        let accumulator = Accumulator(acceptableResponses: [200])
        let feed = ContentFeed(handler: accumulator)
        try feed.receive(HTTPResponse(core: HTTPURLResponse(url: url, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: nil)))
        #expect(try feed.append(Data("unauthorized".utf8))?.completed == 12)
        #expect(feed.bodySoFar == Data("unauthorized".utf8))
        try feed.receive(HTTPResponse(core: HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)))
        #expect(try feed.append(Data("Hello ".utf8))?.completed == 6)
        #expect(try feed.append(Data("World".utf8))?.completed == 11)
        let parsed = feed.parse()
        #expect(parsed.data == Data("Hello World".utf8))
        #expect(parsed.content as? Data == Data("Hello World".utf8))
        #expect(accumulator.data.isEmpty, "cleaned up after parsing")
    }
}
