import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

@Suite("/bearer/ endpoints", .onItsOwnThread)
struct BearerEndpointTests {
    private func bearer(_ sandbox: Sandbox, key: String, token: String?) throws -> RawResponse {
        let header = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        return try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/?key=\(key)", extraHeaders: header))
    }

    @Test("no token is valid before the first refresh; a refresh issues one and makes the old one stale")
    func refreshRotatesTokens() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let before = try bearer(sandbox, key: "k", token: "anything")
        #expect(before.status == 401)
        #expect(before.header("WWW-Authenticate") == "Bearer realm=\"sandbox\", error=\"invalid_token\"")
        #expect(try bearer(sandbox, key: "k", token: nil).status == 401)

        let first = try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/refresh/?key=k", method: "POST"))
        #expect(first.status == 200)
        #expect(first.text == "{\"access_token\":\"k.1\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
        let accepted = try bearer(sandbox, key: "k", token: "k.1")
        #expect(accepted.status == 200 && accepted.text == "Hello k.1")
        #expect(try bearer(sandbox, key: "other", token: "k.1").status == 401, "tokens are per key")

        _ = try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/refresh/?key=k", method: "POST"))
        #expect(try bearer(sandbox, key: "k", token: "k.1").status == 401)
        #expect(try bearer(sandbox, key: "k", token: "k.2").status == 200)
        #expect(sandbox.bearerRefreshCount(forKey: "k") == 2)
        #expect(sandbox.bearerRejectionCount(forKey: "k") == 3)
        #expect(sandbox.bearerRejectionCount(forKey: "other") == 1)
    }

    @Test("fail=1 refuses the refresh with a 500, counts it, and issues nothing")
    func failedRefresh() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        _ = try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/refresh/?key=f"))
        let refused = try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/refresh/?key=f&fail=1"))
        #expect(refused.status == 500)
        #expect(sandbox.bearerRefreshCount(forKey: "f") == 2)
        #expect(try bearer(sandbox, key: "f", token: "f.1").status == 200, "the last issued token stays valid")
        #expect(try TestSupport.raw(sandbox, TestSupport.getRequest("/bearer/refresh/?key=f&fail=2")).status == 400)
    }
}
