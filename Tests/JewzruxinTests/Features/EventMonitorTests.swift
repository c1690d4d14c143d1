import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an ``HTTPEventMonitor`` hears of a cycle's runs, and the ready ``HTTPLogger``.
@Suite("Event monitors", .onEveryTransport)
struct EventMonitorTests {
    /// Writes down every event, in order; reads the cycle in each, which would deadlock if the
    /// engine called it with the cycle locked.
    final class Recorder: HTTPEventMonitor {
        let events = Locked<[String]>([])

        private func note(_ event: String) { events.withLock { $0.append(event) } }

        func cycleDidBegin(_ cycle: HTTPCycle) { note("begin \(cycle.request.url?.lastPathComponent ?? "")") }
        func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest) { note("send \(request.url?.lastPathComponent ?? "")") }
        func cycle(_ cycle: HTTPCycle, didReceive response: HTTPResponse) { note("head \(response.statusCode ?? 0)") }
        func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) { note("metrics") }
        func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval) { note("retry \(delay)") }
        func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {
            note("finish \(error.map { HTTPLogger.summary(of: $0) } ?? "ok") \(cycle.state)")
        }

        /// The events, without the metrics ones (not every transport measures).
        var withoutMetrics: [String] { events.withLock { $0 }.filter { $0 != "metrics" } }
    }

    @Test("a run that follows a 307: begin, each request sent and its head, then one finish, in order")
    func redirectedRun() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let recorder = Recorder()
            session.eventMonitors = [recorder]
            let outcome = try await outcome { try HTTPCycle.get(sandbox.string("/redirect/?to=/hello/&code=307"), session: session, completionHandler: $0) }
            #expect(outcome.response.text == "Hello World")
            #expect(recorder.withoutMetrics == ["begin redirect", "send redirect", "head 307", "send hello", "head 200", "finish ok finished"])
            if TransportUnderTest.current != .urlSession {
                // curl and native measure every exchange, each after its head.
                #expect(recorder.events.withLock { $0 }.filter { $0 == "metrics" }.count == 2)
            }
        }
    }

    @Test("a retried run: the retry with its delay between the two tries; the failure ends the run once")
    func retriedRun() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.retryPolicy = RetryPolicy(maximumRetryCount: 1, retryDelay: 0.01)
            let recorder = Recorder()
            session.eventMonitors = [recorder]
            let outcome = try await outcome { try HTTPCycle.get(sandbox.string("/status/503"), session: session, completionHandler: $0) }
            #expect(outcome.error != nil)
            #expect(recorder.withoutMetrics == [
                "begin 503", "send 503", "head 503", "retry 0.01", "send 503", "head 503",
                "finish status 503 seems to have erred finished",
            ])
        }
    }

    @Test("an explicit cancel ends the run for the monitors, though no completion handler runs; a restart ends the run it replaces")
    func cancelAndRestart() async throws {
        try await withSandbox { sandbox in
            let release = DispatchSemaphore(value: 0)
            sandbox.route("/held/") { _ in
                release.wait()
                return .text("held")
            }
            let session = makeSession()
            let recorder = Recorder()
            session.eventMonitors = [recorder]
            let url = try #require(URL(string: sandbox.string("/held/")))
            let cycle = HTTPCycle(requestURL: url, session: session)
            let called = Locked(0)
            cycle.start { _, _ in called.withLock { $0 += 1 } }
            cycle.restart()
            cycle.cancel(explicitly: true)
            // Answers both requests: URLSession on Linux may report a cancelled task's end only then.
            release.signal()
            release.signal()
            await session.drain()
            #expect(called.withLock { $0 } == 0)
            #expect(recorder.withoutMetrics.filter { !$0.hasPrefix("send") } == [
                "begin held", "finish the cycle was cancelled running", "begin held", "finish the cycle was cancelled cancelled",
            ])
        }
    }

    @Test("the logger: one line per run; at debug level the curl command with credentials redacted, or revealed when asked")
    func logger() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let lines = Locked<[String]>([])
            let revealed = Locked<[String]>([])
            session.eventMonitors = [
                HTTPLogger(level: .debug, bodyLimit: 4) { line in lines.withLock { $0.append(line) } },
                HTTPLogger(revealsCredentials: true) { line in revealed.withLock { $0.append(line) } },
            ]
            let url = try #require(URL(string: sandbox.string("/dumpupload/").replacingOccurrences(of: "://", with: "://user:secret@")))
            let cycle = HTTPCycle(requestURL: url, requestMethod: .post, session: session)
            cycle.request.setValue("Bearer token-1", forHTTPHeaderField: "Authorization")
            cycle.request.setValue("a=b", forHTTPHeaderField: "Cookie")
            cycle.request.data = Data("0123456789".utf8)
            let outcome = try await outcome { completion in
                cycle.start(completion)
                return cycle
            }
            #expect(outcome.error == nil)
            let written = lines.withLock { $0 }
            try #require(written.count == 2)
            #expect(written[0].hasPrefix("→ curl -X 'POST' "))
            #expect(written[0].contains("'Authorization: <redacted>'"))
            #expect(written[0].contains("'Cookie: <redacted>'"))
            #expect(written[0].contains("--data-binary '0123'"))
            #expect(written[0].contains("user:redacted@"))
            #expect(written[0].hasSuffix("# body cut, 10 bytes in all"))
            #expect(!written.joined().contains("secret") && !written.joined().contains("token-1"))
            #expect(written[1].hasPrefix("POST http://user:redacted@127.0.0.1:"))
            #expect(written[1].contains("/dumpupload/ → 200, 10 bytes, "))
            #expect(written[1].hasSuffix(" ms"))
            // Info level: no command; credentials revealed when asked.
            #expect(revealed.withLock { $0 }.count == 1)
            #expect(revealed.withLock { $0 }.first?.hasPrefix("POST http://user:secret@127.0.0.1:") == true)
        }
    }
}
