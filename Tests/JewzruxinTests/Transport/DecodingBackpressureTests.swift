import Foundation
import Synchronization
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What feeding a body to a ``CurlBodyDecoding`` as libcurl does came to: libcurl hands the same
/// bytes again after the write callback paused.
private struct Fed {
    var output = Data()
    var total = 0
    /// The most bytes handed on between two pauses.
    var mostBetweenPauses = 0
    var pauses = 0
}

/// Feeds `body`, sent with `Content-Encoding: contentEncoding`, in chunks of `chunk` bytes, to a
/// sink that pauses once `pauseAfter` bytes have come since the last pause; a paused chunk is
/// given again, as libcurl does. The output is kept when `keeping`.
private func feed(
    _ body: Data, contentEncoding: String, chunk: Int = 16_384, pauseAfter: Int, keeping: Bool = true
) throws -> Fed {
    var decoding = CurlBodyDecoding()
    decoding.start([("Content-Encoding", contentEncoding)], url: URL(string: "http://127.0.0.1/")!)
    var fed = Fed()
    var since = 0
    try body.withUnsafeBytes { all in
        var offset = 0
        var rounds = 0
        while offset < all.count {
            rounds += 1
            try #require(rounds < 1_000_000, "no progress")
            let end = offset + min(chunk, all.count - offset)
            let outcome = decoding.decode(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { piece in
                if keeping { fed.output.append(contentsOf: piece) }
                fed.total += piece.count
                since += piece.count
                fed.mostBetweenPauses = max(fed.mostBetweenPauses, since)
                return since >= pauseAfter ? .pause : .proceed
            }
            switch outcome {
            case .took:
                offset = end
            case .pause:
                fed.pauses += 1
                since = 0
            case .stop:
                Issue.record("the decoding stopped: \(String(describing: decoding.failure))")
                return
            }
        }
    }
    #expect(decoding.finish() == nil)
    return fed
}

private func resource(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Resources/content-coding/\(name)", withExtension: nil))
    return try Data(contentsOf: url)
}

/// A compressed body reaches its handler no faster than the handler takes it: the curl transport
/// pauses between decoded pieces, not between the bytes sent.
@Suite("Curl transport: decoding under backpressure")
struct DecodingBackpressureTests {
    @Test("a compression bomb is decoded whole, never more than a pause's worth at a time")
    func bombIsPaced() throws {
        let bomb = Gzip.zlibZeros(count: 32 << 20)
        #expect(bomb.count < 300_000)
        let fed = try feed(bomb, contentEncoding: "deflate", pauseAfter: 1 << 20, keeping: false)
        #expect(fed.total == 32 << 20)
        // One piece at most past the pause point.
        #expect(fed.mostBetweenPauses <= (1 << 20) + CurlContentDecoder.pieceSize)
        #expect(fed.pauses >= 31)
    }

    @Test("pausing after every piece loses and repeats nothing, one coding or two", arguments: [
        ("sample.txt.gz", "gzip"), ("sample.txt.zz", "deflate"), ("sample.txt.deflate", "deflate"),
        ("sample.txt.br", "br"), ("sample.txt.zst", "zstd"), ("sample.txt.gz.br", "gzip, br"),
    ])
    func pauseEverywhere(file: String, contentEncoding: String) throws {
        let expected = try resource("sample.txt")
        for chunk in [1, 7, 1000, 16_384] {
            for pauseAfter in [1, 5000] {
                let fed = try feed(try resource(file), contentEncoding: contentEncoding, chunk: chunk, pauseAfter: pauseAfter)
                #expect(fed.output == expected, "chunks of \(chunk), pausing after \(pauseAfter)")
            }
        }
    }

    @Test("a bomb streamed through libcurl arrives whole, paused and resumed by a slow reader")
    func bombThroughCurl() async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl)
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/fault/deflate-bomb?n=\(64 << 20)"))), session: session)
            let (response, bytes) = try await cycle.stream()
            #expect(response.statusCode == 200)
            var total = 0
            var nonZero = 0
            for try await chunk in bytes {
                total += chunk.count
                if chunk.first != 0 || chunk.last != 0 { nonZero += 1 }
            }
            #expect(total == 64 << 20)
            #expect(nonZero == 0)
        }
    }

    @Test("a size cap counts decoded bytes and stops the bomb early")
    func capStopsTheBomb() async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl)
            session.retryPolicy.maximumRetryCount = 0
            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/fault/deflate-bomb?n=\(256 << 20)"))), session: session)
            cycle.contentHandler = Accumulator(maximumSize: 4 << 20)
            do {
                try await cycle.start()
                Issue.record("a 256 MiB body passed a 4 MiB cap")
            } catch let error as ContentHandlerError {
                #expect("\(error)".contains("4194304") || "\(error)".lowercased().contains("large"), "\(error)")
            }
        }
    }
}
