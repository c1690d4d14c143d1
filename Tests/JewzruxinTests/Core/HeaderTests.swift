import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

@Suite("Headers", .onEveryTransport)
struct HeaderTests {
    @Test("response headers are found whatever the case of the name")
    func caseInsensitive() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": "X-Custom-Thing:value 1"], session: makeSession())
            for name in ["X-Custom-Thing", "x-custom-thing", "X-CUSTOM-THING", "x-CuStOm-ThInG"] {
                #expect(cycle.response.value(forHTTPHeaderField: name) == "value 1")
            }
            #expect(cycle.response.value(forHTTPHeaderField: "X-Missing") == nil)
        }
    }

    @Test("a repeated response header comes joined with a comma")
    func repeatedHeaders() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": ["X-Repeat:one", "X-Repeat:two", "X-Repeat:three"]],
                                                session: makeSession())
            #expect(cycle.response.value(forHTTPHeaderField: "x-repeat") == "one, two, three")
        }
    }

    @Test("a header repeated with different spellings is found whole (URLSession keeps the spellings apart)")
    func repeatedHeadersSpelledDifferently() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/"), parameters: ["header": ["X-Repeat:one", "x-repeat:two", "X-REPEAT:three"]],
                                                session: makeSession())
            for name in ["X-Repeat", "x-repeat", "X-REPEAT", "x-RePeAt"] {
                let values = cycle.response.value(forHTTPHeaderField: name)?.components(separatedBy: ", ") ?? []
                #expect(values.sorted() == ["one", "three", "two"])
            }
        }
    }

    @Test("request headers: set, replaced, and removed whatever the case")
    func requestHeaders() async throws {
        try await withSandbox { sandbox in
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))), session: makeSession())
            cycle.request.setValue("first", forHTTPHeaderField: "X-Token")
            cycle.request.setValue("second", forHTTPHeaderField: "x-token")
            cycle.request.setValue("gone", forHTTPHeaderField: "X-Gone")
            cycle.request.setValue(nil, forHTTPHeaderField: "x-gone")
            #expect(cycle.request.value(forHTTPHeaderField: "X-TOKEN") == "second")
            try await cycle.start()
            let seen = try Inspection(cycle.response)
            #expect(seen.values("X-Token") == ["second"])
            #expect(seen.values("X-Gone").isEmpty)
        }
    }

    @Test("a header that could smuggle another (CR, LF, NUL) or a name that isn't a token is refused before sending",
          arguments: [("X-Note", "a\r\nX-Injected: 1"), ("X-Note", "a\nb"), ("X-Nul", "a\u{0}b"), ("Bad Name", "v"), ("X:Y", "v")])
    func headerInjection(name: String, value: String) async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))), session: session)
            cycle.request.setValue(value, forHTTPHeaderField: name)
            let result = try await outcome { handler in cycle.start(handler); return cycle }
            guard case HTTPError.invalidHeader(let refused, _)? = result.error as? HTTPError else {
                Issue.record("expected invalidHeader, got \(String(describing: result.error))")
                return
            }
            #expect(refused == name)
            #expect(result.response.statusCode == nil)
        }
    }
}
