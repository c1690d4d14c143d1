import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// Keeps what a download handler read from its file.
final class DownloadedFile: Sendable {
    private let content = Mutex<Data?>(nil)
    var data: Data? { content.withLock { $0 } }
    /// A download handler that reads the file.
    var handler: HTTPCycle.DownloadFileHandler {
        { _, location in
            let data = try? Data(contentsOf: location)
            self.content.withLock { $0 = data }
        }
    }
}

/// A resumable download cut after `cut` bytes of `/range/size`: the error it threw.
private func interruptedDownload(
    _ sandbox: Sandbox, session: HTTPSession, size: Int, cut: Int, query: String
) async throws -> DownloadInterruptedError {
    let file = DownloadedFile()
    do {
        try await HTTPCycle.resumableDownload(
            sandbox.string("/range/\(size)?drop_after=\(cut)&\(query)"), session: session, downloadFileHandler: file.handler)
    } catch let error as DownloadInterruptedError {
        #expect(file.data == nil)
        return error
    }
    Issue.record("the download cut after \(cut) bytes succeeded")
    throw CancellationError()
}

private func resumableSession() throws -> HTTPSession {
    let session = try makeDownloadSession()
    session.retryPolicy.maximumRetryCount = 0
    return session
}

@Suite("Resumable downloads", .onEveryTransport)
struct ResumableDownloadTests {
    @Test("a cut resumable download keeps exactly the bytes received, with its validators")
    func cutKeepsBytes() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let interrupted = try await interruptedDownload(sandbox, session: session, size: 100_000, cut: 30_000, query: "key=cut")
            let data = interrupted.resumeData
            #expect(data.bytesReceived == 30_000)
            #expect(try Data(contentsOf: data.fileURL) == SandboxBody.expectedPattern(count: 30_000))
            #expect(data.entityTag == "\"range-100000-v1\"")
            #expect(data.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
            #expect(data.expectedLength == 100_000)
            #expect(data.url.absoluteString == sandbox.string("/range/100000?drop_after=30000&key=cut"))
            #expect(interrupted.underlyingError is HTTPError)
            #expect(sandbox.rangeRequests(forKey: "cut") == [RangeRequest(range: nil, ifRange: nil, acceptEncoding: "identity")])
            interrupted.discardPartialFile()
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a plain download cut the same way leaves no file")
    func plainDownloadKeepsNothing() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let file = DownloadedFile()
            let result = try await outcome {
                try HTTPCycle.download(sandbox.string("/range/100000?drop_after=30000"), session: session,
                                       downloadFileHandler: file.handler, completionHandler: $0)
            }
            #expect(result.error != nil)
            #expect(!(result.error is DownloadInterruptedError))
            #expect(result.cycle.downloadResumeData == nil)
            await session.drain()
            #expect(file.data == nil)
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("resuming asks for the rest with Range and If-Range, appends it, and the file is byte-exact",
          arguments: [("both", "\"range-100000-v1\""), ("etag", "\"range-100000-v1\""), ("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT")])
    func resume(validator: String, ifRange: String) async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let key = "resume-\(validator)"
            let interrupted = try await interruptedDownload(
                sandbox, session: session, size: 100_000, cut: 30_000, query: "key=\(key)&validator=\(validator)")
            // Kept as an app would keep it across a relaunch.
            let saved = try JSONEncoder().encode(interrupted.resumeData)
            let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
            let file = DownloadedFile()
            let progress = Mutex<[(total: Int64, expected: Int64)]>([])
            let cycle = try await HTTPCycle.download(
                resumingFrom: resumeData, session: session,
                didWriteDataHandler: { _, _, total, expected in progress.withLock { $0.append((total, expected)) } },
                downloadFileHandler: file.handler)
            #expect(cycle.response.statusCode == 206)
            #expect(file.data == SandboxBody.expectedPattern(count: 100_000))
            // Progress counts the file: from the 30 000 bytes it held to the whole 100 000.
            await session.drain()
            let reports = progress.withLock { $0 }
            #expect(reports.first.map { $0.total > 30_000 && $0.total < 100_000 } == true, "\(reports.prefix(3))")
            #expect(reports.last?.total == 100_000)
            #expect(reports.allSatisfy { $0.expected == 100_000 })
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.total < $1.total })
            #expect(cycle.downloadResumeData == nil)
            #expect(sandbox.rangeRequests(forKey: key) == [
                RangeRequest(range: nil, ifRange: nil, acceptEncoding: "identity"),
                RangeRequest(range: "bytes=30000-", ifRange: ifRange, acceptEncoding: "identity"),
            ])
            #expect(!FileManager.default.fileExists(atPath: resumeData.fileURL.path))
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a server that ignores Range answers 200: the file starts again from zero, byte-exact")
    func serverIgnoresRange() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let interrupted = try await interruptedDownload(
                sandbox, session: session, size: 100_000, cut: 30_000, query: "key=ignore&ignore_range=1")
            let file = DownloadedFile()
            let cycle = try await HTTPCycle.download(resumingFrom: interrupted.resumeData, session: session, downloadFileHandler: file.handler)
            #expect(cycle.response.statusCode == 200)
            #expect(file.data == SandboxBody.expectedPattern(count: 100_000))
            #expect(sandbox.rangeRequests(forKey: "ignore").last?.range == "bytes=30000-")
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a changed validator makes If-Range fail: the whole new body replaces the file")
    func validatorChanged() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let interrupted = try await interruptedDownload(
                sandbox, session: session, size: 100_000, cut: 30_000, query: "key=changed&change=1")
            let file = DownloadedFile()
            let cycle = try await HTTPCycle.download(resumingFrom: interrupted.resumeData, session: session, downloadFileHandler: file.handler)
            #expect(cycle.response.statusCode == 200)
            #expect(cycle.response.value(forHTTPHeaderField: "ETag") == "\"range-100000-v2\"")
            #expect(file.data == SandboxBody.expectedPattern(count: 100_000))
            #expect(sandbox.rangeRequests(forKey: "changed").last?.ifRange == "\"range-100000-v1\"")
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("without a strong validator a resume can't prove the bytes current: it asks for the whole body",
          arguments: ["weak", "none"])
    func noValidator(validator: String) async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let key = "novalidator-\(validator)"
            let interrupted = try await interruptedDownload(
                sandbox, session: session, size: 50_000, cut: 10_000, query: "key=\(key)&validator=\(validator)")
            #expect(interrupted.resumeData.validator == nil)
            let file = DownloadedFile()
            try await HTTPCycle.download(resumingFrom: interrupted.resumeData, session: session, downloadFileHandler: file.handler)
            #expect(file.data == SandboxBody.expectedPattern(count: 50_000))
            #expect(sandbox.rangeRequests(forKey: key).last == RangeRequest(range: nil, ifRange: nil, acceptEncoding: "identity"))
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a 416 for a file already whole completes the download without a body")
    func unsatisfiableComplete() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let partial = session.downloadDirectory.appendingPathComponent("whole.partial")
            try SandboxBody.expectedPattern(count: 5000).write(to: partial)
            let resumeData = DownloadResumeData(
                url: try #require(URL(string: sandbox.string("/range/5000?key=whole"))), fileURL: partial, bytesReceived: 5000,
                entityTag: "\"range-5000-v1\"")
            let file = DownloadedFile()
            let cycle = try await HTTPCycle.download(resumingFrom: resumeData, session: session, downloadFileHandler: file.handler)
            #expect(cycle.response.statusCode == 416)
            #expect(file.data == SandboxBody.expectedPattern(count: 5000))
            #expect(sandbox.rangeRequests(forKey: "whole").map(\.range) == ["bytes=5000-"])
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a 416 for a file the server can't place (longer than the body) fetches it again from zero, once")
    func unsatisfiableRestart() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let partial = session.downloadDirectory.appendingPathComponent("long.partial")
            try Data(repeating: 7, count: 6000).write(to: partial)
            let resumeData = DownloadResumeData(
                url: try #require(URL(string: sandbox.string("/range/5000?key=long"))), fileURL: partial, bytesReceived: 6000,
                entityTag: "\"range-5000-v1\"")
            let file = DownloadedFile()
            let cycle = try await HTTPCycle.download(resumingFrom: resumeData, session: session, downloadFileHandler: file.handler)
            #expect(cycle.response.statusCode == 200)
            #expect(file.data == SandboxBody.expectedPattern(count: 5000))
            #expect(sandbox.rangeRequests(forKey: "long").map(\.range) == ["bytes=6000-", nil])
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("an explicit cancel keeps the bytes received; the cycle's resume data finishes the download")
    func cancelThenResume() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let counter = CallCounter()
            let file = DownloadedFile()
            let cycle = try HTTPCycle.resumableDownload(
                // A byte every 2 ms: a minute for the whole body, however slowly the handler queue
                // (under a sanitizer, say) gets to the progress call that cancels.
                sandbox.string("/range/30000?key=cancel&drip_ms=2"), session: session,
                didWriteDataHandler: { cycle, _, total, _ in if total >= 100 { cycle.cancel(explicitly: true) } },
                downloadFileHandler: file.handler) { _, _ in counter.record() }
            await session.drain()
            #expect(cycle.state == .cancelled)
            #expect(counter.count == 0)
            let resumeData = try #require(cycle.downloadResumeData)
            #expect(resumeData.bytesReceived >= 100 && resumeData.bytesReceived < 30000)
            #expect(try Data(contentsOf: resumeData.fileURL) == SandboxBody.expectedPattern(count: Int(resumeData.bytesReceived)))
            try await HTTPCycle.download(resumingFrom: resumeData, session: session, downloadFileHandler: file.handler)
            #expect(file.data == SandboxBody.expectedPattern(count: 30000))
            #expect(sandbox.rangeRequests(forKey: "cancel").last?.range == "bytes=\(resumeData.bytesReceived)-")
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("Task cancellation throws the interruption with its resume data")
    func taskCancellation() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let started = AsyncStream<Void>.makeStream()
            let task = Task {
                try await HTTPCycle.resumableDownload(
                    sandbox.string("/range/3000?key=task&drip_ms=2"), session: session,
                    didWriteDataHandler: { _, _, total, _ in if total >= 50 { started.continuation.yield() } },
                    downloadFileHandler: { _, _ in })
            }
            for await _ in started.stream { break }
            task.cancel()
            guard case .failure(let error) = await task.result else {
                Issue.record("the cancelled download succeeded")
                return
            }
            let interrupted = try #require(error as? DownloadInterruptedError)
            // An async twin reports Task cancellation as a CancellationError.
            #expect(interrupted.underlyingError is CancellationError)
            #expect(interrupted.resumeData.bytesReceived >= 50)
            interrupted.discardPartialFile()
            await session.drain()
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }

    @Test("a resumable download that succeeds at once hands its file over and leaves nothing")
    func resumableSuccess() async throws {
        try await withSandbox { sandbox in
            let session = try resumableSession()
            let file = DownloadedFile()
            let cycle = try await HTTPCycle.resumableDownload(sandbox.string("/range/70000"), session: session, downloadFileHandler: file.handler)
            #expect(file.data == SandboxBody.expectedPattern(count: 70_000))
            #expect(cycle.downloadResumeData == nil)
            #expect(try session.leftoverDownloadFiles().isEmpty)
        }
    }
}

@Suite("Resume data and Content-Range")
struct DownloadResumeDataTests {
    @Test("resume data survives a JSON round trip")
    func codable() throws {
        let data = DownloadResumeData(
            url: try #require(URL(string: "https://example.com/file.bin?x=1")), fileURL: URL(fileURLWithPath: "/tmp/file.partial"),
            bytesReceived: 1234, entityTag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", expectedLength: 9999)
        let decoded = try JSONDecoder().decode(DownloadResumeData.self, from: JSONEncoder().encode(data))
        #expect(decoded == data)
        #expect(decoded.validator == "\"abc\"")
        #expect(!decoded.isComplete)
    }

    @Test("Content-Range is parsed as RFC 9110 writes it", arguments: [
        ("bytes 0-99/1000", 0...99 as ClosedRange<Int64>?, 1000 as Int64?),
        ("bytes 500-999/*", 500...999, nil),
        ("bytes */1000", nil, 1000),
    ])
    func contentRange(header: String, range: ClosedRange<Int64>?, total: Int64?) throws {
        let parsed = try #require(ContentRange(header))
        #expect(parsed.range == range)
        #expect(parsed.total == total)
    }

    @Test("a malformed Content-Range is none", arguments: ["bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes */*", "bytes a-b/3", ""])
    func malformedContentRange(header: String) {
        #expect(ContentRange(header) == nil)
    }
}
