import Foundation
import Jewzruxin
import JewzruxinSandbox
import Testing
@testable import PlaygroundKit

/// A ``Playground`` run in-process against its own sandbox, its output captured.
@Suite("Playground: commands run in-process")
struct PlaygroundSessionTests {
    /// The headers the sandbox received, from an `/inspect/` body.
    private func receivedHeaders(_ playground: Playground) throws -> [String: String] {
        let json = try JSON(data: try #require(playground.last?.response?.data))
        var headers: [String: String] = [:]
        for pair in try #require(json["headers"]?.arrayValue) {
            if let name = pair[0]?.stringValue, let value = pair[1]?.stringValue { headers[name.lowercased()] = value }
        }
        return headers
    }

    @Test("requests run on a session whose delegate queue is private and serial")
    func session() async throws {
        try await withPlayground { playground, _, _ in
            #expect(playground.session.delegateQueue !== OperationQueue.main)
            #expect(playground.session.delegateQueue.maxConcurrentOperationCount == 1)
            #expect(playground.session.retryPolicy.maximumRetryCount == 0)
            #expect(playground.session.networkActivityIndicator === playground.indicator)
            #expect(playground.spinner == nil)
        }
    }

    @Test("transport native switches to the native transport, keeping headers and auth; transport urlsession comes back")
    func transportSwitch() async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "header X-Kept: yes; auth test 12345; transport native").succeeded)
            #expect(playground.session.transport is NativeTransport)
            #expect(playground.session.delegateQueue.maxConcurrentOperationCount == 1)
            #expect(await playground.run(line: "GET /hello_with_basic_auth/").succeeded)
            #expect(playground.last?.response?.statusCode == 200)
            #expect(await playground.run(line: "GET /inspect/").succeeded)
            let headers = try receivedHeaders(playground)
            #expect(headers["x-kept"] == "yes")
            #expect(await playground.run(line: "transport").succeeded)
            #expect(output.standardOutput.contains("transport: native"))
            #expect(!(await playground.run(line: "transport carrier-pigeon").succeeded))
            #expect(await playground.run(line: "transport urlsession").succeeded)
            #expect(!(playground.session.transport is NativeTransport))
        }
    }

    @Test("cookies lists what the servers set; they go back on every transport, stay across transport switches; cookies clear forgets them")
    func cookies() async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "cookies").succeeded)
            #expect(output.standardOutput.contains("no cookies"))
            // A Secure cookie from plain http is refused (RFC 6265bis §5.7).
            let set = #"GET /echo/ header=="Set-Cookie:flavour=oat; Path=/" header=="Set-Cookie:until=1; Path=/api; Max-Age=3600" "#
                + #"header=="Set-Cookie:secret=1; Path=/; Secure""#
            #expect(await playground.run(line: set).succeeded)
            #expect(await playground.run(line: "cookies").succeeded)
            let lines = output.standardOutput.split(separator: "\n").filter { $0.hasPrefix("flavour=") || $0.hasPrefix("until=") || $0.hasPrefix("secret=") }
            #expect(lines.count == 2, "\(output.standardOutput)")
            #expect(lines.first == "flavour=oat  127.0.0.1/  for this session")
            #expect(lines.last?.hasPrefix("until=1  127.0.0.1/api  until 20") == true && lines.last?.hasSuffix("  secure") == false)
            for transport in ["native", "curl", "urlsession"] {
                #expect(await playground.run(line: "transport \(transport); GET /inspect/").succeeded)
                let headers = try receivedHeaders(playground)
                #expect(headers["cookie"] == "flavour=oat", "\(transport)")
            }
            #expect(await playground.run(line: "cookies clear; GET /inspect/").succeeded)
            #expect(output.standardOutput.contains("2 cookies cleared"))
            let headers = try receivedHeaders(playground)
            #expect(headers["cookie"] == nil)
        }
    }

    @Test("transport curl runs requests on libcurl, keeping headers and auth, and reads the chunked trailer response")
    func curlTransport() async throws {
        try await withPlayground { playground, output, _ in
            #expect(await playground.run(line: "header X-Kept: yes; auth test 12345; transport curl").succeeded)
            #expect(playground.session.transport is CurlTransport)
            #expect(await playground.run(line: "GET /hello_with_basic_auth/").succeeded)
            #expect(playground.last?.response?.statusCode == 200)
            #expect(await playground.run(line: "GET /inspect/").succeeded)
            let headers = try receivedHeaders(playground)
            #expect(headers["x-kept"] == "yes")
            #expect(await playground.run(line: "GET /fault/chunked-trailer").succeeded)
            #expect(playground.last?.response?.text == "hello")
            #expect(await playground.run(line: "transport").succeeded)
            #expect(output.standardOutput.contains("transport: curl"))
        }
    }

    @Test("session headers go with every request until unheader; setting one again replaces it")
    func sessionHeaders() async throws {
        try await withPlayground { playground, output, _ in
            await playground.run(line: "header X-Token: abc; header x-token: def; header Accept: application/json; header")
            #expect(output.all == """
                header X-Token: abc
                header x-token: def
                header Accept: application/json
                x-token: def
                Accept: application/json

                """)

            await playground.run(line: "GET /inspect/")
            let headers = try receivedHeaders(playground)
            #expect(headers["x-token"] == "def")
            #expect(headers["accept"] == "application/json")

            output.clear()
            await playground.run(line: "unheader X-TOKEN; GET /inspect/; header; unheader X-Token")
            #expect(try receivedHeaders(playground)["x-token"] == nil)
            #expect(output.standardError == "error: no session header named X-Token (header lists them)\n")
        }
    }

    @Test("run(line:) reports success, failure and quit, and records the line")
    func lineResults() async throws {
        try await withPlayground { playground, _, _ in
            let ok = await playground.run(line: "base")
            let failed = await playground.run(line: "bogus; base")
            let quit = await playground.run(line: "base; quit; bogus")

            #expect(ok == .init(succeeded: true, quit: false, interrupted: false))
            #expect(failed == .init(succeeded: false, quit: false, interrupted: false))
            #expect(quit == .init(succeeded: true, quit: true, interrupted: false))
            #expect(playground.history.entries == ["base", "bogus; base", "base; quit; bogus"])
        }
    }

    @Test("views explain what they can't show")
    func viewErrors() async throws {
        try await withPlayground { playground, output, _ in
            // A 302 without Location is an error on URLSession only (the others hand it over as a response).
            await playground.run(line: "transport urlsession; GET /bytes/300; text; json; GET /inspect/; json headers.99.0; GET /status/302")

            #expect(PlaygroundExecutable.masked(output.standardError) == """
                error: the body (300 bytes, application/octet-stream) looks binary; save FILE keeps it
                error: the body (application/octet-stream) is not JSON; text shows it
                error: no value at the key path headers.99.0
                error: GET http://127.0.0.1:PORT/status/302: the transfer ended without a valid HTTP response

                """)
        }
    }

    @Test("after a download, text refers to the file; curl still shows the request")
    func afterDownload() async throws {
        try await withPlayground { playground, output, _ in
            await playground.run(line: "download /hello/ hello.txt")
            output.clear()
            await playground.run(line: "text; headers; curl")

            #expect(output.standardError == "error: the last body went to hello.txt (download), not to memory\n")
            #expect(output.standardOutput.hasPrefix("Content-Length: 11\nContent-Type: text/plain; charset=utf-8\ncurl 'http://"))
            let file = playground.configuration.workingDirectory.appendingPathComponent("hello.txt")
            let saved = try String(contentsOf: file, encoding: .utf8)
            #expect(saved == "Hello World")
        }
    }

    @Test("a service profile with a path as BaseURL is joined to the base URL, and uses auth")
    func relativeServiceWithAuth() async throws {
        try await withPlayground { playground, output, sandbox in
            let profile = playground.configuration.workingDirectory.appendingPathComponent("digest.plist")
            let dictionary: [String: Any] = [
                "BaseURL": "/digest_auth",
                "Resources": [["Name": "digest", "URITemplate": "{qop}/{algorithm}/"]],
            ]
            try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0).write(to: profile)

            await playground.run(line: "service digest.plist; auth test 12345; call digest qop=auth algorithm=SHA-256; text")

            #expect(output.standardError == "")
            let lines = output.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first == "loaded digest.plist: 1 resource, base URL \(sandbox.baseURL.absoluteString)/digest_auth")
            #expect(lines.dropFirst().first == "  digest  GET  {qop}/{algorithm}/")
            #expect(lines.last == "Hello World")
            #expect(playground.last?.request.url?.path == "/digest_auth/auth/SHA-256")
        }
    }

    @Test("with colours, the status and error: are coloured by class")
    func colors() async throws {
        try await withPlayground(colors: true) { playground, output, _ in
            await playground.run(line: "GET /hello/; GET /status/300; GET /status/404; bogus")

            let masked = PlaygroundExecutable.masked(output.all)
            #expect(masked == """
                \u{1B}[32m200 OK\u{1B}[0m  N ms  11 bytes
                \u{1B}[33m300 Multiple Choices\u{1B}[0m  N ms  10 bytes
                \u{1B}[31m404 Not Found\u{1B}[0m  N ms  10 bytes
                \u{1B}[31merror:\u{1B}[0m unknown command bogus (type help for the list)

                """)
        }
    }
}
