import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct NativeSmokeTests {
    @Test func getHello() async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, transport: .native)
            for _ in 0..<3 {
                let cycle = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
                #expect(cycle.response.statusCode == 200)
                #expect(cycle.response.text == "Hello World")
            }
            let cycle = try await HTTPCycle.get(sandbox.string("/redirect/?code=302&to=/hello/"), session: session)
            #expect(cycle.response.statusCode == 200)
            #expect((session.transport as? NativeTransport)?.openConnectionCount == 1)
        }
    }
}
