import Foundation
import InMemoryLogging
import Jewzruxin
@testable import JewzruxinLogging
import JewzruxinSandbox
import Logging
import Testing

@Suite struct LoggingMonitorTests {
    /// A session whose requests a `LoggingMonitor` logs to memory, at every level.
    private func loggedSession(_ configuration: LoggingMonitor.Configuration = .init()) -> (HTTPSession, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "http") { _ in handler }
        logger.logLevel = .trace
        let session = TestSessions.make()
        session.eventMonitors.append(LoggingMonitor(logger: logger, configuration: configuration))
        return (session, handler)
    }

    @Test func logsTheRequestAndItsOutcomeWithMetadata() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (session, log) = loggedSession()
            try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session)

            let entries = log.entries
            try #require(entries.count == 2)
            let (sent, done) = (entries[0], entries[1])
            #expect(sent.level == .debug)
            #expect(sent.message.description == "→ GET \(sandbox.baseURL.absoluteString)/hello/")
            #expect(done.level == .info)
            #expect(done.message.description == "GET \(sandbox.baseURL.absoluteString)/hello/ → 200")
            #expect(done.metadata["http.request.method"] == "GET")
            #expect(done.metadata["url.full"] == .string(sandbox.baseURL.absoluteString + "/hello/"))
            #expect(done.metadata["http.response.status_code"] == "200")
            #expect(done.metadata["http.response.body.size"] == "11")
            #expect(done.metadata["http.request.attempt"] == "1")
            #expect(done.metadata["http.client.request.duration"] != nil)
            // One request ID on every line of a run, 16 hex digits when the request brings none.
            let id = try #require(done.metadata["request.id"]?.description)
            #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
            #expect(sent.metadata["request.id"]?.description == id)
            // No body unless asked.
            #expect(done.metadata["http.response.body"] == nil)
        }
    }

    @Test func takesTheRequestIDFromTheRequestAndCountsAttempts() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (session, log) = loggedSession()
            let key = TestSessions.uniqueKey()
            let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/flaky/?key=\(key)&fail=1")), session: session)
            cycle.request.setValue("req-42", forHTTPHeaderField: "X-Request-ID")
            try await cycle.start()

            let entries = log.entries
            #expect(entries.map(\.level) == [.debug, .notice, .debug, .info])
            #expect(entries.allSatisfy { $0.metadata["request.id"] == "req-42" })
            #expect(entries.map { $0.metadata["http.request.attempt"]?.description } == ["1", "1", "2", "2"])
            #expect(entries[1].metadata["error.type"] == "503")
        }
    }

    @Test func logsAnErrorStatusAsAWarningAndAFailureAsAnError() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (session, log) = loggedSession()
            await #expect(throws: HTTPError.self) {
                try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/status/404", session: session)
            }
            let refused = try #require(log.entries.last)
            #expect(refused.level == .warning)
            #expect(refused.metadata["http.response.status_code"] == "404")
            #expect(refused.metadata["error.type"] == "404")

            // A port nothing listens on any more: no response at all.
            let closed = try Sandbox.start()
            let unreachable = closed.baseURL.absoluteString + "/hello/"
            closed.stop()
            await #expect(throws: HTTPError.self) { try await HTTPCycle.get(unreachable, session: session) }
            let failed = try #require(log.entries.last)
            #expect(failed.level == .error)
            #expect(failed.message.description.hasSuffix("→ no response: URLError.-1004"))
        }
    }

    @Test func redactsCredentialsHeadersQueryItemsAndFormFields() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a monitor that logs bodies and hides the API key, a token and a password
            let configuration = LoggingMonitor.Configuration(
                redactedHeaders: ["X-Api-Key"], redactedQueryItems: ["token"], redactedFormFields: ["password"], bodyLimit: 1024)
            let (session, log) = loggedSession(configuration)
            let url = try #require(sandbox.url("/dumpupload/?token=tok-SECRET&page=2"))
            let cycle = HTTPCycle(requestURL: url, requestMethod: .post, session: session)
            cycle.request.setValue("Bearer auth-SECRET", forHTTPHeaderField: "Authorization")
            cycle.request.setValue("key-SECRET", forHTTPHeaderField: "X-Api-Key")
            cycle.request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            cycle.request.data = Data("user=jane&password=pw-SECRET".utf8)
            try await cycle.start()

            // THEN no secret is written anywhere, and what isn't secret is
            let written = log.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(!written.contains("SECRET"))
            let sent = try #require(log.entries.first)
            #expect(sent.metadata["url.full"]?.description.hasSuffix("/dumpupload/?token=<redacted>&page=2") == true)
            #expect(sent.metadata["http.request.body"] == "user=jane&password=<redacted>")
            guard case .dictionary(let headers)? = sent.metadata["http.request.headers"] else {
                Issue.record("the request's headers should be logged")
                return
            }
            #expect(headers["Authorization"] == "<redacted>")
            #expect(headers["X-Api-Key"] == "<redacted>")
            // The response body echoes the form: logged, its password hidden too.
            #expect(log.entries.last?.metadata["http.response.body"] == "user=jane&password=<redacted>")
        }
    }

    @Test func redactsJSONFieldsAtAnyDepthAndCutsLongBodies() {
        let redactor = Redactor(configuration: .init(redactedFormFields: ["secret"]))
        let json = Data(#"{"a":{"secret":"s","b":[{"secret":1}]},"c":"x"}"#.utf8)
        #expect(redactor.body(json, contentType: "application/json", limit: 1000)
            == #"{"a":{"b":[{"secret":"<redacted>"}],"secret":"<redacted>"},"c":"x"}"#)
        #expect(redactor.body(Data("abcdef".utf8), contentType: "text/plain", limit: 4) == "abcd… (2 more bytes)")
    }

    @Test func redactsAURLsPasswordAndQueryItemsButNotItsFragment() throws {
        let redactor = Redactor(configuration: .init(redactedQueryItems: ["sig", "api key"]))
        let url = try #require(URL(string: "https://jane:pw@example.com/a?sig=abc&x=1&api+key=k#sig=frag"))
        #expect(redactor.url(url) == "https://jane:redacted@example.com/a?sig=<redacted>&x=1&api+key=<redacted>#sig=frag")
    }
}
