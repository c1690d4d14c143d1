import Foundation
import JewzruxinTestSupport
@testable import Jewzruxin
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/2 server over `openssl s_server`, so that a test can see what the curl transport
/// negotiates with no HTTP/2 server installed.
///
/// `openssl s_server -alpn h2,http/1.1` (without `-www`) ends TLS, selects h2 when the client offers
/// it (http/1.1 otherwise: with no protocol in common, OpenSSL 3.0's s_server ends the handshake with
/// a `no_application_protocol` alert), and works as a pipe: what the client sends comes out on its
/// standard output as is, and what it reads on its standard input goes to the client. This class
/// speaks HTTP/2 (RFC 9113) at the other end of those two pipes, enough for one GET:
///
/// - it reads s_server's `ACCEPT 127.0.0.1:<port>` line (port 0: the system picks a free one), then
///   the lines s_server prints about the handshake, among them the ALPN protocols the client offered
///   and the one selected;
/// - the client's first line tells the protocol: HTTP/2's connection preface (`PRI * HTTP/2.0`), or
///   an HTTP/1.1 request line from a client that didn't negotiate h2, which gets an HTTP/1.1 answer;
/// - on HTTP/2 it sends its SETTINGS frame, acknowledges the client's SETTINGS and PINGs, ignores
///   WINDOW_UPDATE, PRIORITY and the other frames, answers the first request (HEADERS, and any
///   CONTINUATION, up to END_HEADERS) with a HEADERS frame (`:status: 200` as HPACK's static index 8,
///   `0x88`; `content-type` and `content-length` as literals without indexing, no Huffman) and the
///   body in a DATA frame that ends the stream, then sends a GOAWAY; it reads the client's frames on
///   to the end of the connection.
///
/// Why not `-quiet`: with it s_server prints nothing, not even its port. Without it, s_server takes
/// a read of its standard input that begins with certain letters (`Q`, `q`, `r`…) for a command;
/// every write here begins with a frame header, whose first byte (the high byte of a 24-bit length)
/// is 0, or with `HTTP/1.1`, and is read in one piece (s_server reads up to 16 KiB at a time: hence
/// a body of at most 8 KiB), so none is. s_server's lines about the handshake are flushed before
/// the client's first bytes (and end in a bare line feed, where a request line ends in CR LF): the
/// client's bytes begin after the last line feed before the first CR LF. What s_server prints when
/// the connection ends comes after the client's last bytes, and is not read as frames once the
/// request is answered.
///
/// It can't hang a test: s_server is killed after `timeout` seconds, which ends its output and with
/// it the conversation, and ``serve(certificate:key:body:timeout:_:)`` stops it when its body ends.
final class HTTP2PipeServer: Sendable {
    /// What the server saw of the client.
    struct Exchange: Sendable {
        /// The ALPN protocols the client offered, as s_server reported them; `nil` when it offered none.
        var offeredProtocols: [String]?
        /// The ALPN protocol s_server selected; `nil` for none.
        var selectedProtocol: String?
        /// The client's first line: `PRI * HTTP/2.0` for HTTP/2's preface, or an HTTP/1.1 request line.
        var requestLine: String?
        /// The types of the HTTP/2 frames the client sent, in order (4 SETTINGS, 1 HEADERS, 8 WINDOW_UPDATE…).
        var frameTypes: [UInt8] = []
        /// The HTTP/2 stream of the request answered.
        var requestStream: UInt32?
        /// Whether the request's HEADERS frame ended its stream (a request without a body).
        var requestEndedStream = false
        /// What went wrong before the request was answered: no preface, a frame too large, the end.
        var problem: String?
    }

    /// The port s_server listens on, on 127.0.0.1.
    let port: Int
    private let state: Locked<Exchange>

    private init(port: Int, state: Locked<Exchange>) {
        self.port = port
        self.state = state
    }

    /// What the server saw of the client so far.
    var exchange: Exchange { state.withLock { $0 } }

    /// Serves one connection with `certificate` and `key` (PEM files) on a free loopback port for
    /// the duration of `run`, answering its request with `body` (`text/plain; charset=utf-8`, at
    /// most 8 KiB), then stops s_server.
    ///
    /// - Parameter timeout: When s_server is killed if it is still running, in seconds.
    static func serve(
        certificate: URL, key: URL, body: Data, timeout: TimeInterval = 30, _ run: (HTTP2PipeServer) async throws -> Void
    ) async throws {
        guard body.count <= 8192 else { throw HelperProcessError(description: "a body of \(body.count) bytes, more than 8 KiB") }
        // Sockets rather than pipes: a write to s_server after it died fails with EPIPE, no SIGPIPE.
        let input = try socketPair()
        let output: (Int32, Int32)
        let errors = Pipe()
        let process: ChildProcess
        do {
            output = try socketPair()
            do {
                process = try ChildProcess(opensslPath, [
                    "s_server", "-accept", "127.0.0.1:0", "-cert", certificate.path, "-key", key.path,
                    "-alpn", "h2,http/1.1", "-naccept", "1",
                ], input: input.1, output: output.1, error: errors.fileHandleForWriting.fileDescriptor)
            } catch {
                close(output.0)
                close(output.1)
                throw error
            }
        } catch {
            close(input.0)
            close(input.1)
            throw error
        }
        close(input.1)
        close(output.1)
        try errors.fileHandleForWriting.close()
        let errorText = PipeCollector(errors)
        let watchdog = DispatchWorkItem { process.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)

        let state = Locked(Exchange())
        let finished = DispatchSemaphore(value: 0)
        let waiting = Locked<Handover<Int?, Never>?>(nil)
        let announce: @Sendable (Int?) -> Void = { port in waiting.withLock { $0.take() }?.resume(returning: port) }
        let port = await withHandover { (continuation: Handover<Int?, Never>) in
            waiting.withLock { $0 = continuation }
            Thread.detachNewThread {
                var conversation = Conversation(reader: Reader(descriptor: output.0), input: input.0, body: body, state: state)
                conversation.run(announce: announce)
                announce(nil)
                close(output.0)
                close(input.0)
                finished.signal()
            }
        }

        /// Kills s_server and waits for it and for the conversation, which its end ends.
        func stop() async {
            watchdog.cancel()
            process.send(SIGKILL)
            _ = await exitStatus(of: process, timeout: 5)
            await withHandover { (continuation: Handover<Void, Never>) in
                Thread.detachNewThread {
                    _ = finished.wait(timeout: .now() + 5)
                    continuation.resume()
                }
            }
        }

        guard let port else {
            await stop()
            throw HelperProcessError(description: "openssl s_server did not report its port: \(errorText.text)")
        }
        do {
            try await run(HTTP2PipeServer(port: port, state: state))
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// A connected pair of stream sockets, close-on-exec (the child gets its end as 0 or 1).
    private static func socketPair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Darwin)
        let type = SOCK_STREAM
        #else
        let type = Int32(SOCK_STREAM.rawValue)
        #endif
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
            throw HelperProcessError(description: "socketpair failed: errno \(errno)")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
        }
        return (descriptors[0], descriptors[1])
    }
}

// MARK: - The conversation

/// Blocking reads of s_server's output, kept until taken.
private struct Reader {
    let descriptor: Int32
    var buffer: [UInt8] = []

    /// Reads what comes next into ``buffer``; `false` at the end of the output (or on an error).
    mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[0..<count]
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// The first `count` bytes, taken out of the buffer; `nil` when the output ends before.
    mutating func take(_ count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// Reads until `found` finds something in the buffer, and returns that; `nil` when the output ends before.
    mutating func scan<T>(until found: ([UInt8]) -> T?) -> T? {
        while true {
            if let result = found(buffer) { return result }
            guard fill() else { return nil }
        }
    }
}

/// The server's side of one connection, run on a thread of its own.
private struct Conversation {
    var reader: Reader
    let input: Int32
    let body: Data
    let state: Locked<Exchange>
    typealias Exchange = HTTP2PipeServer.Exchange

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]
    /// SETTINGS_MAX_FRAME_SIZE's initial value: a larger frame is an error (or not a frame).
    static let maximumFrameSize = 16_384

    /// Frame types (RFC 9113, section 6) and flags.
    enum Frame {
        static let data: UInt8 = 0x0, headers: UInt8 = 0x1, settings: UInt8 = 0x4, ping: UInt8 = 0x6, goAway: UInt8 = 0x7
        static let continuation: UInt8 = 0x9
        static let endStream: UInt8 = 0x1, ack: UInt8 = 0x1, endHeaders: UInt8 = 0x4
    }

    mutating func run(announce: (Int?) -> Void) {
        let port = reader.scan { acceptedPort(in: String(decoding: $0, as: UTF8.self)) }
        announce(port)
        guard port != nil else { return }

        // The client's first line ends with the first CR LF; s_server's lines before it end with LF.
        guard let end = reader.scan(until: { $0.firstRange(of: Self.crlf)?.lowerBound }) else {
            return record { $0.problem = "the connection ended before the client sent a line" }
        }
        let start = reader.buffer[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let chatter = String(decoding: reader.buffer[..<start], as: UTF8.self)
        let requestLine = String(decoding: reader.buffer[start..<end], as: UTF8.self)
        reader.buffer.removeFirst(start)
        record {
            $0.requestLine = requestLine
            $0.offeredProtocols = Self.value(of: "ALPN protocols advertised by the client", in: chatter).map {
                $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            $0.selectedProtocol = Self.value(of: "ALPN protocols selected", in: chatter)
        }
        if requestLine == "PRI * HTTP/2.0" {
            serveHTTP2()
        } else {
            serveHTTP1()
        }
    }

    /// What follows `name: ` in a line of s_server's: `h2, http/1.1` in "ALPN protocols advertised
    /// by the client: h2, http/1.1", `h2` in "ALPN protocols selected: h2".
    static func value(of name: String, in chatter: String) -> String? {
        let prefix = name + ": "
        guard let line = chatter.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return String(line.dropFirst(prefix.count))
    }

    private mutating func serveHTTP1() {
        guard reader.scan(until: { $0.firstRange(of: Self.crlf + Self.crlf) }) != nil else {
            return record { $0.problem = "the HTTP/1.1 request head did not end" }
        }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard deliver(Array(head.utf8) + body) else { return }
        // Read on to the end, so that s_server never waits on a full pipe.
        while reader.fill() { reader.buffer.removeAll() }
    }

    private mutating func serveHTTP2() {
        guard let preface = reader.take(Self.preface.count), preface == Self.preface else {
            return record { $0.problem = "the client's HTTP/2 preface is incomplete or wrong" }
        }
        guard deliver(Self.frame(Frame.settings)) else { return }
        var answered = false
        var pendingStream: UInt32?  // a request whose header block goes on in CONTINUATION frames
        while let header = reader.take(9) {
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            let type = header[3], flags = header[4]
            let stream = UInt32(header[5] & 0x7F) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])
            guard length <= Self.maximumFrameSize else {
                // Before the answer, a broken client; after it, s_server's words about the closed connection.
                if !answered { record { $0.problem = "a frame of \(length) bytes, more than \(Self.maximumFrameSize)" } }
                return
            }
            guard let payload = reader.take(length) else { break }
            record { $0.frameTypes.append(type) }
            var reply: [UInt8] = []
            switch type {
            case Frame.settings where flags & Frame.ack == 0:
                reply = Self.frame(Frame.settings, flags: Frame.ack)
            case Frame.ping where flags & Frame.ack == 0 && length == 8:
                reply = Self.frame(Frame.ping, flags: Frame.ack, payload: payload)
            case Frame.headers where !answered && stream % 2 == 1:
                record {
                    $0.requestStream = stream
                    $0.requestEndedStream = flags & Frame.endStream != 0
                }
                pendingStream = stream
            case Frame.goAway:
                return
            default:
                break  // WINDOW_UPDATE, PRIORITY, RST_STREAM, DATA, acknowledgements, unknown types
            }
            if let request = pendingStream, stream == request, type == Frame.headers || type == Frame.continuation,
               flags & Frame.endHeaders != 0 {
                pendingStream = nil
                answered = true
                reply += answer(on: request)
            }
            if !reply.isEmpty, !deliver(reply) { return }
        }
        if !answered { record { $0.problem = "the connection ended before a request" } }
    }

    /// The response on `stream`: HEADERS, DATA up to the end of the stream, then GOAWAY.
    private func answer(on stream: UInt32) -> [UInt8] {
        var block: [UInt8] = [0x88]  // :status: 200, index 8 of the static table
        for (name, value) in [("content-type", "text/plain; charset=utf-8"), ("content-length", String(body.count))] {
            block += [0x00] + Self.literal(name) + Self.literal(value)  // literal without indexing, new name
        }
        var frames = Self.frame(Frame.headers, flags: Frame.endHeaders, stream: stream, payload: block)
        frames += Self.frame(Frame.data, flags: Frame.endStream, stream: stream, payload: Array(body))
        // GOAWAY: the last stream processed, then NO_ERROR.
        let last = [UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)]
        return frames + Self.frame(Frame.goAway, payload: last + [0, 0, 0, 0])
    }

    /// A frame: its 9-byte header (24-bit length, type, flags, 31-bit stream), then `payload`.
    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [
            UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
            UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF),
        ] + payload
    }

    /// An HPACK string literal without Huffman coding: its length as a 7-bit-prefix integer, then its bytes.
    static func literal(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var encoded: [UInt8] = []
        var length = bytes.count
        if length < 0x7F {
            encoded.append(UInt8(length))
        } else {
            encoded.append(0x7F)
            length -= 0x7F
            while length >= 0x80 {
                encoded.append(UInt8(length & 0x7F | 0x80))
                length >>= 7
            }
            encoded.append(UInt8(length))
        }
        return encoded + bytes
    }

    /// Writes `bytes` to s_server for the client, in one write where it can; `false` if s_server is gone.
    private func deliver(_ bytes: [UInt8]) -> Bool {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(input, $0.baseAddress, $0.count, flags) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private func record(_ change: (inout Exchange) -> Void) {
        state.withLock { change(&$0) }
    }
}
