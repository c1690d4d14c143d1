import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

/// Counts the lines of a body: an Accumulator subclass converting the whole body (seed 003:
/// "consider subclassing BBHTTPAccumulator").
final class LineCounter: Accumulator, @unchecked Sendable {
    override func content(from data: Data) throws -> (any Sendable)? {
        data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}

extension ContentHandlingTests {
    @Suite("Accumulator and StringConverter")
    struct AccumulatorTests {
        @Test("an Accumulator's content is the body as Data, also the response's data", arguments: [0, 1, 300_000])
        func accumulates(size: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = Accumulator()
                let result = try await fetchContent(sandbox.string("/bytes/\(size)?chunked=\(size % 2)"), handler: handler, session: session)
                let expected = SandboxBody.expectedPattern(count: size)
                #expect(result.error == nil)
                #expect(result.response.content as? Data == expected)
                #expect(result.response.data == expected)
                #expect(handler.data.isEmpty, "the buffer is released once the content is made")
                await settle(session)
            }
        }

        @Test("a Content-Length above maximumSize stops the transfer before the body", arguments: [false, true])
        func announcedTooLarge(acceptsAnyStatus: Bool) async throws {
            try await withSandbox { sandbox in
                let producer = ProducedBytes()
                let size: Int64 = 256 << 20
                sandbox.route("/huge/") { _ in SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: producer.body(count: size)) }
                let session = makeSession()
                let handler = Accumulator(maximumSize: 1000, acceptableResponses: acceptsAnyStatus ? [] : nil)
                let result = try await fetchContent(sandbox.string("/huge/"), handler: handler, session: session)
                let error = try #require(contentError(result, .contentTooLarge))
                #expect(!error.isRefusal)
                #expect(error.statusCode == 200)
                #expect(error.reason.contains("Content-Length of \(size) bytes"))
                #expect(error.reason.contains("maximum of 1000"))
                #expect(result.response.content == nil)
                await settle(session)
                #expect(producer.count < size / 4, "the sandbox produced \(producer.count) of \(size) bytes")
            }
        }

        @Test("a body without Content-Length that grows past maximumSize stops the transfer")
        func streamedTooLarge() async throws {
            try await withSandbox { sandbox in
                let producer = ProducedBytes()
                let size: Int64 = 256 << 20
                sandbox.route("/endless/") { _ in
                    SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: producer.body(count: size),
                                    transferEncoding: .chunked(chunkSize: 16 << 10))
                }
                let session = makeSession()
                let progress = ProgressLog()
                let result = try await fetchContent(sandbox.string("/endless/"), handler: Accumulator(maximumSize: 100_000), session: session) {
                    $0.didWriteDataHandler = { _, step, total, expected in progress.record(step, total, expected) }
                }
                let error = try #require(contentError(result, .contentTooLarge))
                #expect(error.reason.contains("more than 100000 bytes"))
                #expect(result.response.content == nil)
                await settle(session)
                #expect(producer.count < size / 4, "the sandbox produced \(producer.count) of \(size) bytes")
                #expect(progress.all.allSatisfy { $0.total <= 100_000 && $0.expected == -1 })
            }
        }

        @Test("maximumSize is inclusive, with and without Content-Length; one byte more fails (/bytes/N?chunked=1)", arguments: [
            (1000, 0, true), (1000, 1, true), (1001, 0, false), (1001, 1, false),
        ])
        func maximumSizeBoundary(size: Int, chunked: Int, fits: Bool) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.string("/bytes/\(size)?chunked=\(chunked)&chunk=100")
                let result = try await fetchContent(url, handler: Accumulator(maximumSize: 1000), session: session)
                if fits {
                    #expect(result.error == nil)
                    #expect(result.response.content as? Data == SandboxBody.expectedPattern(count: size))
                } else {
                    let error = try #require(contentError(result, .contentTooLarge))
                    #expect(error.reason.contains(chunked == 1 ? "more than 1000 bytes" : "Content-Length of 1001"))
                }
                await settle(session)
            }
        }

        @Test("StringConverter follows the charset of Content-Type", arguments: [
            ("iso-8859-1", "café", [0x63, 0x61, 0x66, 0xE9] as [UInt8]),
            ("windows-1252", "€uro", [0x80, 0x75, 0x72, 0x6F]),
            ("utf-8", "naïve 日本", Array("naïve 日本".utf8)),
            ("Shift_JIS", "日本", [0x93, 0xFA, 0x96, 0x7B]),
        ])
        func charsetFromHeader(label: String, text: String, bytes: [UInt8]) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let result = try await fetchContent(sandbox.echo(content: text, encoding: label), handler: StringConverter(), session: session)
                #expect(result.error == nil)
                #expect(result.response.data == Data(bytes))
                #expect(result.response.content as? String == text)
                await settle(session)
            }
        }

        @Test("StringConverter with an explicit encoding ignores the header's charset")
        func explicitEncoding() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                // Latin-1 bytes announced as UTF-8.
                let url = sandbox.echo(content: "café", encoding: "iso-8859-1", headers: ["Content-Type:text/plain; charset=utf-8"])
                let explicit = try await fetchContent(url, handler: StringConverter(encoding: .isoLatin1), session: session)
                #expect(explicit.response.content as? String == "café")
                let following = try await fetchContent(url, handler: StringConverter(), session: session)
                #expect(following.response.content as? String == "caf\u{FFFD}")

                let utf16 = try await fetchContent(sandbox.echo(content: "hé", encoding: "utf-16be"), handler: StringConverter(encoding: .utf16BigEndian), session: session)
                #expect(utf16.response.content as? String == "hé")
                await settle(session)
            }
        }

        @Test("text/* without a charset is ISO-8859-1; other types are sniffed, UTF-8 by default")
        func defaultCharsets() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let latin = try await fetchContent(
                    sandbox.echo(content: "café", headers: ["Content-Type:text/plain"]), handler: StringConverter(), session: session)
                #expect(latin.response.content as? String == "cafÃ©")
                let sniffed = try await fetchContent(
                    sandbox.echo(content: "café", headers: ["Content-Type:application/octet-stream"]), handler: StringConverter(), session: session)
                #expect(sniffed.response.content as? String == "café")
                await settle(session)
            }
        }

        @Test("StringConverter with type and status rules refuses like the others")
        func converterRefuses() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = StringConverter(acceptableContentTypes: ["text/*"])
                let refused = try await fetchContent(sandbox.string("/bytes/5"), handler: handler, session: session)
                #expect(contentError(refused, .unacceptableContentType)?.response?.data == SandboxBody.expectedPattern(count: 5))
                let taken = try await fetchContent(sandbox.string("/hello/"), handler: handler, session: session)
                #expect(taken.response.content as? String == "Hello World")
                await settle(session)
            }
        }

        @Test("an Accumulator subclass converts the whole body; the same handler starts afresh on its next cycle")
        func lineCounter() async throws {
            try await withSandbox { sandbox in
                sandbox.route("/lines/") { _ in .text("one\ntwo\nthree\n") }
                let session = makeSession()
                let handler = LineCounter()
                for _ in 0..<2 {
                    let result = try await fetchContent(sandbox.string("/lines/"), handler: handler, session: session)
                    #expect(result.error == nil)
                    #expect(result.response.content as? Int == 3)
                    #expect(result.response.data == Data("one\ntwo\nthree\n".utf8))
                }
                await settle(session)
            }
        }
    }
}
