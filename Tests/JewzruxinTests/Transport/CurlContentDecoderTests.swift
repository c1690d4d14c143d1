import Foundation
import Testing
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fixture of Resources/content-coding (see its README for how each was made).
func contentCodingFixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Resources/content-coding/\(name)", withExtension: nil),
                           "test resource Resources/content-coding/\(name) not found in Bundle.module")
    return try Data(contentsOf: url)
}

/// What decoding a body came to.
private struct Decoded {
    var output = Data()
    var pieces = 0
    var largestPiece = 0
}

/// Decodes `body` as `contentEncoding`, fed in chunks of `chunk` bytes, then finishes.
private func decode(_ body: Data, _ contentEncoding: String, chunk: Int = .max) throws -> Decoded {
    let decoder = try #require(try CurlContentDecoder.make(contentEncoding: [contentEncoding]), "a decoder for \(contentEncoding)")
    var decoded = Decoded()
    try feed(decoder, body, chunk: chunk) { piece in
        decoded.output.append(contentsOf: piece)
        decoded.pieces += 1
        decoded.largestPiece = max(decoded.largestPiece, piece.count)
        return true
    }
    try decoder.finish()
    return decoded
}

/// Feeds `body` to `decoder` in chunks of `chunk` bytes; `false` when the sink stopped it.
@discardableResult
private func feed(_ decoder: CurlContentDecoder, _ body: Data, chunk: Int, sink: (UnsafeRawBufferPointer) -> Bool) throws -> Bool {
    try body.withUnsafeBytes { all -> Bool in
        var offset = 0
        while offset < all.count {
            let end = offset + min(chunk, all.count - offset)
            guard try decoder.decode(UnsafeRawBufferPointer(rebasing: all[offset..<end]), into: sink) else { return false }
            offset = end
        }
        return true
    }
}

/// The failure decoding `body` (fed in chunks of `chunk`) and finishing ends with; `nil` when it succeeds.
private func decodingFailure(_ body: Data, _ contentEncoding: String, chunk: Int = .max) throws -> CurlContentDecoder.Failure? {
    do {
        _ = try decode(body, contentEncoding, chunk: chunk)
        return nil
    } catch let failure as CurlContentDecoder.Failure {
        return failure
    }
}

private func flipping(_ data: Data, at index: Int) -> Data {
    var copy = data
    copy[copy.startIndex + index] ^= 0xFF
    return copy
}

/// The encoded fixtures and the `Content-Encoding` each is sent with.
private let codings: [(suffix: String, contentEncoding: String)] = [
    ("gz", "gzip"), ("gz", "x-gzip"), ("zz", "deflate"), ("deflate", "deflate"), ("br", "br"), ("zst", "zstd"),
]

@Suite("Curl transport: the content decoder (gzip, deflate, br, zstd)")
struct CurlContentDecoderTests {
    @Test("zlib, brotli and zstd load beside libcurl, each when libcurl decodes its coding")
    func librariesLoad() throws {
        let curl = try CurlLibrary.system.get()
        let decoders = curl.contentDecoders
        #expect(decoders.zlibVersion?.first?.isNumber == true, "zlib: \(decoders.zlibVersion ?? "not loaded")")
        if curl.features.contains(.brotli) { #expect(decoders.brotliVersion != nil) }
        if curl.features.contains(.zstd) { #expect(decoders.zstdVersion != nil) }
        #expect(CurlContentDecoder.available.contains(.gzip) == (decoders.zlibVersion != nil))
        #expect(CurlContentDecoder.available.contains(.brotli) == (decoders.brotliVersion != nil))
        #expect(CurlContentDecoder.available.contains(.zstd) == (decoders.zstdVersion != nil))
    }

    @Test("every coding decodes, whole, in 1000-byte chunks and byte by byte", arguments: codings, [Int.max, 1000, 1])
    func decodes(_ coding: (suffix: String, contentEncoding: String), chunk: Int) throws {
        let text = try contentCodingFixture("sample.txt")
        let decoded = try decode(try contentCodingFixture("sample.txt.\(coding.suffix)"), coding.contentEncoding, chunk: chunk)
        #expect(decoded.output == text)
        #expect(decoded.largestPiece <= CurlContentDecoder.pieceSize)
    }

    @Test("two codings are undone in reverse order: gzip, br is brotli first, then gzip", arguments: [Int.max, 1])
    func layered(chunk: Int) throws {
        let text = try contentCodingFixture("sample.txt")
        #expect(try decode(try contentCodingFixture("sample.txt.gz.br"), "gzip, br", chunk: chunk).output == text)
        // The same as two fields, and with identity, which changes nothing.
        let decoder = try #require(try CurlContentDecoder.make(fields: [("Content-Encoding", "gzip"), ("content-encoding", "identity, br")]))
        var output = Data()
        try feed(decoder, try contentCodingFixture("sample.txt.gz.br"), chunk: chunk) { output.append(contentsOf: $0); return true }
        try decoder.finish()
        #expect(output == text)
    }

    @Test("a body that decodes to much more comes out in pieces of at most 64 KiB", arguments: ["gz", "zz", "br", "zst"])
    func boundedPieces(suffix: String) throws {
        let encoding = ["gz": "gzip", "zz": "deflate", "br": "br", "zst": "zstd"][suffix] ?? ""
        let decoder = try #require(try CurlContentDecoder.make(contentEncoding: [encoding]))
        var total = 0
        var largest = 0
        var zeros = true
        // One call with the whole body: the decoder never holds more than a piece.
        try feed(decoder, try contentCodingFixture("zeros-16MiB.\(suffix)"), chunk: .max) { piece in
            total += piece.count
            largest = max(largest, piece.count)
            zeros = zeros && !piece.contains { $0 != 0 }
            return true
        }
        try decoder.finish()
        #expect(total == 16 << 20)
        #expect(largest == CurlContentDecoder.pieceSize)
        #expect(zeros)
    }

    @Test("a sink that says stop stops the decoding at once")
    func stops() throws {
        let decoder = try #require(try CurlContentDecoder.make(contentEncoding: ["gzip"]))
        var pieces = 0
        let finished = try feed(decoder, try contentCodingFixture("zeros-16MiB.gz"), chunk: .max) { _ in
            pieces += 1
            return pieces < 3
        }
        #expect(!finished)
        #expect(pieces == 3)
    }

    @Test("a body cut anywhere is truncated, fed whole or byte by byte", arguments: ["gz", "zz", "deflate", "br", "zst"], [Int.max, 1])
    func truncatedAnywhere(suffix: String, chunk: Int) throws {
        let encoding = ["gz": "gzip", "zz": "deflate", "deflate": "deflate", "br": "br", "zst": "zstd"][suffix] ?? ""
        let body = try contentCodingFixture("small.txt.\(suffix)")
        #expect(try decode(body, encoding, chunk: chunk).output == contentCodingFixture("small.txt"))
        for cut in 1..<body.count {
            let failure = try decodingFailure(body.prefix(cut), encoding, chunk: chunk)
            #expect(failure?.kind == .truncated, "\(encoding) cut to \(cut) of \(body.count) bytes: \(String(describing: failure))")
        }
    }

    @Test("a gzip body cut in its header, its data, its CRC or its length is truncated, and says so")
    func truncatedGzip() throws {
        let body = try contentCodingFixture("sample.txt.gz")
        let count = body.count
        // In the header, right after it, in the deflate data, before and in the CRC-32, in the length.
        for cut in [1, 2, 9, 10, 11, count / 2, count - 8, count - 6, count - 4, count - 1] {
            let failure = try #require(try decodingFailure(body.prefix(cut), "gzip"), "cut to \(cut)")
            #expect(failure.kind == .truncated)
            #expect(failure.description == "The gzip-encoded body is truncated: it ended after \(cut) bytes, inside its gzip stream.")
        }
    }

    @Test("corrupt data is an error that says what the library found", arguments: [
        ("sample.txt.gz", "gzip", 0, "incorrect header check"),
        ("sample.txt.gz", "gzip", 3, "unknown header flags set"),
        ("sample.txt.gz", "gzip", 10, "invalid distance code"),
        ("sample.txt.gz", "gzip", -8, "incorrect data check"),
        ("sample.txt.gz", "gzip", -1, "incorrect length check"),
        ("sample.txt.zz", "deflate", -1, "incorrect data check"),
        ("sample.txt.zz", "deflate", 2, "invalid distance code"),
        ("sample.txt.zst", "zstd", 0, "Unknown frame descriptor"),
        ("sample.txt.zst", "zstd", -1, "Restored data doesn't match checksum"),
        ("sample.txt.zst", "zstd", 8000, "Data corruption detected"),
        ("sample.txt.br", "br", 0, "brotli error PADDING_2"),
        ("sample.txt.br", "br", 5, "brotli error HUFFMAN_SPACE"),
    ] as [(String, String, Int, String)])
    func corrupt(file: String, encoding: String, at index: Int, reason: String) throws {
        let body = try contentCodingFixture(file)
        let flipped = flipping(body, at: index < 0 ? body.count + index : index)
        for chunk in [Int.max, 1] {
            let failure = try #require(try decodingFailure(flipped, encoding, chunk: chunk), "\(file) with byte \(index) flipped")
            #expect(failure.kind == .corrupt)
            #expect(failure.description == "The \(encoding)-encoded body is corrupt: \(reason).")
        }
    }

    @Test("concatenated gzip members are one body; so are zstd frames", arguments: [Int.max, 1])
    func concatenated(chunk: Int) throws {
        let text = try contentCodingFixture("sample.txt")
        let gzip = try contentCodingFixture("sample.txt.gz")
        let empty = try contentCodingFixture("empty.gz")
        #expect(try decode(gzip + empty + gzip, "gzip", chunk: chunk).output == text + text)
        let zstd = try contentCodingFixture("sample.txt.zst")
        #expect(try decode(zstd + zstd, "zstd", chunk: chunk).output == text + text)
        // A second member cut short is as truncated as the first.
        #expect(try decodingFailure(gzip + gzip.prefix(100), "gzip", chunk: chunk)?.kind == .truncated)
        #expect(try decodingFailure(gzip + Data([0x1F, 0x8B]), "gzip", chunk: chunk)?.kind == .truncated)
        #expect(try decodingFailure(zstd + zstd.prefix(100), "zstd", chunk: chunk)?.kind == .truncated)
    }

    @Test("bytes after a gzip or deflate stream are ignored, as gunzip ignores trailing garbage; after br or zstd, an error",
          arguments: [Int.max, 1])
    func trailingGarbage(chunk: Int) throws {
        let text = try contentCodingFixture("sample.txt")
        let garbage = Data("\0\0\0garbage".utf8)
        for (suffix, encoding) in [("gz", "gzip"), ("zz", "deflate"), ("deflate", "deflate")] {
            let body = try contentCodingFixture("sample.txt.\(suffix)")
            #expect(try decode(body + garbage, encoding, chunk: chunk).output == text)
            #expect(try decode(body + Data([0x1F]), encoding, chunk: chunk).output == text)
            #expect(try decode(body + Data([0x1F, 0x00, 0x8B]), encoding, chunk: chunk).output == text)
        }
        for (suffix, encoding) in [("br", "br"), ("zst", "zstd")] {
            let body = try contentCodingFixture("sample.txt.\(suffix)")
            #expect(try decodingFailure(body + garbage, encoding, chunk: chunk)?.kind == .corrupt, "\(encoding)")
        }
    }

    @Test("an empty body is no error with any coding; an empty stream decodes to nothing",
          arguments: ["gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br"])
    func empty(encoding: String) throws {
        let decoded = try decode(Data(), encoding)
        #expect(decoded.output.isEmpty)
        #expect(decoded.pieces == 0)
        let file = ["gzip": "empty.gz", "x-gzip": "empty.gz", "br": "empty.br", "zstd": "empty.zst"][encoding]
        if let file {
            #expect(try decode(try contentCodingFixture(file), encoding, chunk: 1).output.isEmpty)
        }
    }

    @Test("identity or no coding: no decoder; a coding it can't decode: no decoder, the body as sent")
    func passThrough() throws {
        #expect(try CurlContentDecoder.make(contentEncoding: []) == nil)
        #expect(try CurlContentDecoder.make(contentEncoding: ["identity", " "]) == nil)
        #expect(try CurlContentDecoder.make(contentEncoding: ["compress"]) == nil)
        #expect(try CurlContentDecoder.make(contentEncoding: ["gzip, compress"]) == nil)
        #expect(try CurlContentDecoder.make(contentEncoding: ["br"], available: [.gzip, .deflate]) == nil)
        #expect(try CurlContentDecoder.make(contentEncoding: [" GZip "]) != nil)
        #expect(try CurlContentDecoder.make(fields: [("Content-Type", "gzip")]) == nil)
    }

    @Test("more than five codings are refused, as libcurl refuses them")
    func tooManyCodings() throws {
        #expect(try CurlContentDecoder.make(contentEncoding: ["gzip, gzip, gzip, gzip, gzip"]) != nil)
        let failure = #expect(throws: CurlContentDecoder.Failure.self) {
            try CurlContentDecoder.make(contentEncoding: ["gzip, gzip, gzip", "gzip, gzip, gzip"])
        }
        #expect(failure?.kind == .tooManyCodings)
        #expect(failure?.description == "The response has 6 content codings (gzip, gzip, gzip, gzip, gzip, gzip); at most 5 are decoded.")
    }

    @Test("a failure is URLError(.cannotDecodeContentData) with its description and the URL")
    func urlError() throws {
        let url = try #require(URL(string: "http://h/body"))
        let failure = try #require(try decodingFailure(try contentCodingFixture("small.txt.gz").prefix(20), "gzip"))
        let error = failure.urlError(url: url)
        #expect(error.code == .cannotDecodeContentData)
        #expect(error.localizedDescription == "The gzip-encoded body is truncated: it ended after 20 bytes, inside its gzip stream.")
        #expect(error.failingURL == url)
    }

    @Test("Accept-Encoding lists the codings decoded, most compact first")
    func acceptEncoding() {
        #expect(CurlContentDecoder.acceptEncoding(for: Set(CurlContentDecoder.Coding.allCases)) == "zstd, br, gzip, deflate")
        #expect(CurlContentDecoder.acceptEncoding(for: [.deflate, .gzip]) == "gzip, deflate")
        #expect(CurlContentDecoder.acceptEncoding(for: []) == nil)
    }
}
