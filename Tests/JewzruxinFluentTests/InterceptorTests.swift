import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An adapter that sets `X-From` to `name`.
private func from(_ name: String) -> RequestInterceptor {
    .header("X-From", name)
}

@Suite("Fluent interceptors", .onEveryTransport)
struct FluentInterceptorTests {
    @Test("the session's, the service's and the request's interceptors: the most specific list wins")
    func levels() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.interceptors = [from("session")]
            let plain = makeService(sandbox, session: session)
            let service = WebService(baseURLString: sandbox.baseURL.absoluteString, session: session, interceptors: [from("service")])
            func seen(_ task: ServiceTask) async throws -> [String] {
                try Inspection(try await task.data()).values("X-From")
            }
            let fromSession = try await seen(plain.GET("/inspect/"))
            let fromService = try await seen(service.GET("/inspect/"))
            let withBody = try await seen(service.POST("/inspect/", parameters: ["a": "b"]))
            let fromRequest = try await seen(chain(on: service) { service.GET("/inspect/").interceptors([from("request")]) })
            let reset = try await seen(chain(on: service) { service.GET("/inspect/").interceptors(nil) })
            #expect(fromSession == ["session"])
            #expect(fromService == ["service"])
            #expect(withBody == ["service"], "with a body too")
            #expect(fromRequest == ["request"])
            #expect(reset == ["session"])
        }
    }

    @Test("an authentication interceptor on a service refreshes once for concurrent requests")
    func authenticationOnService() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let refreshSession = makeSession()
            let refreshURL = sandbox.baseURL.absoluteString + "/bearer/refresh/?key=f&delay=0.1"
            let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "stale")) { _ in
                let json = try await WebService(baseURLString: refreshURL, session: refreshSession).POST("").json()
                guard let token = json["access_token"]?.stringValue else { throw URLError(.cannotParseResponse) }
                return BearerToken(accessToken: token, expiration: Date().addingTimeInterval(3600))
            }
            let service = WebService(baseURLString: sandbox.baseURL.absoluteString, session: session, interceptors: [auth])
            let texts = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 { group.addTask { try await service.GET("/bearer/", parameters: ["key": "f"]).string() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(texts == Array(repeating: "Hello f.1", count: 5))
            #expect(sandbox.bearerRefreshCount(forKey: "f") == 1)
        }
    }
}
