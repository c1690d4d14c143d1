import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("/flaky/ endpoint", .onItsOwnThread)
struct FlakyEndpointTests {
    @Test("The first `fail` requests fail with 503, later ones succeed")
    func failThenSucceed() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        #expect(sandbox.requestCount(forFlakyKey: "a") == 0)
        var outcomes: [String] = []
        for _ in 0..<4 {
            let (data, response) = try await TestSupport.get(sandbox, "/flaky/?key=a&fail=2")
            outcomes.append("\(response.statusCode) \(String(decoding: data, as: UTF8.self))")
            #expect(response.value(forHTTPHeaderField: "Retry-After") == nil)
        }
        #expect(outcomes == ["503 flaky 1", "503 flaky 2", "200 ok after 2 failures", "200 ok after 2 failures"])
        #expect(sandbox.requestCount(forFlakyKey: "a") == 4)
    }

    @Test("Defaults: empty key, one failure")
    func defaults() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let first = try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky"))
        #expect(first.status == 503 && first.text == "flaky 1")
        let second = try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/"))
        #expect(second.status == 200 && second.text == "ok after 1 failures")
        #expect(sandbox.requestCount(forFlakyKey: "") == 2)
    }

    @Test("code and retry_after are used as given", arguments: [
        ("429", "7"), ("500", "Wed, 21 Oct 2015 07:28:00 GMT"), ("503", ""), ("502", "soon"),
    ])
    func codeAndRetryAfter(code: String, retryAfter: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let path = TestSupport.path("/flaky/", [("key", "k"), ("fail", "1"), ("code", code), ("retry_after", retryAfter)])
        let failed = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(failed.status == Int(code))
        #expect(failed.values(for: "Retry-After") == [retryAfter])
        let succeeded = try TestSupport.raw(sandbox, TestSupport.getRequest(path))
        #expect(succeeded.status == 200)
        #expect(succeeded.header("Retry-After") == nil)
    }

    @Test("Keys count separately; fail=0 succeeds at once")
    func separateKeys() throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        #expect(try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/?key=x&fail=1")).status == 503)
        #expect(try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/?key=y&fail=1")).status == 503)
        #expect(try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/?key=x&fail=1")).status == 200)
        let immediate = try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/?key=z&fail=0", method: "DELETE"))
        #expect(immediate.status == 200 && immediate.text == "ok after 0 failures")
        #expect(sandbox.requestCount(forFlakyKey: "x") == 2)
        #expect(sandbox.requestCount(forFlakyKey: "y") == 1)
        #expect(sandbox.requestCount(forFlakyKey: "z") == 1)
        #expect(sandbox.requestCount(forFlakyKey: "X") == 0)
    }

    @Test("Invalid parameters get 400 and are not counted", arguments: [
        "fail=-1", "fail=x", "code=200", "code=600", "retry_after=a%0D%0AX-Injected:%201",
    ])
    func invalid(query: String) throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let response = try TestSupport.raw(sandbox, TestSupport.getRequest("/flaky/?key=bad&\(query)"))
        #expect(response.status == 400)
        #expect(sandbox.requestCount(forFlakyKey: "bad") == 0)
    }

    @Test("Concurrent requests for one key: exactly `fail` failures")
    func concurrent() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let url = try #require(sandbox.url("/flaky/?key=c&fail=10"))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<24 {
                group.addTask { try await TestSupport.fetch(url).1.statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 503 }.count == 10)
        #expect(statuses.filter { $0 == 200 }.count == 14)
        #expect(sandbox.requestCount(forFlakyKey: "c") == 24)
    }
}
