import Foundation
import Synchronization
import Testing
import JewzruxinAuth
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// What the sandbox's `/multipart/` endpoint reports of a form it received.
struct MultipartReport: Decodable {
    struct Part: Decodable, Equatable {
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

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(MultipartReport.self, from: response.data)
    }
}

/// Forms sent through every transport to the sandbox, which parses them and reports each part's
/// name, file name, type, size and SHA-256.
@Suite("Multipart uploads", .onEveryTransport)
struct MultipartUploadTests {
    /// A file of `count` deterministic bytes in the temporary directory; remove it afterwards.
    ///
    /// The bytes come from a xorshift generator, so no block repeats (a part sent with two buffers
    /// swapped would still hash differently); written eight at a time, because a per-byte `map`
    /// keeps a thread of the test pool busy for seconds in a debug build, stalling the other tests.
    private func makeFile(_ count: Int, seed: UInt8 = 0) throws -> (url: URL, data: Data) {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            var state = 0x9E37_79B9_7F4A_7C15 ^ UInt64(seed)
            var offset = 0
            while offset < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                if offset + 8 <= count {
                    buffer.storeBytes(of: state.littleEndian, toByteOffset: offset, as: UInt64.self)
                } else {
                    for index in offset..<count { buffer[index] = UInt8(truncatingIfNeeded: state >> (8 * (index - offset))) }
                }
                offset += 8
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-upload-\(UUID().uuidString).bin")
        try data.write(to: url)
        return (url, data)
    }

    @Test("fields, a file and a data part arrive byte for byte, with a Content-Length, not chunked")
    func fieldsFileAndData() async throws {
        try await withSandbox { sandbox in
            let (file, fileBytes) = try makeFile(200_000)
            defer { try? FileManager.default.removeItem(at: file) }
            let blob = Data((0..<1_000).map { UInt8($0 % 256) })
            var form = MultipartFormData()
            form.append("Jane", name: "name")
            form.append("42", name: "age")
            form.append(fileAt: file, name: "document", filename: "report.pdf")
            form.append(blob, name: "blob", filename: "blob.bin", headers: ["X-Checksum": "abc"])
            let session = makeSession()
            let cycle = try await HTTPCycle.upload(sandbox.string("/multipart/"), source: .multipart(form), session: session)
            let report = try MultipartReport(cycle.response)
            #expect(report.boundary == form.boundary)
            #expect(!report.chunked)
            #expect(report.contentLength.map(Int64.init) == (try form.contentLength()))
            #expect(report.parts == [
                .init(name: "name", filename: nil, contentType: nil,
                      headers: [["Content-Disposition", "form-data; name=\"name\""]], size: 4, sha256: SHA256.hexHash(Data("Jane".utf8))),
                .init(name: "age", filename: nil, contentType: nil,
                      headers: [["Content-Disposition", "form-data; name=\"age\""]], size: 2, sha256: SHA256.hexHash(Data("42".utf8))),
                .init(name: "document", filename: "report.pdf", contentType: "application/pdf",
                      headers: [["Content-Disposition", "form-data; name=\"document\"; filename=\"report.pdf\""],
                                ["Content-Type", "application/pdf"]],
                      size: fileBytes.count, sha256: SHA256.hexHash(fileBytes)),
                .init(name: "blob", filename: "blob.bin", contentType: "application/octet-stream",
                      headers: [["Content-Disposition", "form-data; name=\"blob\"; filename=\"blob.bin\""],
                                ["Content-Type", "application/octet-stream"], ["X-Checksum", "abc"]],
                      size: blob.count, sha256: SHA256.hexHash(blob)),
            ])
        }
    }

    @Test("names and file names that need escaping arrive as RFC 7578 §4.2 and the HTML form encoding say")
    func escapedNames() async throws {
        try await withSandbox { sandbox in
            var form = MultipartFormData()
            form.append("1", name: "say \"hi\"")
            form.append(Data("2".utf8), name: "naïve", filename: "résumé \"final\".txt", contentType: "text/plain; charset=utf-8")
            form.append(Data("3".utf8), name: "日本", filename: "line\r\nbreak\\.txt")
            let cycle = try await HTTPCycle.upload(sandbox.string("/multipart/"), source: .multipart(form), session: makeSession())
            let parts = try MultipartReport(cycle.response).parts
            #expect(parts.map(\.name) == ["say %22hi%22", "naïve", "日本"])
            #expect(parts.map(\.filename) == [nil, "résumé %22final%22.txt", "line%0D%0Abreak\\.txt"])
            #expect(parts.map(\.contentType) == [nil, "text/plain; charset=utf-8", "application/octet-stream"])
            #expect(parts.map(\.size) == [1, 1, 1])
        }
    }

    @Test("a 4 MiB file part streams from disk; progress reaches the body's length; the bytes arrive exact")
    func largeFileWithProgress() async throws {
        try await withSandbox { sandbox in
            let (file, fileBytes) = try makeFile(4 << 20, seed: 5)
            defer { try? FileManager.default.removeItem(at: file) }
            var form = MultipartFormData()
            form.append("big", name: "kind")
            form.append(fileAt: file, name: "payload")
            let length = try #require(try form.contentLength())
            let session = makeSession()
            let log = ProgressLog()
            let cycle = try await HTTPCycle.upload(
                sandbox.string("/multipart/"), source: .multipart(form), session: session,
                didSendBodyDataHandler: { _, step, total, expected in log.record(step, total, expected) })
            let report = try MultipartReport(cycle.response)
            #expect(report.bodyLength == Int(length))
            #expect(report.parts.map(\.size) == [3, fileBytes.count])
            #expect(report.parts.last?.sha256 == SHA256.hexHash(fileBytes))
            // URLSession on Linux sends a streamed body chunked (see URLSessionTransport.inMemoryFormLimit).
            #expect(report.chunked == (TransportUnderTest.current == .urlSession))
            await session.drain()
            let reports = log.all
            #expect(reports.count > 1)
            #expect(reports.map(\.step).reduce(0, +) == length)
            #expect(reports.last?.total == length)
            #expect(reports.allSatisfy { $0.expected == length })
        }
    }

    @Test("a stream part of unknown length goes chunked and arrives exact; one of known length keeps the Content-Length")
    func streamParts() async throws {
        try await withSandbox { sandbox in
            let streamed = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 / 3) })
            for length in [nil, Int64(streamed.count)] {
                var form = MultipartFormData()
                form.append("s", name: "kind")
                form.append(name: "log", filename: "app.log", contentType: "text/plain", length: length) { InputStream(data: streamed) }
                let cycle = try await HTTPCycle.upload(sandbox.string("/multipart/"), source: .multipart(form), session: makeSession())
                let report = try MultipartReport(cycle.response)
                #expect(report.chunked == (length == nil), "length \(String(describing: length))")
                #expect(report.parts.last?.sha256 == SHA256.hexHash(streamed))
                #expect(report.parts.last?.filename == "app.log")
            }
        }
    }

    @Test("a 307 or 308 resends the whole form, files and streams made again from their start", arguments: [307, 308])
    func redirectResendsTheWholeBody(code: Int) async throws {
        try await withSandbox { sandbox in
            let (file, fileBytes) = try makeFile(300_000, seed: 9)
            defer { try? FileManager.default.removeItem(at: file) }
            let opened = Mutex(0)
            let streamed = Data("made again".utf8)
            var form = MultipartFormData()
            form.append("Jane", name: "name")
            form.append(fileAt: file, name: "file")
            form.append(name: "stream", length: Int64(streamed.count)) {
                opened.withLock { $0 += 1 }
                return InputStream(data: streamed)
            }
            let cycle = try await HTTPCycle.upload(
                sandbox.string("/redirect/?code=\(code)&to=/multipart/"), source: .multipart(form), session: makeSession())
            #expect(cycle.response.url?.absoluteString == sandbox.string("/multipart/"))
            let report = try MultipartReport(cycle.response)
            #expect(report.parts.map(\.name) == ["name", "file", "stream"])
            #expect(report.parts.map(\.sha256) == [SHA256.hexHash(Data("Jane".utf8)), SHA256.hexHash(fileBytes), SHA256.hexHash(streamed)])
            #expect(report.bodyLength == (try form.contentLength()).map(Int.init))
            // Once for the redirect's attempt, once for the resend (more if a transport rewinds).
            #expect(opened.withLock { $0 } >= 2)
        }
    }

    @Test("a retry after a 503 sends the same body again (a POST the session lets be resent)")
    func retryResendsTheBody() async throws {
        try await withSandbox { sandbox in
            var form = MultipartFormData()
            form.append("v", name: "k")
            form.append(Data((0..<70_000).map { UInt8($0 % 199) }), name: "d", filename: "d.bin")
            let expected = try form.encodedData()
            let bodies = Mutex<[Data]>([])
            sandbox.route("/twice") { request in
                let count = bodies.withLock { $0.append(request.body); return $0.count }
                return count == 1 ? .error(503, "again") : .text("ok")
            }
            let session = makeSession()
            session.retryPolicy = RetryPolicy(maximumRetryCount: 1, retryDelay: 0, retryableMethods: [.post])
            let cycle = try await HTTPCycle.upload(sandbox.string("/twice"), source: .multipart(form), session: session)
            #expect(cycle.response.statusCode == 200)
            #expect(bodies.withLock { $0 } == [expected, expected])
        }
    }

    @Test("a missing file ends the cycle with MultipartFormDataError.unreadableFile before anything is sent")
    func missingFile() async throws {
        try await withSandbox { sandbox in
            let hits = Mutex(0)
            sandbox.route("/count") { _ in
                hits.withLock { $0 += 1 }
                return .text("ok")
            }
            let missing = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-missing-\(UUID().uuidString).pdf")
            var form = MultipartFormData()
            form.append("Jane", name: "name")
            form.append(fileAt: missing, name: "cv")
            let result = try await outcome {
                try HTTPCycle.upload(sandbox.string("/count"), source: .multipart(form), session: makeSession(), completionHandler: $0)
            }
            #expect(result.error as? MultipartFormDataError == .unreadableFile(part: "cv", path: missing.path, reason: "no such file"))
            #expect(!result.response.hasHead)
            #expect(hits.withLock { $0 } == 0)
        }
    }
}
