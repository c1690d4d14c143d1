import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's and the DocC catalog's interceptor example, as written there, run against the
/// sandbox: an example that stops working fails here.
@Suite("README: interceptors")
struct InterceptorReadmeTests {
    @Test("the interceptor example prints Hello me.1 after one refresh")
    func readmeExample() async throws {
        try await withSandbox { sandbox in
            // From the README (### Interceptors) and Jewzruxin.docc/GettingStarted.md.
            struct TokenAnswer: Decodable { let access_token: String; let expires_in: Double }

            // A bearer token, refreshed once for all the requests that find it expired or get a 401.
            let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "stale")) { _ in
                // The refresh goes on a session without the interceptor (here the default one).
                let refreshed = try await HTTPCycle.post(sandbox.baseURL.absoluteString + "/bearer/refresh/?key=me")
                let answer = try JSONDecoder().decode(TokenAnswer.self, from: refreshed.response.data)
                return BearerToken(accessToken: answer.access_token, expiration: Date().addingTimeInterval(answer.expires_in))
            }
            let session = HTTPSession()
            session.interceptors = [
                RequestInterceptor.header("X-Client", "readme"), // every request gets it
                auth,
                // A 429 waits half a second and goes again, twice at most.
                RequestInterceptor(retry: { _, failure in
                    failure.statusCode == 429 && failure.retriedCount < 2 ? .retryAfter(0.5) : .doNotRetry
                }),
            ]
            let me = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/bearer/?key=me", session: session)
            // print(me.response.text ?? "") // Hello me.1 (sent with a stale token, refused, refreshed, resent)
            #expect(me.response.text == "Hello me.1")
            #expect(sandbox.bearerRefreshCount(forKey: "me") == 1)
            #expect(auth.credential?.requiresRefresh == false)
        }
    }
}
