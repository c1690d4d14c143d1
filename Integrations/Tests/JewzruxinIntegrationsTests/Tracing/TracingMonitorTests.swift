import Foundation
import InMemoryTracing
import Jewzruxin
import JewzruxinSandbox
@testable import JewzruxinTracing
import Synchronization
import Testing
import Tracing

/// A value the caller puts in its `ServiceContext`, to see where it reaches.
private enum TenantKey: ServiceContextKey {
    typealias Value = String
}

/// Records the caller's tenant as each attempt's interceptors see it.
private final class TenantRecorder: HTTPInterceptor {
    let seen = Mutex<[String?]>([])

    func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        let tenant = ServiceContext.current?[TenantKey.self]
        seen.withLock { $0.append(tenant) }
        return request
    }
}

@Suite struct TracingMonitorTests {
    private func tracedSession(_ tracer: InMemoryTracer) -> HTTPSession {
        let session = TestSessions.make()
        TracingMonitor(tracer: tracer).install(on: session)
        return session
    }

    /// The header fields the sandbox's `/inspect/` says it received.
    private func receivedHeaders(_ response: HTTPResponse) throws -> [String: String] {
        struct Report: Decodable { let headers: [[String]] }
        let report = try JSONDecoder().decode(Report.self, from: response.data)
        return Dictionary(report.headers.compactMap { $0.count == 2 ? ($0[0].lowercased(), $0[1]) : nil }) { first, _ in first }
    }

    @Test func makesARequestSpanAndAnAttemptSpanUnderTheCallersSpan() async throws {
        try await Sandbox.withSandbox { sandbox in
            let tracer = InMemoryTracer()
            let session = tracedSession(tracer)
            let url = sandbox.baseURL.absoluteString + "/inspect/"
            let response = try await tracer.withSpan("checkout") { _ in
                try await HTTPCycle.get(url, session: session).response
            }

            let spans = tracer.finishedSpans
            let parent = try #require(spans.first { $0.operationName == "checkout" })
            let request = try #require(spans.first { $0.operationName == "GET" && $0.kind == .internal })
            let attempt = try #require(spans.first { $0.operationName == "GET" && $0.kind == .client })
            #expect(spans.count == 3)
            #expect(request.parentSpanID == parent.spanID)
            #expect(attempt.parentSpanID == request.spanID)
            #expect(Set([parent.traceID, request.traceID, attempt.traceID]).count == 1)
            for span in [request, attempt] {
                #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
                #expect(span.attributes["url.full"]?.toSpanAttribute() == .string(url))
                #expect(span.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
                #expect(span.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(sandbox.port)))
                #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
                #expect(span.status == nil)
            }
            #expect(attempt.attributes["http.request.resend_count"] == nil)
            // The server received the attempt's context, as the tracer injects it.
            let headers = try receivedHeaders(response)
            #expect(headers[InMemoryTracer.traceIDKey] == attempt.traceID)
            #expect(headers[InMemoryTracer.spanIDKey] == attempt.spanID)
        }
    }

    @Test func makesASpanPerAttemptAndCarriesTheContextThroughRetries() async throws {
        try await Sandbox.withSandbox { sandbox in
            let tracer = InMemoryTracer()
            let session = tracedSession(tracer)
            let tenants = TenantRecorder()
            session.interceptors.append(tenants)
            let url = sandbox.baseURL.absoluteString + "/flaky/?key=\(TestSessions.uniqueKey())&fail=1"

            // GIVEN a caller whose context names a tenant, and a request answered 503 once
            var context = ServiceContext.topLevel
            context[TenantKey.self] = "acme"
            _ = try await ServiceContext.withValue(context) {
                try await HTTPCycle.get(url, session: session)
            }

            // THEN one request span with two attempt spans under it, the second a resend
            let spans = tracer.finishedSpans
            let request = try #require(spans.first { $0.kind == .internal })
            let attempts = spans.filter { $0.kind == .client }
            try #require(attempts.count == 2)
            #expect(attempts.allSatisfy { $0.parentSpanID == request.spanID })
            #expect(attempts[0].attributes["http.response.status_code"]?.toSpanAttribute() == 503)
            #expect(attempts[0].attributes["error.type"]?.toSpanAttribute() == "503")
            #expect(attempts[0].status?.code == .error)
            #expect(attempts[1].attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
            #expect(attempts[1].attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            #expect(request.status == nil)
            // The caller's context reached the request span and every attempt's interceptors.
            #expect(request.context[TenantKey.self] == "acme")
            #expect(tenants.seen.withLock { $0 } == ["acme", "acme"])
            // Each attempt's own context went out with it.
            #expect(tracer.performedContextInjections.compactMap { $0.values[InMemoryTracer.spanIDKey] } == attempts.map(\.spanID))
        }
    }

    @Test func marksAFailedRequestAsAnError() async throws {
        try await Sandbox.withSandbox { sandbox in
            let tracer = InMemoryTracer()
            await #expect(throws: HTTPError.self) {
                try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/status/404", session: tracedSession(tracer))
            }
            let request = try #require(tracer.finishedSpans.first { $0.kind == .internal })
            #expect(request.status?.code == .error)
            #expect(request.attributes["error.type"]?.toSpanAttribute() == "404")
            #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == 404)
            #expect(tracer.activeSpans.isEmpty)
        }
    }

    @Test func leavesCredentialsOutOfTheURL() throws {
        let url = try #require(URL(string: "https://jane:secret@example.com/a?b=c"))
        #expect(TracingMonitor.withoutCredentials(url) == "https://example.com/a?b=c")
    }
}
