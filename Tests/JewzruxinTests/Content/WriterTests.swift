import Foundation
import Synchronization
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

extension ContentHandlingTests {
    @Suite("StreamWriter")
    struct StreamWriterTests {
        static func written(_ stream: OutputStream) -> Data? {
            stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data
        }

        @Test("the exact bytes reach the stream, which is closed afterwards; no content", arguments: [0, 1])
        func writes(chunked: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let stream = OutputStream(toMemory: ())
                let handler = StreamWriter(stream: stream)
                let result = try await fetchContent(sandbox.string("/bytes/100000?chunked=\(chunked)"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(result.response.content == nil)
                #expect(result.response.data.isEmpty)
                #expect(handler.bytesWritten == 100_000)
                #expect(stream.streamStatus == .closed)
                #expect(Self.written(stream) == SandboxBody.expectedPattern(count: 100_000))
                await settle(session)
            }
        }

        @Test("closesStream false leaves it open for more")
        func keepsOpen() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let stream = OutputStream(toMemory: ())
                let handler = StreamWriter(stream: stream, closesStream: false)
                _ = try await fetchContent(sandbox.string("/hello/"), handler: handler, session: session)
                #expect(stream.streamStatus == .open)
                _ = try await fetchContent(sandbox.string("/hello/"), handler: handler, session: session)
                #expect(Self.written(stream) == Data("Hello WorldHello World".utf8))
                stream.close()
                await settle(session)
            }
        }

        @Test("a refused response doesn't touch the stream")
        func refusedLeavesStream() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let stream = OutputStream(toMemory: ())
                let result = try await fetchContent(sandbox.echo(code: 206, content: "nope"), handler: StreamWriter(stream: stream), session: session)
                #expect(contentError(result, .unacceptableStatus)?.response?.data == Data("nope".utf8))
                #expect(stream.streamStatus == .notOpen)
                await settle(session)
            }
        }

        @Test("a stream that can't be opened or that fills up fails with writeFailed and stops the transfer")
        func failingStreams() async throws {
            try await withSandbox { sandbox in
                let producer = ProducedBytes()
                let size: Int64 = 256 << 20
                sandbox.route("/big/") { _ in SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: producer.body(count: size)) }
                let session = makeSession()
                let missing = try #require(OutputStream(toFileAtPath: "/nonexistent-\(UUID().uuidString)/out", append: false))
                let unopenable = try await fetchContent(sandbox.string("/big/"), handler: StreamWriter(stream: missing), session: session)
                #expect(contentError(unopenable, .writeFailed)?.reason.contains("not open") == true)

                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
                buffer.initialize(repeating: 0)
                defer { buffer.deallocate() }
                let stream = OutputStream(toBuffer: try #require(buffer.baseAddress), capacity: buffer.count)
                let full = try await fetchContent(sandbox.string("/big/"), handler: StreamWriter(stream: stream), session: session)
                #expect(contentError(full, .writeFailed)?.reason.contains("took no more bytes") == true)
                await settle(session)
                #expect(producer.count < size / 4, "the sandbox produced \(producer.count) bytes for two bodies of \(size)")
            }
        }
    }

    @Suite("FileWriter")
    struct FileWriterTests {
        static func permissions(_ url: URL) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return try #require(attributes[.posixPermissions] as? NSNumber).intValue
        }

        @Test("the exact bytes are written, owner-only by default; nothing else is left", arguments: [0, 1])
        func writes(chunked: Int) async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let session = makeSession()
                    let destination = directory.appendingPathComponent("download.bin")
                    let handler = FileWriter(url: destination)
                    let result = try await fetchContent(sandbox.string("/bytes/200000?chunked=\(chunked)"), handler: handler, session: session)
                    #expect(result.error == nil)
                    #expect(result.response.content == nil)
                    #expect(result.response.data.isEmpty)
                    #expect(handler.bytesWritten == 200_000)
                    #expect(try Data(contentsOf: destination) == SandboxBody.expectedPattern(count: 200_000))
                    #expect(try Self.permissions(destination) == 0o600)
                    #expect(try directoryListing(directory) == ["download.bin"])
                    await settle(session)
                }
            }
        }

        @Test("other permissions on request; an existing file is replaced on success")
        func replaces() async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let session = makeSession()
                    let destination = directory.appendingPathComponent("hello.txt")
                    try Data("old content".utf8).write(to: destination)
                    let result = try await fetchContent(sandbox.string("/hello/"), handler: FileWriter(path: destination.path, permissions: 0o640), session: session)
                    #expect(result.error == nil)
                    #expect(try String(contentsOf: destination, encoding: .utf8) == "Hello World")
                    #expect(try Self.permissions(destination) == 0o640)
                    #expect(try directoryListing(directory) == ["hello.txt"])
                    await settle(session)
                }
            }
        }

        @Test("after a dropped connection or a refused status the existing file is untouched and no partial file is left", arguments: [
            "/drop/?after=50000", "/drop/?after=50000&chunked=1", "/status/404", "/echo/?code=204", "/echo/?code=206&content=partial",
        ])
        func failureLeavesExisting(path: String) async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let session = makeSession()
                    session.retryPolicy.maximumRetryCount = 0
                    let destination = directory.appendingPathComponent("keep.bin")
                    try Data("previous".utf8).write(to: destination)
                    let result = try await fetchContent(sandbox.string(path), handler: FileWriter(url: destination), session: session)
                    switch path {
                    case let p where p.hasPrefix("/drop/"):
                        guard case HTTPError.transport? = result.error else {
                            Issue.record("expected a transport error, got \(String(describing: result.error))")
                            break
                        }
                    case "/status/404": #expect(erredResponse(result)?.statusCode == 404)
                    default: #expect(contentError(result, .unacceptableStatus) != nil)
                    }
                    #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
                    #expect(try directoryListing(directory) == ["keep.bin"])
                    await settle(session)
                    #expect(try directoryListing(directory) == ["keep.bin"])
                }
            }
        }

        @Test("a cancel mid-transfer removes the partial file, which existed meanwhile, and leaves the existing file")
        func cancelLeavesExisting() async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let session = makeSession()
                    let destination = directory.appendingPathComponent("keep.bin")
                    try Data("previous".utf8).write(to: destination)
                    let during = Mutex<[String]?>(nil)
                    let result = try await fetchContent(sandbox.string("/drip/?n=200&interval=0.01"), handler: FileWriter(url: destination), session: session) {
                        $0.didWriteDataHandler = { cycle, _, _, _ in
                            guard during.withLock({ $0 == nil }) else { return }
                            during.withLock { $0 = (try? directoryListing(directory)) ?? [] }
                            cycle.cancel(explicitly: false)
                        }
                    }
                    guard case HTTPError.cancelled? = result.error else {
                        Issue.record("expected a cancel, got \(String(describing: result.error))")
                        return
                    }
                    let listing = try #require(during.withLock { $0 })
                    #expect(listing.count == 2)
                    #expect(listing.contains { $0.hasPrefix(".keep.bin.") && $0.hasSuffix(".partial") }, "\(listing)")
                    #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
                    #expect(try directoryListing(directory) == ["keep.bin"])
                    await settle(session)
                    #expect(try directoryListing(directory) == ["keep.bin"])
                }
            }
        }

        @Test("a destination that is a directory, or in a missing directory, is unusable and nothing is created")
        func unusableDestination() async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let session = makeSession()
                    let folder = directory.appendingPathComponent("folder")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                    let result = try await fetchContent(sandbox.string("/bytes/1000"), handler: FileWriter(url: folder), session: session)
                    let error = try #require(contentError(result, .unusableDestination))
                    #expect(error.reason.contains("is a directory"))
                    #expect(try directoryListing(directory) == ["folder"])
                    #expect(try directoryListing(folder).isEmpty)

                    let nowhere = directory.appendingPathComponent("missing/file.bin")
                    let missing = try await fetchContent(sandbox.string("/bytes/1000"), handler: FileWriter(url: nowhere), session: session)
                    #expect(contentError(missing, .unusableDestination)?.reason.contains("can't create a file") == true)
                    #expect(try directoryListing(directory) == ["folder"])
                    await settle(session)
                }
            }
        }

        @Test("after a 307 redirect or retries, the file holds the last response's body only")
        func lastResponseOnly() async throws {
            try await withSandbox { sandbox in
                try await withTemporaryDirectory { directory in
                    let destination = directory.appendingPathComponent("final.bin")
                    let session = makeRetrySession(delay: 0.01)
                    let redirected = try await fetchContent(sandbox.string("/redirect/?code=307&to=/bytes/5000"), handler: FileWriter(url: destination), session: session)
                    #expect(redirected.error == nil)
                    #expect(try Data(contentsOf: destination) == SandboxBody.expectedPattern(count: 5000))

                    let retried = try await fetchContent(sandbox.string("/flaky/?key=file&fail=2"), handler: FileWriter(url: destination), session: session)
                    #expect(retried.error == nil)
                    #expect(retried.cycle.retriedCount == 2)
                    #expect(try String(contentsOf: destination, encoding: .utf8) == "ok after 2 failures")
                    #expect(try directoryListing(directory) == ["final.bin"])
                    await settle(session)
                }
            }
        }
    }
}
