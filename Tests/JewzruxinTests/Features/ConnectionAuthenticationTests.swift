import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the sandbox's NTLM endpoint answers an authenticated request.
struct NTLMReport: Decodable, Equatable {
    var authenticated: Bool
    var scheme: String
    var user: String
    var domain: String
    var method: String
    var bodyLength: Int
}

/// Whether this process's libcurl runs NTLM, and Negotiate.
enum CurlAuthenticationSupport {
    static var ntlm: Bool { (try? CurlLibrary.system.get())?.features.contains(.ntlm) ?? false }
    static var spnego: Bool { (try? CurlLibrary.system.get())?.features.contains(.spnego) ?? false }

    /// Whether a Kerberos credential cache may hold a ticket here: then Negotiate may get as far
    /// as the sandbox refusing the token.
    static var mayHaveKerberosTicket: Bool {
        if ProcessInfo.processInfo.environment["KRB5CCNAME"] != nil { return true }
        return FileManager.default.fileExists(atPath: "/tmp/krb5cc_\(getuid())")
    }
}

/// NTLM and Negotiate, on every transport: curl runs the handshake, the others say why they can't.
@Suite("NTLM and Negotiate on every transport", .onEveryTransport)
struct ConnectionAuthenticationTests {
    static let ntlm = NTLMAuthentication(username: "test", password: "12345")

    @Test("NTLM: curl authenticates; native and URLSession fail with the scheme and the reason, not a bare 401")
    func ntlm() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/auth/ntlm/test/12345/"), authentications: [Self.ntlm], session: makeSession(), completionHandler: $0)
            }
            switch TransportUnderTest.current {
            case .curl where CurlAuthenticationSupport.ntlm:
                #expect(result.error == nil)
                #expect(result.response.statusCode == 200)
                let report = try JSONDecoder().decode(NTLMReport.self, from: result.response.data)
                #expect(report.user == "test")
                #expect(report.scheme == "NTLM")
            case .curl:
                let failure = unavailableAuthentication(result.error)
                #expect(failure?.reason.contains("without NTLM") == true)
            case .native:
                let failure = unavailableAuthentication(result.error)
                #expect(failure?.scheme == "NTLM")
                #expect(failure?.reason.contains("native transport") == true)
                #expect(failure?.response.statusCode == 401)
                #expect(failure?.response.value(forHTTPHeaderField: "WWW-Authenticate") == "NTLM")
            case .urlSession:
                let failure = unavailableAuthentication(result.error)
                #expect(failure?.scheme == "NTLM")
                #expect(failure?.reason.contains("URLSession") == true)
                #expect(failure?.response.statusCode == 401)
            }
            let description = (result.error as? HTTPError)?.description ?? ""
            if result.error != nil { #expect(description.hasPrefix("NTLM authentication is unavailable for http://127.0.0.1:")) }
        }
    }

    @Test("Negotiate without a Kerberos ticket: the error names Negotiate and why, promptly, on every transport")
    func negotiate() async throws {
        try await withSandbox { sandbox in
            let started = Date()
            let result = try await outcome { completion in
                let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/auth/negotiate/")), session: makeSession())
                cycle.authentications = [NegotiateAuthentication()]
                cycle.timeoutIntervalForResource = 30
                cycle.start(completion)
                return cycle
            }
            // Ended by the answer, not by the 30 s deadline (a hang would end in deadlineExceeded,
            // which the checks below refuse too). Milliseconds alone; the bound leaves room for the
            // whole suite, where every await can wait seconds for the pool (16.9 s seen once).
            #expect(Date().timeIntervalSince(started) < 25)
            if TransportUnderTest.current == .curl, CurlAuthenticationSupport.mayHaveKerberosTicket,
               (result.error as? HTTPError)?.statusCode == 401 {
                return  // a ticket was sent and the sandbox refused it: the 401 stands
            }
            let failure = unavailableAuthentication(result.error)
            #expect(failure?.scheme == "Negotiate")
            #expect(failure?.response.statusCode == 401)
            if TransportUnderTest.current == .curl, CurlAuthenticationSupport.spnego {
                #expect(failure?.reason.contains("Kerberos ticket") == true)
            }
        }
    }

    @Test("without an NTLM or Negotiate authentication, their 401 is the 401 it always was", arguments: [
        "/auth/ntlm/test/12345/", "/auth/negotiate/",
    ])
    func noCredentials(path: String) async throws {
        try await withSandbox { sandbox in
            let basic = BasicAuthentication(username: "test", password: "12345")
            for authentications in [nil, [basic] as [any HTTPAuthenticator]] {
                let result = try await outcome {
                    try HTTPCycle.get(sandbox.string(path), authentications: authentications, session: makeSession(), completionHandler: $0)
                }
                #expect((result.error as? HTTPError)?.statusCode == 401)
                #expect(result.response.text == "Unauthorized")
            }
        }
    }

    @Test("a session's authentications carry NTLM as a cycle's do")
    func sessionAuthentications() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.authentications = [Self.ntlm]
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/auth/ntlm/test/12345/"), session: session, completionHandler: $0) }
            if TransportUnderTest.current == .curl, CurlAuthenticationSupport.ntlm {
                #expect(result.response.statusCode == 200)
            } else {
                #expect(unavailableAuthentication(result.error)?.scheme == "NTLM")
            }
        }
    }
}

/// The curl transport runs the handshake: what the cycle sees of it, against the sandbox's real
/// NTLM server.
@Suite("NTLM on the curl transport", .enabled(if: CurlAuthenticationSupport.ntlm, "this libcurl has no NTLM"))
struct CurlNTLMTests {
    func curlSession() -> HTTPSession {
        TransportUnderTest.$current.withValue(.curl) { makeSession() }
    }

    @Test("the right password: 200 and the JSON; the handler and the response never see the handshake's 401", arguments: [
        (NTLMAuthentication(username: "test", password: "12345"), ""),
        (NTLMAuthentication(username: "TEST", password: "12345", domain: "CORP"), "CORP"),
        (NTLMAuthentication(username: #"CORP\test"#, password: "12345"), "CORP"),
    ])
    func success(authentication: NTLMAuthentication, domain: String) async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            // Refuses anything but a 200: an intermediate 401 reaching it would fail the cycle.
            let handler = RecordingHandler(refusesFailures: true)
            let result = try await fetchContent(sandbox.string("/auth/ntlm/test/12345/"), handler: handler, session: session) {
                $0.authentications = [authentication]
            }
            #expect(result.error == nil)
            #expect(result.response.statusCode == 200)
            #expect(result.response.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
            #expect(handler.summary == ["prepare 200", "append", "parse", "cleanup"])
            let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/auth/ntlm/test/12345/")), session: session)
            cycle.authentications = [authentication]
            try await cycle.start()
            let report = try JSONDecoder().decode(NTLMReport.self, from: cycle.response.data)
            #expect(report == NTLMReport(
                authenticated: true, scheme: "NTLM", user: authentication.username.split(separator: "\\").last.map(String.init) ?? "",
                domain: domain, method: "GET", bodyLength: 0))
            await settle(session)
        }
    }

    @Test("a wrong password ends in the final 401, once; the handshake's own 401 reaches nothing")
    func wrongPassword() async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            let handler = RecordingHandler()
            let result = try await fetchContent(sandbox.string("/auth/ntlm/test/12345/"), handler: handler, session: session) {
                $0.authentications = [NTLMAuthentication(username: "test", password: "54321")]
            }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            // The refusal, not the challenge message of the handshake's 401 (`NTLM <type 2>`).
            #expect(result.response.value(forHTTPHeaderField: "WWW-Authenticate") == "NTLM")
            #expect(handler.summary == ["prepare 401", "append", "cleanup"])
            let cycle = HTTPCycle(requestURL: try #require(sandbox.url("/auth/ntlm/test/12345/")), session: session)
            cycle.authentications = [NTLMAuthentication(username: "test", password: "54321")]
            await #expect(throws: HTTPError.self) { try await cycle.start() }
            #expect(cycle.response.text == "Unauthorized: the NTLMv2 answer is wrong")
            await settle(session)
        }
    }

    @Test("the connection stays authenticated: the next cycles reuse it without a handshake")
    func connectionReuse() async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            session.authentications = [NTLMAuthentication(username: "test", password: "12345")]
            for _ in 0..<3 {
                let cycle = try await HTTPCycle.get(sandbox.string("/auth/ntlm/test/12345/"), session: session)
                #expect(cycle.response.statusCode == 200)
            }
            #expect(sandbox.acceptedConnectionCount == 1)
            await settle(session)
        }
    }

    @Test("a POST's body reaches the server once the handshake is done", arguments: [0, 10, 5000])
    func post(size: Int) async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            let body = Data(repeating: UInt8(ascii: "x"), count: size)
            let cycle = try await HTTPCycle.post(
                sandbox.string("/auth/ntlm/test/12345/"), requestObject: body, requestProcessors: [HTTPDataProcessor()],
                authentications: [NTLMAuthentication(username: "test", password: "12345")], session: session)
            let report = try JSONDecoder().decode(NTLMReport.self, from: cycle.response.data)
            #expect(report.method == "POST")
            #expect(report.bodyLength == size)
            await settle(session)
        }
    }

    @Test("with Negotiate too, a server that offers NTLM only still gets NTLM")
    func bothSchemes() async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            let cycle = try await HTTPCycle.get(
                sandbox.string("/auth/ntlm/test/12345/"),
                authentications: [NegotiateAuthentication(), NTLMAuthentication(username: "test", password: "12345")], session: session)
            #expect(cycle.response.statusCode == 200)
            await settle(session)
        }
    }

    @Test("a server that asks for nothing sees no NTLM message, and a POST's body at once", arguments: [
        [NTLMAuthentication(username: "test", password: "12345")] as [any HTTPAuthenticator],
        [NegotiateAuthentication()], [NTLMAuthentication(username: "test", password: "12345"), NegotiateAuthentication()],
    ])
    func unasked(authentications: [any HTTPAuthenticator]) async throws {
        try await withSandbox { sandbox in
            let seen = Mutex<[String?]>([])
            // Refuses an empty body, as an API that validates its input does.
            sandbox.route("/strict/") { request in
                seen.withLock { $0.append(request.headers["Authorization"]) }
                return request.body.isEmpty ? .error(400, "empty body") : .text("got \(request.body.count)")
            }
            let session = curlSession()
            session.authentications = authentications
            let cycle = try await HTTPCycle.post(
                sandbox.string("/strict/"), requestObject: Data("payload".utf8), requestProcessors: [HTTPDataProcessor()], session: session)
            #expect(cycle.response.text == "got 7")
            #expect(seen.withLock { $0 } == [nil])
            await settle(session)
        }
    }

    @Test("a request with no challenge passes as before, its head delivered at once with the body")
    func unchallenged() async throws {
        try await withSandbox { sandbox in
            let session = curlSession()
            let handler = RecordingHandler()
            let result = try await fetchContent(sandbox.string("/bytes/300000"), handler: handler, session: session) {
                $0.authentications = [NTLMAuthentication(username: "test", password: "12345")]
            }
            #expect(result.error == nil)
            #expect(result.response.content as? Int == 300_000)
            #expect(handler.summary == ["prepare 200", "append", "parse", "cleanup"])
            let empty = try await HTTPCycle.get(
                sandbox.string("/echo/?code=204"), authentications: [NTLMAuthentication(username: "test", password: "12345")], session: session)
            #expect(empty.response.statusCode == 204)
            await settle(session)
        }
    }
}
