import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// Records progress reports from any thread.
final class ProgressLog: Sendable {
    private let reports = Mutex<[(Int64, Int64, Int64)]>([])
    func record(_ step: Int64, _ total: Int64, _ expected: Int64) { reports.withLock { $0.append((step, total, expected)) } }
    var all: [(step: Int64, total: Int64, expected: Int64)] { reports.withLock { $0.map { (step: $0.0, total: $0.1, expected: $0.2) } } }
}

/// A session whose downloads go to a directory of their own, so a test can see what is left there.
func makeDownloadSession() throws -> HTTPSession {
    let session = makeSession()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    session.downloadDirectory = directory
    return session
}

extension HTTPSession {
    /// The files left in the download directory; the directory is removed.
    func leftoverDownloadFiles() throws -> [String] {
        defer { try? FileManager.default.removeItem(at: downloadDirectory) }
        return try FileManager.default.contentsOfDirectory(atPath: downloadDirectory.path)
    }
}

@Suite("Upload and download", .onEveryTransport)
struct TransferTests {
    @Test("Upload a Data: the body arrives and progress adds up to its size")
    func uploadData() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let log = ProgressLog()
            let body = Data((0..<300_000).map { UInt8($0 % 251) })
            let result = try await outcome {
                try HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .data(body), session: session,
                                     didSendBodyDataHandler: { _, step, total, expected in log.record(step, total, expected) },
                                     completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.data == body)
            await session.drain()
            let reports = log.all
            #expect(!reports.isEmpty)
            #expect(reports.map(\.step).reduce(0, +) == Int64(body.count))
            #expect(reports.last?.total == Int64(body.count))
            #expect(reports.allSatisfy { $0.expected == Int64(body.count) })
        }
    }

    @Test("Upload a local file (seed: \"Hello World (FILE)\")")
    func uploadFile() async throws {
        try await withSandbox { sandbox in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("hello-\(UUID().uuidString).txt")
            try Data("Hello World (FILE)".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let log = ProgressLog()
            let session = makeSession()
            let cycle = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .file(file), session: session,
                                                   didSendBodyDataHandler: { _, step, total, expected in log.record(step, total, expected) })
            #expect(cycle.response.text == "Hello World (FILE)")
            await session.drain()
            #expect(log.all.last?.total == 18)
        }
    }

    @Test("Download: the handler gets the whole file, owner-only, removed afterwards; progress adds up")
    func download() async throws {
        try await withSandbox { sandbox in
            let session = try makeDownloadSession()
            let log = ProgressLog()
            let size = 1_000_000
            let seen = Mutex<(content: Data, permissions: Int, path: String)?>(nil)
            let cycle = try await HTTPCycle.download(
                sandbox.string("/bytes/\(size)"), session: session,
                didWriteDataHandler: { _, step, total, expected in log.record(step, total, expected) },
                downloadFileHandler: { _, location in
                    let content = (try? Data(contentsOf: location)) ?? Data()
                    let attributes = try? FileManager.default.attributesOfItem(atPath: location.path)
                    let permissions = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? -1
                    seen.withLock { $0 = (content, permissions, location.path) }
                })
            let file = try #require(seen.withLock { $0 })
            #expect(file.content == SandboxBody.expectedPattern(count: size))
            #expect(file.permissions == 0o600)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(cycle.response.data.isEmpty)
            await session.drain()
            let reports = log.all
            #expect(reports.map(\.step).reduce(0, +) == Int64(size))
            #expect(reports.last?.total == Int64(size))
            #expect(reports.allSatisfy { $0.expected == Int64(size) })
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("Download (seed): echo?content=helloworld")
    func seedDownload() async throws {
        try await withSandbox { sandbox in
            let content = Mutex<String?>(nil)
            let result = try await outcome {
                try HTTPCycle.download(sandbox.string("/echo?content=helloworld"), session: makeSession(),
                                       downloadFileHandler: { _, location in
                                           content.withLock { $0 = try? String(contentsOf: location, encoding: .utf8) }
                                       }, completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(content.withLock { $0 } == "helloworld")
        }
    }

    @Test("a failed download calls no file handler and leaves no file", arguments: ["/drop/?after=50000", "/echo/?code=404&content=missing", "/status/500"])
    func failedDownload(path: String) async throws {
        try await withSandbox { sandbox in
            let counter = CallCounter()
            let session = try makeDownloadSession()
            session.retryPolicy.maximumRetryCount = 0
            let result = try await outcome {
                try HTTPCycle.download(sandbox.string(path), session: session,
                                       downloadFileHandler: { _, _ in counter.record() }, completionHandler: $0)
            }
            #expect(result.error != nil)
            await session.drain()
            #expect(counter.count == 0)
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a download that can't be written fails with the file error, stops the transfer (L1), calls no handler")
    func unwritableDownload() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.downloadDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)/deeper")
            session.retryPolicy.maximumRetryCount = 0
            let counter = CallCounter()
            let result = try await outcome {
                try HTTPCycle.download(sandbox.string("/bytes/5000000"), session: session,
                                       downloadFileHandler: { _, _ in counter.record() }, completionHandler: $0)
            }
            let error = try #require(result.error as? ContentHandlerError)
            #expect(error.code == .unusableDestination)
            #expect(error.reason.contains("can't create a file in"))
            #expect(error.underlyingError is CocoaError)
            await session.drain()
            #expect(counter.count == 0)
            #expect(session.runningTaskCount == 0)
        }
    }

    @Test("a cancelled download leaves no file")
    func cancelledDownload() async throws {
        try await withSandbox { sandbox in
            let session = try makeDownloadSession()
            let counter = CallCounter()
            let cycle = try HTTPCycle.download(sandbox.string("/drip/?n=100&interval=0.05"), session: session,
                                               didWriteDataHandler: { cycle, _, _, _ in cycle.cancel(explicitly: true) },
                                               downloadFileHandler: { _, _ in counter.record() }) { _, _ in counter.record() }
            await session.drain()
            #expect(cycle.state == .cancelled)
            #expect(counter.count == 0)
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("307 and 308 keep the method and the body (L9); 303 turns POST into GET", arguments: [307, 308])
    func redirectKeepsBody(code: Int) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/redirect/"), parameters: ["code": code, "to": "/dumpupload/"],
                                   requestObject: Data("the body".utf8), requestProcessors: [HTTPDataProcessor()],
                                   session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.text == "the body")
            #expect(result.response.url?.absoluteString == sandbox.string("/dumpupload/"))

            let upload = try await HTTPCycle.upload(sandbox.string("/redirect/?code=\(code)&to=/inspect/"), source: .data(Data("up".utf8)),
                                                    method: .put, session: makeSession())
            let seen = try Inspection(upload.response)
            #expect(seen.method == "PUT")
            #expect(seen.body == "up")
        }
    }

    @Test("a 303 after a POST fetches the target with GET")
    func seeOther() async throws {
        try await withSandbox { sandbox in
            let cycle = try await HTTPCycle.post(sandbox.string("/redirect/?code=303&to=/inspect/"), requestObject: Data("x".utf8),
                                                 requestProcessors: [HTTPDataProcessor()], session: makeSession())
            #expect(try Inspection(cycle.response).method == "GET")
        }
    }

    @Test("a 307 loop ends with too many redirects, once")
    func redirectLoop() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/loop/") { _ in SandboxResponse(status: 307, headers: ["Location": "/loop/"]) }
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/loop/"), session: makeSession(), completionHandler: $0) }
            guard case HTTPError.transport(let error)? = result.error else {
                Issue.record("expected too many redirects, got \(String(describing: result.error))")
                return
            }
            #expect(error.code == .httpTooManyRedirects)
        }
    }
}
