import Foundation
import Testing
import JewzruxinTesting
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `HTTPError.authenticationUnavailable` an outcome ended with, recording an issue otherwise.
func unavailableAuthentication(
    _ error: (any Error)?, sourceLocation: SourceLocation = #_sourceLocation
) -> (scheme: String, reason: String, response: HTTPResponse)? {
    guard case .authenticationUnavailable(let scheme, let reason, let response)? = error as? HTTPError else {
        Issue.record("expected HTTPError.authenticationUnavailable, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return (scheme, reason, response)
}

/// The engine's side, on a mock transport: which requests carry the credentials, and the error of
/// a transport that runs neither scheme.
@Suite("NTLM and Negotiate in the engine")
struct ConnectionAuthenticationEngineTests {
    func session(_ mock: MockSession) -> HTTPSession {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = HTTPSession(delegateQueue: queue, transport: mock)
        session.networkActivityIndicator = nil
        return session
    }

    @Test("every request of a cycle with NTLM or Negotiate carries their credentials, the first of each scheme")
    func credentialsTravel() async throws {
        let mock = MockSession()
        mock.stub(.get, "/a", status: 200)
        let session = session(mock)
        let cycle = HTTPCycle(requestURL: try #require(URL(string: "http://intranet.example/a")), session: session)
        cycle.authentications = [
            BasicAuthentication(username: "b", password: "p"), NegotiateAuthentication(),
            NTLMAuthentication(username: "jane", password: "secret", domain: "CORP"), NTLMAuthentication(username: "other", password: "x"),
        ]
        try await cycle.start()
        let sent = try #require(mock.requests.first)
        #expect(sent.connectionCredentials == [
            ConnectionCredential(scheme: .negotiate, account: nil),
            ConnectionCredential(scheme: .ntlm, account: .init(username: "jane", password: "secret", domain: "CORP")),
        ])
        let plain = HTTPCycle(requestURL: try #require(URL(string: "http://intranet.example/a")), session: session)
        plain.authentications = [BasicAuthentication(username: "b", password: "p")]
        try await plain.start()
        #expect(mock.requests.last?.connectionCredentials == [])
        #expect(NegotiateAuthentication(username: "jane@CORP", password: "pw").connectionCredential.account?.username == "jane@CORP")
    }

    @Test("a transport that runs neither fails a challenge of theirs with a reason naming it; other 401s stand", arguments: [
        ("NTLM", "NTLM"), ("Negotiate, NTLM", "NTLM"), ("Basic realm=\"x\", NTLM", "NTLM"), ("Negotiate", nil), ("Basic realm=\"x\"", nil),
    ] as [(String, String?)])
    func customTransport(challenge: String, scheme: String?) async throws {
        let mock = MockSession()
        mock.stub(.get, "/a", status: 401, headers: ["WWW-Authenticate": challenge])
        let cycle = HTTPCycle(requestURL: try #require(URL(string: "http://intranet.example/a")), session: session(mock))
        cycle.authentications = [NTLMAuthentication(username: "jane", password: "secret")]
        let error = await #expect(throws: HTTPError.self) { try await cycle.start() }
        if let scheme {
            let failure = unavailableAuthentication(error)
            #expect(failure?.scheme == scheme)
            #expect(failure?.reason.contains("MockSession") == true)
            #expect(RetryPolicy(maximumRetryCount: 3).shouldRetry(error: error ?? HTTPError.cancelled, retriedCount: 0, solicited: true) == false)
        } else {
            #expect(error?.statusCode == 401)
        }
        #expect(mock.requests.count == 1)
    }
}
