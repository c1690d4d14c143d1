import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The curl loop keeps the handle of a plain GET with its options for the next transfer, and resets
/// every other: whatever came before, each request goes out as it was made.
@Suite("Curl transport: handles kept between transfers")
struct CurlHandleReuseTests {
    @Test("GET, HEAD, POST, PUT, DELETE, a failure and GET again, one after another on one handle: each goes as made")
    func mixedSequence() async throws {
        try await withSandbox { sandbox in
            let session = oneLoopCurlSession()
            session.retryPolicy.maximumRetryCount = 0
            let url = sandbox.string("/inspect/")

            func inspect(_ method: HTTPMethod, body: Data? = nil, query: String = "") async throws -> InspectedRequest {
                let cycle = HTTPCycle(requestURL: try #require(URL(string: url + query)), requestMethod: method, session: session)
                if let body { cycle.request.data = body }
                try await cycle.start()
                #expect(cycle.response.statusCode == 200)
                return try InspectedRequest(cycle.response.data)
            }

            let first = try await inspect(.get, query: "?n=1")
            // The loop starts with the first transfer.
            let loop = try #require((session.transport as? CurlTransport)?.loopGroup?.firstLoop)
            #expect(first.method == "GET" && first.target == "/inspect/?n=1" && first.body.isEmpty)
            // A plain GET left its handle primed.
            #expect(loop.idleHandlesPrimed() == [true])

            let head = HTTPCycle(requestURL: try #require(URL(string: url)), requestMethod: .head, session: session)
            try await head.start()
            #expect(head.response.statusCode == 200)
            #expect(head.response.data.isEmpty)
            // HEAD set NOBODY: its handle was reset.
            #expect(loop.idleHandlesPrimed() == [false])

            let afterHead = try await inspect(.get)
            #expect(afterHead.method == "GET")
            #expect(afterHead.header("Content-Length") == nil)

            let post = try await inspect(.post, body: Data("a=1".utf8))
            #expect(post.method == "POST" && post.body == "a=1")
            #expect(loop.idleHandlesPrimed() == [false])

            let afterPost = try await inspect(.get)
            #expect(afterPost.method == "GET" && afterPost.body.isEmpty)
            #expect(afterPost.header("Expect") == nil)
            #expect(loop.idleHandlesPrimed() == [true])

            let put = try await inspect(.put, body: Data("put body".utf8))
            #expect(put.method == "PUT" && put.body == "put body")
            let delete = try await inspect(.delete)
            #expect(delete.method == "DELETE" && delete.body.isEmpty)
            let afterDelete = try await inspect(.get)
            #expect(afterDelete.method == "GET")

            // A GET that fails resets its handle too.
            let refusing = try RefusingPort()
            defer { withExtendedLifetime(refusing) {} }
            let closed = try #require(URL(string: refusing.url("/")))
            await #expect(throws: HTTPError.self) {
                try await HTTPCycle(requestURL: closed, requestMethod: .get, session: session).start()
            }
            #expect(loop.idleHandlesPrimed().last == false)
            let last = try await inspect(.get, query: "?n=last")
            #expect(last.method == "GET" && last.target == "/inspect/?n=last")
            #expect(loop.idleHandlesPrimed().last == true)
        }
    }
}
