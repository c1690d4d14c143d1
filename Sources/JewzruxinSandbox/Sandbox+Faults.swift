import Foundation

// `/fault/` endpoints: responses that break in the ways a client must survive. Any method.
// Counters are per `key` (each distinct key counts separately, empty by default) and read with
// `Sandbox.requestCount(forFaultKey:)`; requests answered 400 are not counted.
//
// | Path                         | Parameters (default)              | Behaviour                                          |
// |------------------------------|-----------------------------------|----------------------------------------------------|
// | /fault/close-before-headers  |                                   | reads the request, closes (FIN), sends nothing     |
// | /fault/close-mid-headers     |                                   | sends part of a header section, then closes        |
// | /fault/close-mid-body        | length (1000), sent (length / 2)  | Content-Length: length, `sent` bytes, closes       |
// | /fault/close-mid-chunked     | sent (500), chunk (100)           | chunked, `sent` bytes, closes before the last chunk|
// | /fault/reset                 | sent (0)                          | first `sent` bytes of a 200 response, then RST     |
// | /fault/stall                 | seconds (10)                      | nothing for `seconds` (or until the client closes  |
// |                              |                                   | or the sandbox stops), then closes                 |
// | /fault/slow-body             | n (20), interval_ms (10)          | n pattern bytes, one every interval_ms; succeeds   |
// | /fault/retry-after           | key, n (1), seconds (1)           | 503 with `Retry-After: seconds` n times, then 200  |
// | /fault/unauthorized          | key                               | always 401, `WWW-Authenticate: Basic realm=…`      |
// | /fault/redirect-loop/a, /b   | key, code (302)                   | a → b → a → … (query kept)                         |
// | /fault/redirect-chain/N      | key, code (302)                   | N → N−1 → … → 0, which answers 200 `end of chain`  |
// | /fault/truncated-gzip        | n (4096), cut (half)              | gzip of n pattern bytes minus its last `cut` bytes |
// | /fault/corrupt-gzip          | n (4096), part (crc)              | gzip of n pattern bytes with its `crc`, `size` or  |
// |                              |                                   | first stored `block`'s length check wrong          |
// | /fault/truncated-deflate     | n (4096), cut (half), raw (0)     | deflate (zlib; raw=1: raw deflate) of n pattern    |
// |                              |                                   | bytes minus its last `cut` bytes                   |
// | /fault/deflate-bomb          | n (1073741824)                    | `Content-Encoding: deflate` (zlib) of n zero bytes,|
// |                              |                                   | compressed about 159 to 1 (a compression bomb)     |
// | /fault/large                 | n (1048576), chunked (0), chunk   | n pattern bytes (as /bytes/n)                      |
// | /fault/chunked-trailer       |                                   | a valid chunked `hello` with a trailer field (RFC  |
// |                              |                                   | 9112 §7.1.2), then closes; FoundationNetworking    |
// |                              |                                   | traps on it                                        |

extension Sandbox {
    /// The longest `/fault/redirect-chain/N`.
    static let maximumRedirectChain: Int64 = 1000
    /// The partial header section `/fault/close-mid-headers` sends.
    static let partialHeaderSection = "HTTP/1.1 200 OK\r\nContent-Type: text/pla"
    /// The whole response `/fault/chunked-trailer` sends: valid HTTP/1.1, a chunked body with a
    /// trailer field, which kills a process on FoundationNetworking ("Transfer completed, but there's
    /// no response").
    static let chunkedWithTrailer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
    /// The body size of the response `/fault/reset` cuts.
    static let resetBodySize: Int64 = 100

    /// Adds the `/fault/` endpoints, counting in the sandbox's fault counters.
    static func registerFaultEndpoints(on core: ServerCore) {
        let counters = core.faultCounters
        core.addRoute("/fault/close-before-headers") { _ in rawFault(Data(), reset: false) }
        core.addRoute("/fault/close-mid-headers") { _ in rawFault(Data(partialHeaderSection.utf8), reset: false) }
        core.addRoute("/fault/chunked-trailer") { _ in rawFault(Data(chunkedWithTrailer.utf8), reset: false) }
        core.addRoute("/fault/close-mid-body", guarded(closeMidBody))
        core.addRoute("/fault/close-mid-chunked", guarded(closeMidChunked))
        core.addRoute("/fault/reset", guarded(resetFault))
        core.addRoute("/fault/stall", guarded(stall))
        core.addRoute("/fault/slow-body", guarded(slowBody))
        core.addRoute("/fault/retry-after", guarded { request throws(ParameterError) in
            try retryAfter(request, counters: counters)
        })
        core.addRoute("/fault/unauthorized") { request in
            _ = counters.record(request.queryValue("key") ?? "")
            return unauthorized(challenge: "Basic realm=\"\(authRealm)\"")
        }
        core.addRoute("/fault/redirect-loop/*", guarded { request throws(ParameterError) in
            try redirectLoop(request, counters: counters)
        })
        core.addRoute("/fault/redirect-chain/*", guarded { request throws(ParameterError) in
            try redirectChain(request, counters: counters)
        })
        core.addRoute("/fault/truncated-gzip", guarded(truncatedGzip))
        core.addRoute("/fault/corrupt-gzip", guarded(corruptGzip))
        core.addRoute("/fault/truncated-deflate", guarded(truncatedDeflate))
        core.addRoute("/fault/large", guarded(large))
        core.addRoute("/fault/deflate-bomb", guarded(deflateBomb))
    }

    /// A response replaced by `bytes` and a close (or reset).
    static func rawFault(_ bytes: Data, reset: Bool) -> SandboxResponse {
        var response = SandboxResponse()
        response.wireFault = .raw(bytes, reset: reset)
        return response
    }

    static func closeMidBody(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let length = try integer(request, "length", default: 1000, in: 1...maximumGeneratedBytes)
        let sent = try integer(request, "sent", default: length / 2, in: 0...(length - 1))
        var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: .pattern(count: length))
        response.dropAfter = sent
        return response
    }

    static func closeMidChunked(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let sent = try integer(request, "sent", default: 500, in: 0...maximumGeneratedBytes)
        let chunk = Int(try integer(request, "chunk", default: 100, in: 1...Int64(ResponseWriter.pieceSize)))
        var response = SandboxResponse(
            headers: ["Content-Type": "application/octet-stream"], body: .pattern(count: sent + 1),
            transferEncoding: .chunked(chunkSize: chunk))
        response.dropAfter = sent
        return response
    }

    /// The complete response `/fault/reset` cuts: 200 with a 100-byte pattern body.
    static var resetVictim: Data {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(resetBodySize)\r\n\r\n"
        return Data(head.utf8) + SandboxBody.expectedPattern(count: Int(resetBodySize))
    }

    static func resetFault(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let victim = resetVictim
        let sent = Int(try integer(request, "sent", default: 0, in: 0...Int64(victim.count - 1)))
        return rawFault(victim.prefix(sent), reset: true)
    }

    static func stall(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        var response = SandboxResponse()
        response.wireFault = .stall(try seconds(request, "seconds", default: 10))
        return response
    }

    static func slowBody(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try integer(request, "n", default: 20, in: 0...maximumDripCount)
        let interval = try integer(request, "interval_ms", default: 10, in: 0...Int64(maximumWait * 1000))
        var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: .pattern(count: count))
        response.dripInterval = Double(interval) / 1000
        return response
    }

    static func retryAfter(_ request: SandboxRequest, counters: FlakyCounters) throws(ParameterError) -> SandboxResponse {
        let failures = try integer(request, "n", default: 1, in: 0...maximumFlakyFailures)
        let seconds = try integer(request, "seconds", default: 1, in: 0...86_400)
        let attempt = counters.record(request.queryValue("key") ?? "")
        if attempt > failures { return .text("ok after \(failures) failures") }
        var response = SandboxResponse.text("unavailable \(attempt)", status: 503)
        response.headers.add("Retry-After", String(seconds))
        return response
    }

    /// A redirect with `code` (302 by default) to `path`, keeping the request's query.
    static func redirect(_ request: SandboxRequest, to path: String) throws(ParameterError) -> SandboxResponse {
        let code = try integer(request, "code", default: 302, in: 100...599)
        guard [301, 302, 303, 307, 308].contains(code) else {
            throw ParameterError("code must be one of 301, 302, 303, 307, 308")
        }
        let location = request.rawQuery.isEmpty ? path : path + "?" + request.rawQuery
        var response = SandboxResponse.text("redirecting to \(location)\n", status: Int(code))
        response.headers.add("Location", location)
        return response
    }

    static func redirectLoop(_ request: SandboxRequest, counters: FlakyCounters) throws(ParameterError) -> SandboxResponse {
        let next: String
        switch ServerCore.normalize(request.path) {
        case "/fault/redirect-loop/a": next = "/fault/redirect-loop/b"
        case "/fault/redirect-loop/b": next = "/fault/redirect-loop/a"
        default: throw ParameterError("use /fault/redirect-loop/a or /fault/redirect-loop/b")
        }
        let response = try redirect(request, to: next)
        _ = counters.record(request.queryValue("key") ?? "")
        return response
    }

    static func redirectChain(_ request: SandboxRequest, counters: FlakyCounters) throws(ParameterError) -> SandboxResponse {
        let remaining = try pathNumber(request, after: "/fault/redirect-chain", in: 0...maximumRedirectChain)
        let response = remaining == 0 ? .text("end of chain") : try redirect(request, to: "/fault/redirect-chain/\(remaining - 1)")
        _ = counters.record(request.queryValue("key") ?? "")
        return response
    }

    static func truncatedGzip(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        try truncated(Gzip.stored(try pattern(request)), encoding: "gzip", request)
    }

    static func corruptGzip(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        var gzip = Gzip.stored(try pattern(request))
        switch request.queryValue("part") ?? "crc" {
        case "crc": gzip[gzip.count - 8] ^= 0xFF
        case "size": gzip[gzip.count - 4] ^= 0xFF
        // NLEN, which must be LEN's complement, of the block after the 10-byte header.
        case "block": gzip[Gzip.headerSize + 3] ^= 0xFF
        default: throw ParameterError("part must be crc, size or block")
        }
        return encoded(gzip, encoding: "gzip")
    }

    static func truncatedDeflate(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let bytes = try pattern(request)
        return try truncated(try flag(request, "raw") ? Gzip.storedBlocks(bytes) : Gzip.zlib(bytes), encoding: "deflate", request)
    }

    /// The `n` pattern bytes (4096 by default) that the encoded-body faults encode.
    private static func pattern(_ request: SandboxRequest) throws(ParameterError) -> Data {
        SandboxBody.expectedPattern(count: Int(try integer(request, "n", default: 4096, in: 0...(16 << 20))))
    }

    /// `body` minus its last `cut` bytes (half by default), as ``encoded(_:encoding:)`` serves it.
    private static func truncated(_ body: Data, encoding: String, _ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let cut = Int(try integer(request, "cut", default: Int64(body.count / 2), in: 0...Int64(body.count)))
        return encoded(body.prefix(body.count - cut), encoding: encoding)
    }

    /// `body`, `application/octet-stream`, with `Content-Encoding: encoding`.
    private static func encoded(_ body: Data, encoding: String) -> SandboxResponse {
        var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: .data(body))
        response.headers.add("Content-Encoding", encoding)
        return response
    }

    static func deflateBomb(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try integer(request, "n", default: 1 << 30, in: 1...maximumGeneratedBytes)
        return encoded(Gzip.zlibZeros(count: count), encoding: "deflate")
    }

    static func large(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let count = try integer(request, "n", default: 1 << 20, in: 0...maximumGeneratedBytes)
        var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: .pattern(count: count))
        if try flag(request, "chunked") {
            response.transferEncoding = .chunked(chunkSize: try chunkSize(request))
        }
        return response
    }
}

/// Builds gzip streams (RFC 1952) and zlib streams (RFC 1950) without compressing: the deflate data
/// is stored blocks.
package enum Gzip {
    /// The size of the gzip header ``stored(_:)`` writes.
    static let headerSize = 10

    /// `data` as a complete gzip member: header, stored deflate blocks, CRC-32 and size.
    static func stored(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var output = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        output.append(storedBlocks(data))
        output.append(contentsOf: littleEndian(crc32(bytes)))
        output.append(contentsOf: littleEndian(UInt32(truncatingIfNeeded: bytes.count)))
        return output
    }

    /// `data` as a zlib stream: header (deflate, 32 KiB window, no dictionary), stored deflate
    /// blocks, Adler-32 big-endian.
    static func zlib(_ data: Data) -> Data {
        var output = Data([0x78, 0x01])
        output.append(storedBlocks(data))
        output.append(contentsOf: withUnsafeBytes(of: adler32([UInt8](data)).bigEndian) { Array($0) })
        return output
    }

    /// `count` zero bytes as a zlib stream that is compressed: one fixed-Huffman block of a literal
    /// zero and copies of 258 bytes at distance 1 (13 bits each), so about 159 to 1. The
    /// compression bomb of the memory tests; its Adler-32 is worked out, not summed.
    package static func zlibZeros(count: Int64) -> Data {
        var bits = BitWriter()
        bits.write(0b011, count: 3)                   // BFINAL 1, BTYPE 01 (fixed Huffman)
        bits.writeCode(0b0011_0000, length: 8)        // literal 0
        var left = count - 1
        while left >= 258 {
            bits.writeCode(0b1100_0101, length: 8)    // length 258: symbol 285
            bits.writeCode(0, length: 5)              // distance 1: code 0
            left -= 258
        }
        while left > 0 {
            bits.writeCode(0b0011_0000, length: 8)
            left -= 1
        }
        bits.writeCode(0, length: 7)                  // end of block: symbol 256
        var output = Data([0x78, 0x01])
        output.append(contentsOf: bits.finished())
        // Adler-32 of zeros: A stays 1, B adds A once a byte.
        let adler = UInt32(count % 65_521) << 16 | 1
        output.append(contentsOf: withUnsafeBytes(of: adler.bigEndian) { Array($0) })
        return output
    }

    /// Writes deflate's bit stream: values least significant bit first, Huffman codes most
    /// significant bit first (RFC 1951 §3.1.1).
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            current |= value << used
            used += count
            while used >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: current))
                current >>= 8
                used -= 8
            }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {
            var reversed: UInt32 = 0
            for bit in 0..<length where code & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
            write(reversed, count: length)
        }

        mutating func finished() -> [UInt8] {
            if used > 0 { bytes.append(UInt8(truncatingIfNeeded: current)) }
            return bytes
        }
    }

    /// `data` as raw deflate: stored blocks of at most 65,535 bytes, the last one final.
    static func storedBlocks(_ data: Data) -> Data {
        var output = Data()
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let length = min(0xFFFF, bytes.count - offset)
            let final: UInt8 = offset + length == bytes.count ? 1 : 0
            output.append(final)
            output.append(contentsOf: littleEndian(UInt16(length)))
            output.append(contentsOf: littleEndian(~UInt16(length)))
            output.append(contentsOf: bytes[offset..<(offset + length)])
            offset += length
        } while offset < bytes.count
        return output
    }

    /// The Adler-32 check value zlib uses.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// The CRC-32 (IEEE 802.3, reflected) gzip uses.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}
