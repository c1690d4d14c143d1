import Foundation
import Jewzruxin
import JewzruxinSandbox
import Testing
@testable import PlaygroundKit

/// What a new user meets first (issue #32): `base URL` as the README writes it, bad URLs, header
/// confirmations, the request timeout and empty bodies. In-process, each on its own sandbox.
@Suite("Playground: base URL, headers, timeout and empty bodies, as a new user meets them")
struct FirstContactTests {
    @Test("text and json of an empty body say it is empty", arguments: ["GET /echo/", "GET /status/204", "HEAD /hello/"])
    func emptyBody(request: String) async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: request).succeeded)
            output.clear()
            #expect(await playground.run(line: "text; json").succeeded)
            #expect(!(await playground.run(line: "json stores.0").succeeded))
            #expect(output.all == """
                (empty body)
                (empty body)
                error: the body is empty: no value at the key path stores.0

                """)
        }
    }
}
