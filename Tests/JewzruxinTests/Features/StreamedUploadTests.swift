import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinPrimitives
import JewzruxinSandbox
import JewzruxinTestSupport

/// Request bodies produced as they are sent (`UploadSource.stream`), on every transport.
@Suite("Streamed uploads", .onEveryTransport)
struct StreamedUploadTests {
    @Test("URLSession on Linux refuses a streamed body at once, saying why and which transports take one")
    func urlSessionRefuses() async throws {
        guard TransportUnderTest.current == .urlSession else { return }
        try await withSandbox { sandbox in
            let body = UploadStream(length: 3) { Self.stream([Data("abc".utf8)]) }
            do {
                _ = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .stream(body), session: makeSession())
                Issue.record("a streamed body went through URLSession")
            } catch HTTPError.transport(let error) {
                #expect(error.code == .unsupportedURL)
                #expect(error.localizedDescription.contains("curl or native"))
            }
        }
    }

    /// A stream of `chunks`, each yielded after the one before was taken.
    private static func stream(_ chunks: [Data], failing error: (any Error)? = nil) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                for chunk in chunks {
                    continuation.yield(chunk)
                    await Task.yield()
                }
                continuation.finish(throwing: error)
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    @Test("a stream of known length goes with its Content-Length; one of unknown length goes chunked; both arrive whole")
    func lengths() async throws {
        // URLSession on Linux refuses a streamed body (above).
        guard TransportUnderTest.current != .urlSession else { return }
        try await withSandbox { sandbox in
            let session = makeSession()
            let chunks = ["first ", "second ", "third"].map { Data($0.utf8) }
            let known = UploadStream(length: 18) { Self.stream(chunks) }
            let inspected = try Inspection(try await HTTPCycle.upload(sandbox.string("/inspect/"), source: .stream(known), session: session).response)
            #expect(inspected.body == "first second third")
            #expect(inspected.values("Content-Length") == ["18"])

            let unknown = UploadStream { Self.stream(chunks) }
            let chunked = try Inspection(try await HTTPCycle.upload(sandbox.string("/inspect/"), source: .stream(unknown), session: session).response)
            #expect(chunked.body == "first second third")
            #expect(chunked.values("Transfer-Encoding") == ["chunked"])
        }
    }

    @Test("4 MiB made 64 KiB at a time arrive whole, with progress to the last byte")
    func large() async throws {
        // URLSession on Linux refuses a streamed body (above).
        guard TransportUnderTest.current != .urlSession else { return }
        try await withSandbox { sandbox in
            let piece = Data((0..<65_536).map { UInt8($0 % 251) })
            let body = UploadStream(length: Int64(piece.count * 64)) { Self.stream(Array(repeating: piece, count: 64)) }
            let sent = Locked<Int64>(0)
            let cycle = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .stream(body), session: makeSession()) { _, _, total, _ in
                sent.withLock { $0 = max($0, total) }
            }
            let echoed = cycle.response.data == Array(repeating: piece, count: 64).reduce(Data(), +)
            #expect(echoed)
            #expect(await eventually { sent.withLock { $0 } == Int64(piece.count * 64) })
        }
    }

    @Test("a stream that gives fewer or more bytes than its length, or fails, fails the request with why")
    func failures() async throws {
        // URLSession on Linux refuses a streamed body (above).
        guard TransportUnderTest.current != .urlSession else { return }
        try await withSandbox { sandbox in
            let session = makeSession()
            let short = UploadStream(length: 10) { Self.stream([Data("abc".utf8)]) }
            await #expect(throws: (any Error).self) {
                try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .stream(short), session: session)
            }
            let long = UploadStream(length: 2) { Self.stream([Data("abc".utf8)]) }
            await #expect(throws: (any Error).self) {
                try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .stream(long), session: session)
            }
            struct Broken: Error {}
            let broken = UploadStream { Self.stream([Data("abc".utf8)], failing: Broken()) }
            await #expect(throws: (any Error).self) {
                try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .stream(broken), session: session)
            }
        }
    }

    @Test("a 307 redirect sends the body again from a new stream")
    func redirect() async throws {
        // URLSession on Linux refuses a streamed body (above).
        guard TransportUnderTest.current != .urlSession else { return }
        try await withSandbox { sandbox in
            let made = Locked(0)
            let body = UploadStream(length: 5) {
                made.withLock { $0 += 1 }
                return Self.stream([Data("he".utf8), Data("llo".utf8)])
            }
            let cycle = try await HTTPCycle.upload(
                sandbox.string("/redirect/?code=307&to=/dumpupload/"), source: .stream(body), method: .put, session: makeSession())
            #expect(cycle.response.text == "hello")
            #expect(made.withLock { $0 } == 2)
        }
    }

    @Test("cancelling a request whose stream gives nothing ends it, without waiting for the stream")
    func cancelWhileWaiting() async throws {
        // URLSession on Linux refuses a streamed body (above).
        guard TransportUnderTest.current != .urlSession else { return }
        try await withSandbox { sandbox in
            let (never, _) = AsyncThrowingStream<Data, any Error>.makeStream()
            let opened = Locked(false)
            let body = UploadStream(length: 100) {
                opened.withLock { $0 = true }
                return never
            }
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/dumpupload/"))), requestMethod: .post, session: makeSession())
            cycle.uploadSource = .stream(body)
            let ended = Locked<(any Error)?>(nil)
            let done = Locked(false)
            cycle.start { _, error in
                ended.withLock { $0 = error }
                done.withLock { $0 = true }
            }
            // Once the transport has opened the stream: the request is on its way, its body waits.
            #expect(await eventually { opened.withLock { $0 } })
            cycle.cancel(explicitly: false)
            #expect(await eventually { done.withLock { $0 } })
            #expect(ended.withLock { $0 }.map { if case HTTPError.cancelled = $0 { true } else { false } } == true)
        }
    }
}
