import CoreMetrics
import Foundation
import Jewzruxin
@testable import JewzruxinMetrics
import JewzruxinSandbox
import MetricsTestKit
import Testing

@Suite struct MetricsMonitorTests {
    /// A session whose requests a `MetricsMonitor` records in `metrics`.
    private func measuredSession(_ metrics: TestMetrics) -> HTTPSession {
        let session = TestSessions.make()
        session.eventMonitors.append(MetricsMonitor(factory: metrics))
        return session
    }

    private func target(_ sandbox: Sandbox, method: String = "GET") -> [(String, String)] {
        [("http.request.method", method), ("server.address", "127.0.0.1"), ("server.port", "\(sandbox.port)"), ("url.scheme", "http")]
    }

    @Test func recordsDurationActiveRequestsAndBodySizes() async throws {
        try await Sandbox.withSandbox { sandbox in
            let metrics = TestMetrics()
            try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: measuredSession(metrics))

            var dimensions = target(sandbox)
            dimensions.insert(("http.response.status_code", "200"), at: 1)
            let duration = try metrics.expectTimer("http.client.request.duration", dimensions)
            #expect(duration.values.count == 1)
            #expect((duration.values.first ?? 0) > 0)
            #expect(try metrics.expectRecorder("http.client.response.body.size", dimensions).lastValue == 11)
            // Up when the request began, down when it ended.
            let active = try metrics.expectMeter("http.client.active_requests", target(sandbox))
            #expect(active.values == [1, 0])
        }
    }

    @Test func recordsTheRequestBodyAndTheErrorType() async throws {
        try await Sandbox.withSandbox { sandbox in
            let metrics = TestMetrics()
            let session = measuredSession(metrics)
            let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/flaky/?key=\(TestSessions.uniqueKey())&fail=1")),
                                  requestMethod: .post, session: session)
            cycle.request.data = Data("twelve bytes".utf8)
            await #expect(throws: HTTPError.self) { try await cycle.start() }

            var dimensions = target(sandbox, method: "POST")
            dimensions.insert(("http.response.status_code", "503"), at: 1)
            dimensions.append(("error.type", "503"))
            #expect(try metrics.expectTimer("http.client.request.duration", dimensions).values.count == 1)
            #expect(try metrics.expectRecorder("http.client.request.body.size", dimensions).lastValue == 12)
        }
    }

    @Test func namesAMethodHTTPDoesNotDefineOther() {
        #expect(MetricsMonitor.target(HTTPMethod(rawValue: "PURGE"), URL(string: "https://example.com/x")).map(\.1)
            == ["_OTHER", "example.com", "443", "https"])
    }
}
