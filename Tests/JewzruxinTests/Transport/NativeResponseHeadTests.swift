import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// On the native transport a response's status, URL, headers and Content-Length are read from the
// parsed head, and its `HTTPURLResponse` (`core`) is made only when asked for. These tests check that
// what the fast path answers is what the Foundation response answers, for every field of a response
// whose names mix cases, repeat, and include the ones Foundation treats apart (X-, WWW-Authenticate).
@Suite("Native transport: the response head")
struct NativeResponseHeadTests {
    static let answer = [
        "HTTP/1.1 200 OK",
        "content-type: text/plain; charset=ISO-8859-1",
        "X-Tag: one",
        "x-tag: two",
        "X-TAG: three",
        "www-authenticate: Basic realm=\"a\"",
        "Set-Cookie: a=1",
        "set-cookie: b=2",
        "Content-Disposition: attachment; filename=\"report.txt\"",
        "cOnTeNt-LeNgTh: 5",
        "Empty:",
        "", "hello",
    ].joined(separator: "\r\n")

    static let names = [
        "Content-Type", "content-type", "X-Tag", "x-tag", "WWW-Authenticate", "Www-Authenticate", "Set-Cookie",
        "Content-Disposition", "Content-Length", "content-length", "Empty", "Missing", "",
    ]

    private func fetch(_ answer: String) async throws -> HTTPResponse {
        try await ScriptedServer.withServer([[.readRequest, .sendText(answer), .close]]) { server in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .native)
            session.networkActivityIndicator = nil
            return try await HTTPCycle.get(server.baseURL.absoluteString + "/path?q=1", session: session).response
        }
    }

    @Test("status, URL, header values and Content-Length are those of the Foundation response")
    func fastPathMatchesFoundation() async throws {
        let response = try await fetch(Self.answer)
        guard case .parsed? = response.head else {
            Issue.record("expected a parsed head, got \(String(describing: response.head))")
            return
        }
        let core = try #require(response.core)
        let viaFoundation = HTTPResponse(core: core, data: response.data)
        #expect(response.statusCode == 200)
        #expect(response.statusCode == viaFoundation.statusCode)
        #expect(response.url == viaFoundation.url)
        #expect(response.url?.absoluteString.hasSuffix("/path?q=1") == true)
        #expect(response.expectedContentLength == 5)
        #expect(response.expectedContentLength == core.expectedContentLength)
        for name in Self.names {
            #expect(response.value(forHTTPHeaderField: name) == viaFoundation.value(forHTTPHeaderField: name), "\(name)")
        }
        #expect(response.value(forHTTPHeaderField: "X-Tag") == "one, two, three")
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2")
        #expect(response.value(forHTTPHeaderField: "Empty") == "")
        #expect(response.headers == viaFoundation.headers)
        #expect(response.text == "hello")
        #expect(response.textEncoding == .windowsCP1252) // WHATWG: the ISO-8859-1 label means windows-1252
        #expect(core.mimeType == "text/plain")
        #expect(core.textEncodingName == "iso-8859-1")
        #expect(core.suggestedFilename == "report.txt")
    }

    // (A Content-Length that isn't a number fails the response: see the misbehaving server tests.)
    @Test("a Content-Length repeated or absent counts as unknown, as in Foundation",
          arguments: ["Content-Length: 5, 5", "Content-Length: 5\r\nContent-Length: 5", "X-None: 1"])
    func unusableContentLength(field: String) async throws {
        let response = try await fetch("HTTP/1.1 200 OK\r\n\(field)\r\nConnection: close\r\n\r\nhello")
        let core = try #require(response.core)
        #expect(response.expectedContentLength == -1, "\(field)")
        #expect(response.expectedContentLength == core.expectedContentLength, "\(field)")
        #expect(response.text == "hello")
    }

    @Test("the Foundation response is made once, whatever the threads that ask for it")
    func madeOnce() async throws {
        let response = try await fetch(Self.answer)
        let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<16 {
                group.addTask { response.core.map(ObjectIdentifier.init) }
            }
            return await group.reduce(into: Set<ObjectIdentifier?>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(identities.first.flatMap { $0 } == response.core.map(ObjectIdentifier.init))
    }

    @Test("a response whose core is replaced reads from the new one")
    func replacedCore() async throws {
        var response = try await fetch(Self.answer)
        let url = try #require(URL(string: "http://example.com/other"))
        response.core = HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["X-Tag": "new"])
        #expect(response.statusCode == 404)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "x-tag") == "new")
        #expect(response.expectedContentLength == -1)
        response.core = nil
        #expect(!response.hasHead)
        #expect(response.statusCode == nil)
        #expect(response.value(forHTTPHeaderField: "X-Tag") == nil)
    }
}
