import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTestSupport
import Testing

/// The fluent layer's server-sent events: `.responseEvents { }` with the outcome of the whole
/// stream, `task.events()`, and line streams, against the sandbox on every transport.
@Suite("Fluent event streams", .onEveryTransport)
struct EventStreamHandlerTests {
    private static let quick = HTTPCycle.EventStreamReconnection(maximumAttempts: 3, delay: 0)

    @Test("responseEvents runs each event in order on the handler queue, across reconnections; the other handlers see the end")
    func responseEvents() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let recorder = Recorder()
            let ended = Event()
            service.GET("/events/", parameters: ["n": "5", "per": "2", "drop": "1", "chunk": "9"])
                .responseEvents(reconnection: Self.quick) { event in
                    recorder.record("\(event.id ?? "-") \(event.type) \(OperationQueue.current === service.session.delegateQueue)")
                }
                .response { response, _ in
                    recorder.record("response \(response.statusCode ?? 0)")
                    ended.fire()
                }
                .responseError { error in
                    recorder.record("error \(error)")
                    ended.fire()
                }
            let start = ContinuousClock.now
            #expect(await ended.wait(), "on the \(TransportUnderTest.current) transport")
            #expect(recorder.all == (1...5).map { "\($0) tick true" } + ["response 204"],
                    "on the \(TransportUnderTest.current) transport, after \(ContinuousClock.now - start)")
        }
    }

    @Test("responseEvents: a first connection refused, a handler that throws, and a cancel each end the stream as an error")
    func responseEventsErrors() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let refused = Event()
            let refusedError = Locked<(any Error)?>(nil)
            service.GET("/status/503").responseEvents(reconnection: Self.quick) { _ in }
                .responseError { error in refusedError.withLock { $0 = error }; refused.fire() }
            #expect(await refused.wait())
            #expect(refusedError.withLock { $0 } is HTTPError)

            struct Stop: Error {}
            let stopped = Event()
            let seen = Locked(0)
            let stopError = Locked<(any Error)?>(nil)
            service.GET("/events/", parameters: ["n": "4"]).responseEvents(reconnection: Self.quick) { _ in
                seen.withLock { $0 += 1 }
                throw Stop()
            }
            .responseError { error in stopError.withLock { $0 = error }; stopped.fire() }
            #expect(await stopped.wait())
            #expect(stopError.withLock { $0 } is Stop)
            #expect(seen.withLock { $0 } == 1)

            let cancelled = Event()
            let firstEvent = Event()
            let cancelError = Locked<(any Error)?>(nil)
            let task = service.GET("/events/", parameters: ["n": "50", "drip_ms": "1"])
                .responseEvents(reconnection: Self.quick) { _ in firstEvent.fire() }
                .responseError { error in cancelError.withLock { $0 = error }; cancelled.fire() }
            #expect(await firstEvent.wait())
            task.cancel()
            #expect(await cancelled.wait())
            guard case HTTPError.cancelled? = cancelError.withLock({ $0 }) as? HTTPError else {
                Issue.record("expected HTTPError.cancelled, got \(String(describing: cancelError.withLock { $0 }))")
                return
            }
        }
    }

    @Test("task.events(): the task's request first, then reconnections from Last-Event-ID; a failed task throws its error")
    func events() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            var ids: [String] = []
            let task = service.GET("/events/", parameters: ["n": "4", "per": "2", "retry": "1"], options: [.header("X-Trace", "7")])
            for try await event in task.events(reconnection: Self.quick) {
                ids.append(event.id ?? "-")
            }
            #expect(ids == ["1", "2", "3", "4"])
            #expect(task.cycle?.request.value(forHTTPHeaderField: "X-Trace") == "7")
            #expect(task.cycle?.request.value(forHTTPHeaderField: "Accept") == "text/event-stream")

            let invalid = WebService(baseURLString: "not a url", session: service.session).GET("/events/")
            await #expect(throws: HTTPError.self) {
                for try await _ in invalid.events(reconnection: Self.quick) {}
            }
        }
    }

    @Test("a task's body line by line: NDJSON from /stream/N")
    func lines() async throws {
        try await withSandbox { sandbox in
            var ids: [Int] = []
            for try await line in makeService(sandbox).GET("/stream/4").bytes.lines {
                ids.append(try #require(try JSON(data: Data(line.utf8))["id"]?.intValue))
            }
            #expect(ids == [0, 1, 2, 3])
        }
    }
}
