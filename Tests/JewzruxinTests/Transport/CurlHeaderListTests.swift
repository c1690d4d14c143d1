import Testing
@testable import Jewzruxin

/// The curl transport's header lines, built in one allocation as libcurl reads a `curl_slist`.
@Suite("Curl transport: the header list")
struct CurlHeaderListTests {
    @Test("each kind of line reads back as libcurl gets it: a value, an empty value, a removal")
    func kinds() {
        let list = CurlHeaderList([
            .init(name: "Accept", value: "application/json"),
            .init(name: "X-Empty", value: ""),
            .init(name: "Expect", value: nil),
            .init(name: "X-Name", value: "café ☕︎"),
            .init(name: "Expect", value: nil),
        ])
        #expect(list.strings == ["Accept: application/json", "X-Empty;", "Expect:", "X-Name: café ☕︎", "Expect:"])
    }

    @Test("no line: no list")
    func empty() {
        let list = CurlHeaderList([])
        #expect(list.head == nil)
        #expect(list.strings.isEmpty)
    }

    @Test("lines of every length up to 300 bytes fill their block exactly")
    func lengths() {
        for length in 0...300 {
            let value = String(repeating: "v", count: length)
            let lines: [CurlHeaderList.Line] = [.init(name: "A", value: value), .init(name: "Expect", value: nil), .init(name: "B", value: value)]
            let list = CurlHeaderList(lines)
            let rendered = length == 0 ? "A;" : "A: " + value
            #expect(list.strings == [rendered, "Expect:", length == 0 ? "B;" : "B: " + value])
        }
    }
}
