import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an event monitor hears in `cycle(_:willSend:)` is what the server receives (issue 40): the
/// fields the transport adds (the stored cookie, `Accept-Encoding`, `User-Agent`, `Host`, the
/// framing) included, on every transport.
@Suite("Headers as sent", .onEveryTransport)
struct SentHeadersTests {
    /// Keeps the request of each `willSend`, as given.
    final class SentRequests: HTTPEventMonitor {
        let requests = Locked<[HTTPRequest]>([])

        func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest) { requests.withLock { $0.append(request) } }

        var all: [HTTPRequest] { requests.withLock { $0 } }
    }

    /// The bodies a request is sent with.
    enum Body: String, CaseIterable, CustomTestStringConvertible {
        case none, inline, form

        var testDescription: String { rawValue }
    }

    /// Header fields as a multiset of lowercased name and value: the order a transport writes them
    /// in is its own.
    static func multiset(_ fields: [(String, String)]) -> [String] {
        fields.map { "\($0.0.lowercased()): \($0.1)" }.sorted()
    }

    static func multiset(of request: HTTPRequest) -> [String] {
        multiset((request.core.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) })
    }

    static func multiset(of inspection: Inspection) -> [String] {
        multiset(inspection.headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
    }

    /// A session of the transport under test with a cookie stored for the sandbox, an additional
    /// header, and `monitors`.
    static func session(for sandbox: Sandbox, monitors: [any HTTPEventMonitor]) throws -> HTTPSession {
        let session = makeSession { $0.httpAdditionalHeaders = ["X-Session": "s1"] }
        let storage = try #require(session.configuration.httpCookieStorage)
        let host = try #require(sandbox.baseURL.host)
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "sid", .value: "abc", .domain: host, .path: "/"])))
        session.eventMonitors = monitors
        return session
    }

    @Test("the fields a monitor hears in willSend are those the server received: cookie, Accept-Encoding, the caller's",
          arguments: Body.allCases)
    func monitorSeesWhatWasSent(body: Body) async throws {
        try await withSandbox { sandbox in
            // GIVEN a stored cookie, a session that decodes what its transport decodes, a caller's header
            let sent = SentRequests()
            let session = try Self.session(for: sandbox, monitors: [sent])
            let url = try #require(URL(string: sandbox.string("/inspect/")))
            let cycle = HTTPCycle(requestURL: url, requestMethod: body == .none ? .get : .post, session: session)
            cycle.request.setValue("mine", forHTTPHeaderField: "x-caller")
            switch body {
            case .none: break
            case .inline: cycle.request.data = Data("a=1&b=2".utf8)
            case .form:
                var form = MultipartFormData()
                form.append("Jane", name: "name")
                cycle.configure { $0.uploadSource = .multipart(form) }
            }
            // WHEN it is sent
            try await cycle.start()
            // THEN the monitor heard exactly the fields that arrived, real values and all
            let received = try Inspection(cycle.response)
            let heard = try #require(sent.all.first)
            #expect(sent.all.count == 1)
            #expect(Self.multiset(of: heard) == Self.multiset(of: received))
            #expect(received.values("Cookie") == ["sid=abc"])
            #expect(received.values("x-caller") == ["mine"])
            #expect(received.values("X-Session") == ["s1"])
            #expect(received.values("User-Agent") == ["Jewzruxin"])
            #expect(received.values("Host") == ["127.0.0.1:\(sandbox.port)"])
            if TransportUnderTest.current == .native {
                // It decodes no content coding, so it asks for none.
                #expect(received.values("Accept-Encoding").isEmpty)
            } else {
                #expect(received.values("Accept-Encoding").first?.contains("gzip") == true)
            }
            switch body {
            case .none: #expect(received.values("Content-Length").isEmpty)
            case .inline: #expect(received.values("Content-Length") == ["7"])
            case .form: #expect(received.values("Content-Length") == [String(received.bodyLength)])
            }
            // AND the cycle's own request is still the caller's
            #expect(cycle.request.value(forHTTPHeaderField: "Cookie") == nil)
        }
    }

    @Test("a followed redirect is completed again: the monitor hears the cookie the redirect stored, as sent")
    func redirectCompletedAgain() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/login/") { _ in
                var response = SandboxResponse.text("moved", status: 302)
                response.headers.add("Location", "/inspect/")
                response.headers.add("Set-Cookie", "sid=fresh; Path=/")
                return response
            }
            let sent = SentRequests()
            let session = try Self.session(for: sandbox, monitors: [sent])
            let cycle = try await HTTPCycle.get(sandbox.string("/login/"), session: session)
            let received = try Inspection(cycle.response)
            let requests = sent.all
            try #require(requests.count == 2)
            #expect(requests[0].value(forHTTPHeaderField: "Cookie") == "sid=abc")
            #expect(received.values("Cookie") == ["sid=fresh"])
            #expect(Self.multiset(of: requests[1]) == Self.multiset(of: received))
        }
    }

    @Test("HTTPLogger at debug and curlDescription show the cookie (redacted in the log), Accept-Encoding and User-Agent sent")
    func loggerAndCurlDescription() async throws {
        try await withSandbox { sandbox in
            let lines = Locked<[String]>([])
            let sent = SentRequests()
            let logger = HTTPLogger(level: .debug) { line in lines.withLock { $0.append(line) } }
            let session = try Self.session(for: sandbox, monitors: [logger, sent])
            let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session)
            let received = try Inspection(cycle.response)
            let agent = try #require(received.values("User-Agent").first)
            let shown = try #require(sent.all.first).curlDescription
            #expect(shown.contains("-H 'Cookie: sid=abc'"))
            #expect(shown.contains("-H 'User-Agent: \(agent)'"))
            let command = try #require(lines.withLock { $0 }.first)
            #expect(command.hasPrefix("→ curl "))
            #expect(command.contains("-H 'Cookie: <redacted>'"))
            #expect(!command.contains("sid=abc"))
            #expect(command.contains("-H 'User-Agent: \(agent)'"))
            #expect(command.contains("-H 'Host: 127.0.0.1:\(sandbox.port)'"))
            if let encodings = received.values("Accept-Encoding").first {
                #expect(shown.contains("-H 'Accept-Encoding: \(encodings)'"))
                #expect(command.contains("-H 'Accept-Encoding: \(encodings)'"))
            } else {
                #expect(TransportUnderTest.current == .native)
                #expect(!command.contains("Accept-Encoding"))
            }
        }
    }
}
