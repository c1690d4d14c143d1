import Foundation
import JewzruxinAuth
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

@Suite("/multipart/: the parts of a multipart/form-data body, reported as JSON", .onItsOwnThread)
struct MultipartEndpointTests {
    struct Report: Decodable {
        struct Part: Decodable {
            let name: String?
            let filename: String?
            let contentType: String?
            let headers: [[String]]
            let size: Int
            let sha256: String
        }
        let boundary: String
        let contentLength: Int?
        let chunked: Bool
        let bodyLength: Int
        let parts: [Part]
    }

    private func post(_ body: String, contentType: String = "multipart/form-data; boundary=\"a b\"", method: String = "POST") -> SandboxResponse {
        var headers = SandboxHeaders()
        headers.add("Content-Type", contentType)
        headers.add("Content-Length", String(body.utf8.count))
        return Sandbox.multipart(SandboxRequest(method: method, target: "/multipart/", headers: headers, body: Data(body.utf8)))
    }

    private func text(_ response: SandboxResponse) -> String {
        String(decoding: response.body.bytes(at: 0, length: Int(response.body.count)), as: UTF8.self)
    }

    @Test("a preamble, parts with and without headers, an empty part, an epilogue; a quoted boundary")
    func parts() throws {
        let body = "preamble\r\n--a b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x %22y%22.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nline one\r\nline two\r\n--a b\r\n\r\n\r\n--a b\r\n"
            + "Content-Disposition: form-data; name=\"名\"\r\n\r\n\r\n--a b--\r\nepilogue"
        let response = post(body)
        #expect(response.status == 200)
        let report = try JSONDecoder().decode(Report.self, from: Data(text(response).utf8))
        #expect(report.boundary == "a b")
        #expect(report.contentLength == body.utf8.count && report.bodyLength == body.utf8.count && !report.chunked)
        #expect(report.parts.map(\.name) == ["f", nil, "名"])
        #expect(report.parts.map(\.filename) == ["x %22y%22.txt", nil, nil])
        #expect(report.parts.map(\.contentType) == ["text/plain", nil, nil])
        #expect(report.parts.map(\.size) == [18, 0, 0])
        #expect(report.parts[0].sha256 == SHA256.hexHash(Data("line one\r\nline two".utf8)))
        #expect(report.parts[1].headers.isEmpty)
    }

    @Test("a body that isn't a well-formed form for its boundary gets a 400 saying why", arguments: [
        ("--other\r\n\r\nx\r\n--other--\r\n", "no delimiter --a b"),
        ("--a b\r\nContent-Disposition: form-data; name=\"n\"\r\nx", "part 1 has no blank line after its headers"),
        ("--a b\r\n\r\nunterminated", "part 1 is not followed by a delimiter"),
        ("--a b\r\nNoColon\r\n\r\nx\r\n--a b--\r\n", "part 1 has a header line without a colon"),
        ("--a bXX\r\n\r\nx\r\n--a b--", "no CR LF after the delimiter of part 1"),
        ("--a b\r\n\r\nx\r\n--a b", "no CR LF after the delimiter of part 2"),
    ])
    func malformed(body: String, reason: String) {
        let response = post(body)
        #expect(response.status == 400)
        #expect(text(response).contains("malformed multipart body: \(reason)"))
    }

    @Test("another Content-Type, or no boundary, is a 400; GET is a 405")
    func refusals() {
        #expect(post("x", contentType: "text/plain").status == 400)
        #expect(post("x", contentType: "multipart/form-data").status == 400)
        #expect(post("", method: "GET").status == 405)
    }
}
