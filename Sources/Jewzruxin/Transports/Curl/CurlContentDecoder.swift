import CJewzruxinCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes a response body's content codings (`Content-Encoding`) as it arrives, for the curl
/// transport, which turns libcurl's own decoding off: libcurl 7.88 accepts a gzip body cut short as
/// complete, where this decoder reports it.
///
/// Made from the response's `Content-Encoding` (a list, in the order the codings were applied, so
/// decoded from the last; `identity` ignored): `gzip` and `x-gzip`, `deflate` (zlib-wrapped, or raw
/// deflate as some servers send it), `br` and `zstd`, with the libraries of the C shim. A response
/// with a coding it can't decode (unknown, or its library not loaded) gets no decoder: its body is
/// handed on as the server sent it.
///
/// Fed the body chunk by chunk (``decode(_:into:)``), it hands the decoded bytes on in pieces of at
/// most ``pieceSize`` bytes, so memory stays flat whatever the ratio; ``finish()`` then throws when a
/// stream didn't end (the body is truncated). Corrupt data throws as it is met. After a gzip member,
/// another member may follow (concatenated members are one body); any other bytes after the end of
/// a gzip or deflate stream are ignored, as zlib's `gunzip` ignores trailing garbage. Bytes after the
/// end of a brotli stream are an error; zstd frames may follow one another.
///
/// Used on one thread at a time (the transfer's loop thread).
final class CurlContentDecoder {
    /// A content coding this decoder knows.
    enum Coding: String, Sendable, CaseIterable {
        case zstd
        case brotli = "br"
        case gzip
        case deflate

        /// The coding a `Content-Encoding` token names; `nil` for one not known here.
        init?(token: String) {
            switch token.lowercased() {
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            case "br": self = .brotli
            case "zstd": self = .zstd
            default: return nil
            }
        }

        /// The library the coding is decoded with (a `JZ_DECODER_*` bit).
        fileprivate var library: Int32 {
            switch self {
            case .gzip, .deflate: return Int32(JZ_DECODER_ZLIB)
            case .brotli: return Int32(JZ_DECODER_BROTLI)
            case .zstd: return Int32(JZ_DECODER_ZSTD)
            }
        }
    }

    /// Why a body can't be decoded.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        enum Kind: Sendable, Equatable {
            /// The body ended inside a stream.
            case truncated
            /// The data is not a valid stream of its coding.
            case corrupt
            /// More codings than ``CurlContentDecoder/maximumCodings``.
            case tooManyCodings
            /// A library couldn't start a stream (out of memory).
            case unavailable
        }

        let kind: Kind
        /// What went wrong, in words.
        let description: String

        /// The error the transfer ends with: `URLError(.cannotDecodeContentData)` saying this.
        func urlError(url: URL?) -> URLError {
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description, NSUnderlyingErrorKey: self]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            return URLError(.cannotDecodeContentData, userInfo: userInfo)
        }
    }

    /// The most codings a response may stack, as libcurl allows; more fail the transfer.
    static let maximumCodings = 5
    /// The most decoded bytes handed on at once.
    static let pieceSize = 64 * 1024

    /// The codings whose library loaded, hence decoded here.
    static let available: Set<Coding> = {
        let loaded = jz_decoders_load()
        return Set(Coding.allCases.filter { loaded & $0.library != 0 })
    }()

    /// The `Accept-Encoding` value for `codings`, most compact first; `nil` when there are none.
    static func acceptEncoding(for codings: Set<Coding>) -> String? {
        let listed = Coding.allCases.filter(codings.contains).map(\.rawValue)
        return listed.isEmpty ? nil : listed.joined(separator: ", ")
    }

    /// The stages, in decoding order: the last coding applied first.
    private let stages: [Stage]

    /// The decoder for a response with these `Content-Encoding` values (each field's value, in
    /// order); `nil` when there is nothing to decode, or a coding is not in `available` (the body is
    /// then handed on as sent).
    ///
    /// - Throws: ``Failure`` of kind `tooManyCodings` for more than ``maximumCodings`` codings.
    static func make(contentEncoding values: [String], available: Set<Coding> = available) throws -> CurlContentDecoder? {
        let tokens = values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.lowercased() != "identity" }
        guard !tokens.isEmpty else { return nil }
        guard tokens.count <= maximumCodings else {
            throw Failure(kind: .tooManyCodings, description:
                "The response has \(tokens.count) content codings (\(tokens.joined(separator: ", "))); at most \(maximumCodings) are decoded.")
        }
        var codings: [Coding] = []
        for token in tokens {
            guard let coding = Coding(token: token), available.contains(coding) else { return nil }
            codings.append(coding)
        }
        return CurlContentDecoder(codings: codings.reversed())
    }

    /// The decoder for a response's fields.
    static func make(fields: [(name: String, value: String)]) throws -> CurlContentDecoder? {
        try make(contentEncoding: fields.filter { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, "Content-Encoding") }.map(\.value))
    }

    private init(codings: [Coding]) {
        stages = codings.map(Stage.init)
    }

    /// Decodes the next bytes of the body, handing what they decode to on `sink` in pieces of at
    /// most ``pieceSize`` bytes; the pieces are valid during the call only.
    ///
    /// - Parameters:
    ///   - bytes: The next bytes of the body as sent.
    ///   - sink: Takes a piece; returns `false` to stop (the transfer was cancelled).
    /// - Returns: `false` when `sink` stopped the decoding.
    /// - Throws: ``Failure`` for data that is not a valid stream of its coding.
    func decode(_ bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> Bool) throws -> Bool {
        try feed(bytes, toStage: 0, sink: sink)
    }

    /// Ends the body: every stream must have ended.
    ///
    /// - Throws: ``Failure`` of kind `truncated` when one didn't. An empty body (no byte at all) is
    ///   not truncated: a `HEAD` response, a 204 or a 304 have none.
    func finish() throws {
        for stage in stages { try stage.finish() }
    }

    private func feed(_ bytes: UnsafeRawBufferPointer, toStage index: Int, sink: (UnsafeRawBufferPointer) -> Bool) throws -> Bool {
        guard index < stages.count else { return sink(bytes) }
        return try stages[index].decode(bytes) { piece in try self.feed(piece, toStage: index + 1, sink: sink) }
    }
}

/// One coding's decoding: its library's stream, where it is in the body, and a buffer for its output.
private final class Stage {
    /// A stream of one of the C shim's libraries.
    enum Stream {
        case zlib(UnsafeMutableRawPointer)
        case brotli(UnsafeMutableRawPointer)
        case zstd(UnsafeMutableRawPointer)

        /// One `jz_*_decode` call.
        func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer, _ inputUsed: inout Int,
                  _ outputUsed: inout Int, _ message: inout UnsafePointer<CChar>?) -> Int32 {
            switch self {
            case .zlib(let stream):
                return jz_zlib_decode(stream, input.baseAddress, input.count, &inputUsed, output.baseAddress, output.count, &outputUsed, &message)
            case .brotli(let stream):
                return jz_brotli_decode(stream, input.baseAddress, input.count, &inputUsed, output.baseAddress, output.count, &outputUsed, &message)
            case .zstd(let stream):
                return jz_zstd_decode(stream, input.baseAddress, input.count, &inputUsed, output.baseAddress, output.count, &outputUsed, &message)
            }
        }

        func destroy() {
            switch self {
            case .zlib(let stream): jz_zlib_destroy(stream)
            case .brotli(let stream): jz_brotli_destroy(stream)
            case .zstd(let stream): jz_zstd_destroy(stream)
            }
        }
    }

    enum State {
        /// No byte yet.
        case idle
        /// deflate: the first bytes, until two tell a zlib header from raw deflate.
        case sniffing([UInt8])
        case running(Stream)
        /// gzip: a member ended; the first bytes after it, until two tell whether another begins.
        case betweenMembers([UInt8])
        /// gzip or deflate: the stream ended; what follows is trailing garbage, ignored.
        case ignoringRest
        /// brotli: the stream ended; nothing may follow.
        case ended
    }

    /// What running a stream over some input came to.
    private enum Pumped {
        /// It took all the input (it may hold some back internally) and wants more.
        case needsInput
        /// The stream ended; the input left follows it.
        case ended
        /// The sink stopped the decoding.
        case stopped
    }

    typealias Emit = (UnsafeRawBufferPointer) throws -> Bool

    let coding: CurlContentDecoder.Coding
    private var state = State.idle
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: CurlContentDecoder.pieceSize, alignment: 16)
    /// The encoded bytes this stage has taken, for messages.
    private var consumed = 0
    /// zstd: the last call ended a frame, and no byte of another has been taken since.
    private var atFrameBoundary = false

    init(_ coding: CurlContentDecoder.Coding) {
        self.coding = coding
    }

    deinit {
        if case .running(let stream) = state { stream.destroy() }
        buffer.deallocate()
    }

    /// Decodes `input`, handing the output to `emit`; `false` when `emit` stopped the decoding.
    func decode(_ input: UnsafeRawBufferPointer, _ emit: Emit) throws -> Bool {
        var input = input
        while !input.isEmpty {
            switch state {
            case .idle:
                if coding == .deflate {
                    state = .sniffing([])
                } else {
                    state = .running(try start())
                }
            case .sniffing(var first):
                first.append(input[0])
                input = UnsafeRawBufferPointer(rebasing: input.dropFirst())
                consumed += 1
                guard first.count == 2 else {
                    state = .sniffing(first)
                    continue
                }
                // RFC 1950: CM 8, CINFO ≤ 7, and CMF·256 + FLG a multiple of 31.
                let isZlib = first[0] & 0x0F == 8 && first[0] >> 4 <= 7 && (Int(first[0]) << 8 | Int(first[1])) % 31 == 0
                let stream = try start(windowBits: isZlib ? 15 : -15)
                state = .running(stream)
                consumed -= 2
                guard try replay(first, through: stream, emit) else { return false }
            case .running(let stream):
                switch try pump(stream, &input, emit) {
                case .stopped: return false
                case .needsInput: return true
                case .ended: ended(stream)
                }
            case .betweenMembers(var next):
                next.append(input[0])
                input = UnsafeRawBufferPointer(rebasing: input.dropFirst())
                consumed += 1
                if next == [0x1F] {
                    state = .betweenMembers(next)
                } else if next == [0x1F, 0x8B] {
                    // Another gzip member: the body goes on.
                    let stream = try start()
                    state = .running(stream)
                    consumed -= 2
                    guard try replay(next, through: stream, emit) else { return false }
                } else {
                    state = .ignoringRest
                }
            case .ignoringRest:
                return true
            case .ended:
                throw CurlContentDecoder.Failure(kind: .corrupt, description:
                    "The \(coding.rawValue)-encoded body is corrupt: it goes on after the end of its \(coding.rawValue) stream (at byte \(consumed)).")
            }
        }
        return true
    }

    /// The body ended.
    func finish() throws {
        switch state {
        case .idle, .betweenMembers, .ignoringRest, .ended:
            return
        case .running where coding == .zstd && atFrameBoundary:
            return
        case .sniffing, .running:
            throw CurlContentDecoder.Failure(kind: .truncated, description:
                "The \(coding.rawValue)-encoded body is truncated: it ended after \(consumed) bytes, inside its \(coding.rawValue) stream.")
        }
    }

    /// Feeds `bytes` held back while sniffing to `stream`, which just started.
    private func replay(_ bytes: [UInt8], through stream: Stream, _ emit: Emit) throws -> Bool {
        try bytes.withUnsafeBytes { held -> Bool in
            var held = held
            switch try pump(stream, &held, emit) {
            case .stopped: return false
            case .needsInput: return true
            case .ended:
                ended(stream)
                // Two bytes can't hold a whole stream and a byte after it; but if they did, the
                // rest is decoded the same way.
                return held.isEmpty ? true : try decode(held, emit)
            }
        }
    }

    /// The stream ended: what may follow depends on the coding.
    private func ended(_ stream: Stream) {
        stream.destroy()
        switch coding {
        case .gzip: state = .betweenMembers([])
        case .deflate: state = .ignoringRest
        case .brotli, .zstd: state = .ended
        }
    }

    private func start(windowBits: Int32 = 47) throws -> Stream {
        let stream: Stream? = switch coding {
        // 47: a gzip member, or a zlib stream as some servers label gzip.
        case .gzip, .deflate: jz_zlib_create(windowBits).map(Stream.zlib)
        case .brotli: jz_brotli_create().map(Stream.brotli)
        case .zstd: jz_zstd_create().map(Stream.zstd)
        }
        guard let stream else {
            throw CurlContentDecoder.Failure(kind: .unavailable, description:
                "The \(coding.rawValue)-encoded body can't be decoded: the \(coding.rawValue) decoder could not start (out of memory).")
        }
        return stream
    }

    /// Runs `stream` over `input` until it has taken all of it and given all the output it can, or
    /// ends; `input` keeps what is left.
    private func pump(_ stream: Stream, _ input: inout UnsafeRawBufferPointer, _ emit: Emit) throws -> Pumped {
        while true {
            var used = 0
            var produced = 0
            var message: UnsafePointer<CChar>?
            let status = stream.step(input, buffer, &used, &produced, &message)
            input = UnsafeRawBufferPointer(rebasing: input.dropFirst(used))
            consumed += used
            if used > 0 { atFrameBoundary = false }
            if produced > 0 {
                guard try emit(UnsafeRawBufferPointer(rebasing: buffer.prefix(produced))) else { return .stopped }
            }
            switch status {
            case Int32(JZ_DECODE_ERROR):
                var reason = message.map { String(cString: $0) } ?? "invalid data"
                // brotli names its errors (PADDING_2, HUFFMAN_SPACE…) with no sentence around them.
                if coding == .brotli { reason = "brotli error \(reason)" }
                throw CurlContentDecoder.Failure(kind: .corrupt, description: "The \(coding.rawValue)-encoded body is corrupt: \(reason).")
            case Int32(JZ_DECODE_END) where coding == .zstd:
                // A frame ended; another may follow in the same stream.
                atFrameBoundary = true
                if input.isEmpty { return .needsInput }
            case Int32(JZ_DECODE_END):
                return .ended
            default:
                if input.isEmpty, produced < buffer.count { return .needsInput }
                if used == 0, produced == 0 {
                    throw CurlContentDecoder.Failure(kind: .corrupt, description:
                        "The \(coding.rawValue)-encoded body can't be decoded: the decoder stopped at byte \(consumed).")
                }
            }
        }
    }
}

/// A curl transfer's side of decoding: the decoder of its response's codings, and why the body
/// can't be decoded. Used on the transfer's loop thread.
struct CurlBodyDecoding {
    private var decoder: CurlContentDecoder?
    private var url: URL?
    /// Why the body can't be decoded: the transfer ends with it.
    private(set) var failure: URLError?

    /// Takes the fields of the final response head: the body is decoded from now on when they
    /// name codings that are decoded here.
    mutating func start(_ fields: [(name: String, value: String)], url: URL) {
        self.url = url
        do {
            decoder = try CurlContentDecoder.make(fields: fields)
        } catch {
            fail(error)
        }
    }

    /// Hands the next body bytes to `sink`, decoded (as they are when there is nothing to decode).
    ///
    /// - Parameter sink: Takes a piece, valid during the call; returns `false` to stop.
    /// - Returns: `false` when the transfer must stop: `sink` said so, or ``failure`` is set.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard failure == nil else { return false }
        guard let decoder else { return sink(bytes) }
        do {
            return try decoder.decode(bytes, into: sink)
        } catch {
            fail(error)
            return false
        }
    }

    /// The body ended as far as libcurl is concerned: ``failure``, or the error of a stream that
    /// didn't end (the body is truncated); `nil` when all is well.
    mutating func finish() -> URLError? {
        if failure == nil {
            do { try decoder?.finish() } catch { fail(error) }
        }
        return failure
    }

    private mutating func fail(_ error: any Error) {
        let failure = error as? CurlContentDecoder.Failure
            ?? CurlContentDecoder.Failure(kind: .corrupt, description: "The body can't be decoded: \(error)")
        self.failure = failure.urlError(url: url)
    }
}
