import Foundation
import Jewzruxin
import JewzruxinSandbox
import Testing
@testable import PlaygroundKit

/// What a new user meets first (issue #32): `base URL` as the README writes it, bad URLs, header
/// confirmations, the request timeout and empty bodies. In-process, each on its own sandbox.
@Suite("Playground: base URL, headers, timeout and empty bodies, as a new user meets them")
struct FirstContactTests {
    @Test("base URL <url> as the README writes it switches servers and says so; base URL alone prints it; base URL sandbox comes back")
    func baseURLAsWritten() async throws {
        let other = try Sandbox.start()
        defer { other.stop() }
        try await withPlayground { playground, output, sandbox in
            let sandboxURL = sandbox.baseURL.absoluteString
            let otherURL = other.baseURL.absoluteString

            // WHEN the user types the README's words
            #expect(await playground.run(line: "base URL \(otherURL); GET /hello/").succeeded)

            // THEN the request went to the other server, and the switch was confirmed
            #expect(playground.baseURL == otherURL)
            #expect(playground.last?.request.url?.port == other.baseURL.port)
            #expect(await playground.run(line: "base URL; base URL sandbox; BASE url; base; base \(otherURL)/api/; base sandbox").succeeded)
            #expect(playground.baseURL == sandboxURL)
            #expect(PlaygroundExecutable.masked(output.standardOutput) == PlaygroundExecutable.masked("""
                base URL: \(otherURL)
                200 OK  0 ms  11 bytes
                base URL: \(otherURL)
                base URL: \(sandboxURL) (the sandbox)
                base URL: \(sandboxURL) (the sandbox)
                base URL: \(sandboxURL) (the sandbox)
                base URL: \(otherURL)/api
                base URL: \(sandboxURL) (the sandbox)

                """))
            #expect(output.standardError == "")
        }
    }

    @Test("a bad base URL is named with the reason, and the base URL stays as it was", arguments: [
        ("base URL ht!tp://x", "invalid base URL ht!tp://x: ht!tp is not a URL scheme (http or https)"),
        ("base URL not a url", "invalid base URL 'not a url': it doesn't start with http:// or https://"),
        ("base not-a-url", "invalid base URL not-a-url: it doesn't start with http:// or https://"),
        ("base URL ftp://example.com", "invalid base URL ftp://example.com: the scheme must be http or https"),
        ("base URL http://", "invalid base URL http://: the URL has no host"),
        ("base URL 'http://a b'", "invalid base URL 'http://a b': a URL has no spaces (write %20)"),
        ("base URL http://h/?q=1", "invalid base URL http://h/?q=1: a base URL has no query or fragment"),
    ])
    func badBaseURL(line: String, message: String) async throws {
        try await withPlayground { playground, output, sandbox in
            #expect(!(await playground.run(line: line).succeeded))
            #expect(output.standardError == "error: \(message)\n")
            #expect(output.standardOutput == "")
            #expect(playground.baseURL == sandbox.baseURL.absoluteString)
            // The next request still goes to the sandbox, as the user was told nothing changed.
            #expect(await playground.run(line: "GET /hello/").succeeded)
        }
    }

    @Test("a request to a malformed absolute URL is refused with the reason, and nothing is sent", arguments: [
        ("GET ht!tp://example.com/", "invalid URL ht!tp://example.com/: ht!tp is not a URL scheme (http or https)"),
        ("GET 'http://a b/'", "invalid URL 'http://a b/': a URL has no spaces (write %20)"),
        ("POST ftp://example.com/ a=1", "invalid URL ftp://example.com/: the scheme must be http or https"),
        ("GET http:///hello/", "invalid URL http:///hello/: the URL has no host"),
    ])
    func badRequestURL(line: String, message: String) async throws {
        try await withPlayground { playground, output, _ in
            #expect(!(await playground.run(line: line).succeeded))
            #expect(output.standardError == "error: \(message)\n")
            #expect(playground.last == nil)
        }
    }

    @Test("header Name: value says so; header Name: stops sending it and says so; header lists them")
    func headerConfirmations() async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "header X-Token: abc; header Accept: application/json; header").succeeded)
            #expect(output.all == """
                header X-Token: abc
                header Accept: application/json
                X-Token: abc
                Accept: application/json

                """)

            output.clear()
            #expect(await playground.run(line: "header x-token:; GET /inspect/; header").succeeded)
            let sent = try JSON(data: try #require(playground.last?.response?.data))
            let names = (sent["headers"]?.arrayValue ?? []).compactMap { $0[0]?.stringValue?.lowercased() }
            #expect(names.contains("accept"))
            #expect(!names.contains("x-token"))
            #expect(PlaygroundExecutable.masked(output.all).replacing(#/\d+ bytes/#, with: "N bytes") == """
                header X-Token removed
                200 OK  N ms  N bytes
                Accept: application/json

                """)

            output.clear()
            #expect(!(await playground.run(line: "header X-Token:").succeeded))
            #expect(await playground.run(line: "unheader Accept; header").succeeded)
            #expect(output.all == """
                error: no session header named X-Token (header lists them)
                header Accept removed
                no session headers (header Name: value adds one)

                """)
        }
    }

    @Test("timeout SECONDS makes a request that waits longer fail with a timeout message, on every transport",
          arguments: ["urlsession", "native", "curl"])
    func timeoutFailsSlowRequest(transport: String) async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "transport \(transport); timeout 0.2").succeeded)

            // WHEN the server waits 5 s before answering
            #expect(!(await playground.run(line: "GET /echo/?delay=5").succeeded))

            // THEN the request fails on the timeout (had it waited, the answer would be 200 OK), and the
            // message says why. No wall-clock bound: on a loaded machine the failure may come late.
            #expect(PlaygroundExecutable.masked(output.standardError) == """
                error: GET http://127.0.0.1:PORT/echo/?delay=5: timed out (the timeout is 0.2 s; timeout SECONDS changes it)

                """)
            #expect(output.standardOutput == "transport: \(transport)\ntimeout: 0.2 s\n")
        }
    }

    @Test("timeout alone prints it; timeout default and timeout off restore it; it stays across transport switches")
    func timeoutSettings() async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "timeout; timeout 2.5; transport native; timeout; TIMEOUT 3s; timeout off").succeeded)
            #expect(await playground.run(line: "timeout 1; timeout default; GET /echo/?delay=0.1").succeeded)
            #expect(playground.timeout == Playground.Configuration.defaultTimeout)
            #expect(PlaygroundExecutable.masked(output.all) == """
                timeout: 30 s (the default)
                timeout: 2.5 s
                transport: native
                timeout: 2.5 s
                timeout: 3 s
                timeout: 30 s (the default)
                timeout: 1 s
                timeout: 30 s (the default)
                200 OK  N ms  0 bytes

                """)
        }
    }

    @Test("a bad timeout is refused with the reason, and the timeout stays as it was", arguments: [
        ("timeout -1", "invalid timeout -1: it must be more than 0 and at most 86400 seconds"),
        ("timeout 0", "invalid timeout 0: it must be more than 0 and at most 86400 seconds"),
        ("timeout 1e9", "invalid timeout 1e9: it must be more than 0 and at most 86400 seconds"),
        ("timeout soon", "invalid timeout soon: not a number of seconds (timeout 2.5)"),
        ("timeout nan", "invalid timeout nan: not a number of seconds (timeout 2.5)"),
        ("timeout 1 2", "usage: timeout [SECONDS | default]"),
    ])
    func badTimeout(line: String, message: String) async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "timeout 4").succeeded)
            #expect(!(await playground.run(line: line).succeeded))
            #expect(output.standardError == "error: \(message)\n")
            #expect(playground.timeout == 4)
        }
    }

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
