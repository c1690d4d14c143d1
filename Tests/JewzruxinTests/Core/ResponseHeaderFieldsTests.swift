import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinTestSupport

@Suite("Response header fields in order", .onEveryTransport)
struct ResponseHeaderFieldsTests {
    @Test("headerFields keeps repeats apart and in order where the transport parsed the head; URLSession joins them")
    func repeatsKeptApart() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(
                sandbox.string("/echo/?content=x&header=X-Tag:one&header=X-Other:o&header=X-Tag:two"), session: makeSession())
            let tags = cycle.response.headerFields.filter { $0.name.lowercased() == "x-tag" }.map(\.value)
            if TransportUnderTest.current == .urlSession {
                #expect(tags == ["one, two"])
            } else {
                #expect(tags == ["one", "two"])
                let names = cycle.response.headerFields.map { $0.name.lowercased() }
                let first = try #require(names.firstIndex(of: "x-tag"))
                #expect(names[first...].prefix(3) == ["x-tag", "x-other", "x-tag"])
            }
            #expect(cycle.response.value(forHTTPHeaderField: "x-tag") == "one, two")
            #expect(HTTPResponse().headerFields.isEmpty)
        }
    }
}
