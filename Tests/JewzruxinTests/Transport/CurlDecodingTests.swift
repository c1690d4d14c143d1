import Foundation
import Synchronization
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session on the curl transport.
private func curlSession(_ configure: (inout HTTPSession.Configuration) -> Void = { _ in }) -> HTTPSession {
    var configuration = HTTPSession.Configuration(.ephemeral)
    configure(&configuration)
    return HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl)
}

/// A complete response with `body` as sent and these extra header lines.
private func answer(_ body: Data, status: String = "200 OK", _ fields: String) -> Data {
    Data("HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\n\(fields)Content-Length: \(body.count)\r\n\r\n".utf8) + body
}

/// The URL error a cycle ended with, or why it didn't end with one.
private func transportError(_ error: any Error) -> URLError? {
    guard case HTTPError.transport(let urlError) = error else { return nil }
    return urlError
}

/// The curl transport's own decoding, over the wire: what it asks for, what the content handler
/// gets, and how a body that doesn't decode ends.
@Suite("Curl transport: compressed bodies")
struct CurlDecodingTests {
    @Test("it asks for what it decodes, unless the request or the configuration asks for something else")
    func acceptEncoding() async throws {
        let curl = try CurlLibrary.system.get()
        let expected = try #require(curl.acceptedEncodings)
        #expect(expected.hasPrefix(curl.contentDecoders.zstdVersion != nil ? "zstd, " : ""))
        #expect(expected.hasSuffix("gzip, deflate"))
        try await withSandbox { sandbox in
            let plain = try await HTTPCycle.get(sandbox.string("/inspect/"), session: curlSession())
            #expect(try Inspection(plain.response).values("Accept-Encoding") == [expected])

            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/inspect/"))), session: curlSession())
            cycle.request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            try await cycle.start()
            #expect(try Inspection(cycle.response).values("Accept-Encoding") == ["identity"])

            let configured = curlSession { $0.httpAdditionalHeaders = ["accept-encoding": "gzip"] }
            let fromConfiguration = try await HTTPCycle.get(sandbox.string("/inspect/"), session: configured)
            #expect(try Inspection(fromConfiguration.response).values("Accept-Encoding") == ["gzip"])
        }
    }

    @Test("each coding arrives decoded; the head stays as sent, Content-Encoding and the encoded Content-Length", arguments: [
        ("sample.txt.gz", "gzip"), ("sample.txt.zz", "deflate"), ("sample.txt.deflate", "deflate"), ("sample.txt.br", "br"),
        ("sample.txt.zst", "zstd"), ("sample.txt.gz.br", "gzip, br"),
    ])
    func decodes(file: String, contentEncoding: String) async throws {
        let text = try contentCodingFixture("sample.txt")
        let body = try contentCodingFixture(file)
        let response = answer(body, "Content-Encoding: \(contentEncoding)\r\n")
        try await ScriptedServer.withServer([[.readRequest, .send(response), .close]]) { server in
            let cycle = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            #expect(cycle.response.data == text)
            #expect(cycle.response.value(forHTTPHeaderField: "Content-Encoding") == contentEncoding)
            #expect(cycle.response.value(forHTTPHeaderField: "Content-Length") == String(body.count))
            #expect(cycle.response.metrics?.responseBodyBytes == Int64(body.count))
        }
    }

    @Test("a body that decodes to 16 MiB streams to a FileWriter; progress expects no length, the encoded one being wrong")
    func largeBodyToFile() async throws {
        let body = try contentCodingFixture("zeros-16MiB.gz")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CurlDecoding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("zeros.bin")
        try await ScriptedServer.withServer([[.readRequest, .send(answer(body, "Content-Encoding: gzip\r\n")), .close]]) { server in
            let cycle = HTTPCycle(requestURL: try #require(URL(string: server.baseURL.absoluteString + "/")), session: curlSession())
            cycle.contentHandler = FileWriter(url: destination)
            let progress = Locked<(last: Int64, expected: Set<Int64>)>((0, []))
            cycle.didWriteDataHandler = { _, _, total, expected in
                progress.withLock { $0.last = max($0.last, total); $0.expected.insert(expected) }
            }
            try await cycle.start()
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == 16 << 20)
            await cycle.session.drain()
            #expect(progress.withLock { $0.last } == 16 << 20)
            #expect(progress.withLock { $0.expected } == [-1])
        }
    }

    @Test("a truncated body fails with cannotDecodeContentData saying it is truncated", arguments: [
        ("sample.txt.gz", "gzip"), ("sample.txt.zz", "deflate"), ("sample.txt.br", "br"), ("sample.txt.zst", "zstd"),
    ])
    func truncated(file: String, contentEncoding: String) async throws {
        // The HTTP framing is complete (Content-Length of the bytes sent); the compressed stream is not.
        let body = try contentCodingFixture(file).dropLast(3)
        try await ScriptedServer.withServer([[.readRequest, .send(answer(Data(body), "Content-Encoding: \(contentEncoding)\r\n")), .close]]) { server in
            let error = await #expect(throws: HTTPError.self) {
                try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            }
            let urlError = try #require(error.flatMap(transportError))
            #expect(urlError.code == .cannotDecodeContentData)
            let coding = contentEncoding.split(separator: ",").last.map(String.init) ?? ""
            #expect(urlError.localizedDescription == "The \(coding)-encoded body is truncated: it ended after \(body.count) bytes, inside its \(coding) stream.")
            #expect(urlError.failingURL?.absoluteString == server.baseURL.absoluteString + "/")
        }
    }

    @Test("a zstd frame asking for a window over 8 MiB is refused, not allocated (RFC 9659); 8 MiB decodes")
    func zstdWindowLimit() async throws {
        let curl = try CurlLibrary.system.get()
        guard curl.contentDecoders.zstdVersion != nil else { return }
        let large = try contentCodingFixture("zeros-9MiB-window-16MiB.zst")
        try await ScriptedServer.withServer([[.readRequest, .send(answer(large, "Content-Encoding: zstd\r\n")), .close]]) { server in
            let error = await #expect(throws: HTTPError.self) {
                try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            }
            let urlError = try #require(error.flatMap(transportError))
            #expect(urlError.code == .cannotDecodeContentData)
            #expect(urlError.localizedDescription.contains("too much memory"))
        }
        let limit = try contentCodingFixture("zeros-16MiB.zst")
        try await ScriptedServer.withServer([[.readRequest, .send(answer(limit, "Content-Encoding: zstd\r\n")), .close]]) { server in
            let cycle = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            #expect(cycle.response.data.count == 16 << 20)
        }
    }

    @Test("a corrupt body fails with cannotDecodeContentData saying what was found, in a chunked body too", arguments: [false, true])
    func corrupt(chunked: Bool) async throws {
        var body = try contentCodingFixture("sample.txt.gz")
        body[body.count - 8] ^= 0xFF
        let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n" + (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: \(body.count)\r\n\r\n")
        let response = chunked
            ? Data(head.utf8) + Data(String(body.count, radix: 16).utf8) + Data("\r\n".utf8) + body + Data("\r\n0\r\n\r\n".utf8)
            : Data(head.utf8) + body
        try await ScriptedServer.withServer([[.readRequest, .send(response), .close]]) { server in
            let error = await #expect(throws: HTTPError.self) {
                try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            }
            let urlError = try #require(error.flatMap(transportError))
            #expect(urlError.code == .cannotDecodeContentData)
            #expect(urlError.localizedDescription == "The gzip-encoded body is corrupt: incorrect data check.")
        }
    }

    @Test("no body, no error: HEAD, 204 and 304 answers that name a coding")
    func noBody() async throws {
        let heads = [
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 1234\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nContent-Encoding: br\r\n\r\n",
            "HTTP/1.1 304 Not Modified\r\nContent-Encoding: zstd\r\nContent-Length: 99\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n",
        ]
        for (index, head) in heads.enumerated() {
            try await ScriptedServer.withServer([[.readRequest, .sendText(head), .close]]) { server in
                let url = server.baseURL.absoluteString + "/"
                let session = curlSession()
                let cycle = try await (index == 0 ? HTTPCycle.head(url, session: session) : HTTPCycle.get(url, session: session))
                #expect(cycle.response.data.isEmpty)
            }
        }
    }

    @Test("a coding it doesn't decode reaches the content handler as sent")
    func unknownCoding() async throws {
        let body = Data([0x1F, 0x9D, 0x90, 0x61, 0x62, 0x63])
        try await ScriptedServer.withServer([[.readRequest, .send(answer(body, "Content-Encoding: compress\r\n")), .close]]) { server in
            let cycle = try await HTTPCycle.get(server.baseURL.absoluteString + "/", session: curlSession())
            #expect(cycle.response.data == body)
            #expect(cycle.response.value(forHTTPHeaderField: "Content-Encoding") == "compress")
        }
    }
}
