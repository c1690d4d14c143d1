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

    /// What a sink says after taking a piece.
    enum Flow: Sendable, Equatable {
        /// Go on.
        case proceed
        /// Stop for now: the piece was taken, and no other should follow until the next call. The
        /// decoder keeps where it is (input it took but didn't decode, output its library holds)
        /// and goes on from there on the next call, before the new bytes. Advisory: a piece may
        /// still come (a stream's first bytes, held back while they are sniffed, are decoded whole).
        case pause
        /// Stop for good (the transfer was cancelled).
        case stop
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
        try decode(bytes, flow: { sink($0) ? .proceed : .stop }).flow != .stop
    }

    /// Decodes what earlier calls left, then the next bytes of the body, until `sink` pauses or
    /// stops it or the bytes run out.
    ///
    /// A body that decodes to much more than it is (a compression bomb) so reaches its handler no
    /// faster than the handler takes it: the transfer stops reading while the decoder is paused.
    ///
    /// - Returns: How many of `bytes` were taken (the rest must come again, first, on the next
    ///   call: libcurl hands a paused transfer's bytes again), and how the sink ended it.
    /// - Throws: ``Failure`` for data that is not a valid stream of its coding.
    func decode(_ bytes: UnsafeRawBufferPointer, flow sink: (UnsafeRawBufferPointer) -> Flow) throws -> (consumed: Int, flow: Flow) {
        // What was left: the inner stages' queued input first (it sits behind nothing), then the
        // output the libraries hold, the innermost first.
        for index in stages.indices.reversed() {
            let flow = try drain(index, sink: sink)
            if flow != .proceed { return (0, flow) }
        }
        guard let first = stages.first else { return (bytes.count, sink(bytes)) }
        var input = bytes
        let flow = try first.decode(&input) { piece in try self.feed(piece, toStage: 1, sink: sink) }
        return (bytes.count - input.count, flow)
    }

    /// Whether nothing waits inside: no stage holds input or output from an earlier call.
    var isIdle: Bool { stages.allSatisfy(\.isIdle) }

    /// Ends the body: every stream must have ended.
    ///
    /// - Throws: ``Failure`` of kind `truncated` when one didn't. An empty body (no byte at all) is
    ///   not truncated: a `HEAD` response, a 204 or a 304 have none.
    func finish() throws {
        for stage in stages { try stage.finish() }
    }

    /// Decodes what stage `index` was left with: its queued input, then its library's output.
    private func drain(_ index: Int, sink: (UnsafeRawBufferPointer) -> Flow) throws -> Flow {
        let stage = stages[index]
        if !stage.queued.isEmpty {
            let queued = stage.queued
            stage.queued = Data()
            let flow = try queued.withUnsafeBytes { bytes -> Flow in
                var input = bytes
                defer { if !input.isEmpty { stage.queued = Data(input) + stage.queued } }
                return try stage.decode(&input) { piece in try self.feed(piece, toStage: index + 1, sink: sink) }
            }
            if flow != .proceed { return flow }
        }
        return try stage.flush { piece in try self.feed(piece, toStage: index + 1, sink: sink) }
    }

    private func feed(_ bytes: UnsafeRawBufferPointer, toStage index: Int, sink: (UnsafeRawBufferPointer) -> Flow) throws -> Flow {
        guard index < stages.count else { return sink(bytes) }
        let stage = stages[index]
        // Behind what it was left with: queued, in order (this happens only when a pause was not
        // honoured, for a few bytes).
        guard stage.queued.isEmpty else {
            stage.queued.append(contentsOf: bytes)
            return .pause
        }
        var input = bytes
        let flow = try stage.decode(&input) { piece in try self.feed(piece, toStage: index + 1, sink: sink) }
        // The outer stage's buffer will be overwritten: what this one didn't take is copied.
        if !input.isEmpty { stage.queued = Data(input) }
        return flow
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
        /// The sink paused the decoding: the stream may hold output, and `input` keeps what it
        /// didn't take.
        case paused
        /// The sink stopped the decoding.
        case stopped
    }

    typealias Emit = (UnsafeRawBufferPointer) throws -> CurlContentDecoder.Flow

    /// Input taken from the stage before and not decoded yet, when a pause came: decoded first.
    var queued = Data()
    /// Whether the stream may hold output: a pause came while it was giving some.
    private(set) var holdsOutput = false
    /// A pause came with the stream's last output: decoding stops once the stream has ended.
    private var pausesAfterEnd = false

    /// Whether nothing waits here from an earlier call.
    var isIdle: Bool { queued.isEmpty && !holdsOutput }

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

    /// Decodes `input`, handing the output to `emit`, until it runs out or `emit` pauses or stops
    /// the decoding; `input` keeps what wasn't taken.
    func decode(_ input: inout UnsafeRawBufferPointer, _ emit: Emit) throws -> CurlContentDecoder.Flow {
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
                let flow = try replay(first, through: stream, emit)
                if flow != .proceed { return flow }
            case .running(let stream):
                switch try pump(stream, &input, emit) {
                case .stopped: return .stop
                case .paused: return .pause
                case .needsInput: return .proceed
                case .ended:
                    ended(stream)
                    if pausesAfterEnd {
                        pausesAfterEnd = false
                        return .pause
                    }
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
                    let flow = try replay(next, through: stream, emit)
                    if flow != .proceed { return flow }
                } else {
                    state = .ignoringRest
                }
            case .ignoringRest:
                input = UnsafeRawBufferPointer(rebasing: input.dropFirst(input.count))
                return .proceed
            case .ended:
                throw CurlContentDecoder.Failure(kind: .corrupt, description:
                    "The \(coding.rawValue)-encoded body is corrupt: it goes on after the end of its \(coding.rawValue) stream (at byte \(consumed)).")
            }
        }
        return .proceed
    }

    /// Hands on the output the stream holds from a paused call, if any.
    func flush(_ emit: Emit) throws -> CurlContentDecoder.Flow {
        guard holdsOutput, case .running(let stream) = state else {
            holdsOutput = false
            return .proceed
        }
        var none = UnsafeRawBufferPointer(start: nil, count: 0)
        switch try pump(stream, &none, emit) {
        case .stopped: return .stop
        case .paused: return .pause
        case .needsInput: return .proceed
        case .ended:
            ended(stream)
            defer { pausesAfterEnd = false }
            return pausesAfterEnd ? .pause : .proceed
        }
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

    /// Feeds `bytes` held back while sniffing to `stream`, which just started. Two bytes: a pause
    /// is passed on once they are all taken, never in the middle of them (they have no buffer to
    /// wait in).
    private func replay(_ bytes: [UInt8], through stream: Stream, _ emit: Emit) throws -> CurlContentDecoder.Flow {
        try bytes.withUnsafeBytes { held -> CurlContentDecoder.Flow in
            var held = held
            var flow = CurlContentDecoder.Flow.proceed
            while !held.isEmpty || flow == .proceed {
                switch try pump(stream, &held, emit) {
                case .stopped: return .stop
                case .paused: flow = .pause
                case .needsInput: return flow
                case .ended:
                    ended(stream)
                    if pausesAfterEnd {
                        pausesAfterEnd = false
                        flow = .pause
                    }
                    // Two bytes can't hold a whole stream and a byte after it; but if they did, the
                    // rest is decoded the same way.
                    guard !held.isEmpty else { return flow }
                    let after = try decode(&held, emit)
                    return flow == .pause ? .pause : after
                }
            }
            return flow
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
            holdsOutput = false
            if produced > 0 {
                switch try emit(UnsafeRawBufferPointer(rebasing: buffer.prefix(produced))) {
                case .proceed: break
                case .stop: return .stopped
                case .pause where status == Int32(JZ_DECODE_END) && coding != .zstd:
                    // The stream is over: the pause is for what may follow it.
                    pausesAfterEnd = true
                case .pause where status != Int32(JZ_DECODE_ERROR):
                    // The stream may have more to give from what it took: the next call asks first.
                    if status == Int32(JZ_DECODE_END) { atFrameBoundary = true }
                    holdsOutput = true
                    return .paused
                case .pause:
                    break
                }
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

    /// The bytes at the start of the next delivery already decoded: libcurl hands a paused
    /// transfer's bytes again from where the pause came, and the decoder took some of them.
    private var alreadyTaken = 0

    /// What the write callback tells libcurl after ``decode(_:into:)``.
    enum Outcome: Equatable {
        /// All the bytes were taken.
        case took
        /// Pause the transfer: the same bytes come again after it (those already decoded are
        /// skipped then).
        case pause
        /// Stop the transfer: the sink said so, or ``failure`` is set.
        case stop
    }

    /// Hands the next body bytes to `sink`, decoded (as they are when there is nothing to decode),
    /// until the sink pauses.
    ///
    /// - Parameter sink: Takes a piece, valid during the call, and says whether more may follow
    ///   now. A piece is always taken whole; without a decoder, the sink's pause is only heard on
    ///   the next call.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> CurlContentDecoder.Flow) -> Outcome {
        guard failure == nil else { return .stop }
        guard let decoder else { return sink(bytes) == .stop ? .stop : .took }
        let skipped = min(alreadyTaken, bytes.count)
        alreadyTaken -= skipped
        do {
            var (consumed, flow) = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes.dropFirst(skipped)), flow: sink)
            // A pause the sink didn't ask for (a stage's first bytes decoded whole) leaves
            // something inside: decoded now, since only the sink's pause is ever resumed.
            while flow == .proceed, !decoder.isIdle {
                flow = try decoder.decode(UnsafeRawBufferPointer(start: nil, count: 0), flow: sink).flow
            }
            switch flow {
            case .stop:
                return .stop
            case .proceed where decoder.isIdle && skipped + consumed == bytes.count:
                return .took
            case .proceed, .pause:
                // libcurl keeps the bytes and hands them again, these first: what was taken of
                // them is skipped then. The decoder keeps what it holds until that call.
                alreadyTaken = skipped + consumed
                return .pause
            }
        } catch {
            fail(error)
            return .stop
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
