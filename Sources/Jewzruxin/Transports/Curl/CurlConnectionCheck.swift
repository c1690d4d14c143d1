import CJewzruxinCurl
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the connection libcurl keeps after a response holds bytes beyond that response, and the
/// end of such a connection.
///
/// libcurl reads a socket in large pieces and, after a response with no body (to HEAD, a 204, a
/// 304) or a body of known length, drops the bytes of the piece that came after it ("Excess found")
/// and keeps the connection. A server that sent more than it framed has lost track of the
/// connection: the next request sent on it would get the rest as its answer, or wait for one that
/// never comes. The native transport closes such a connection; this does the same for libcurl's, in
/// plain HTTP (the bytes of TLS are not the response's), once the transfer has ended:
///
/// - bytes waiting on the socket after the response mean the server sent more;
/// - on Linux, the bytes read from the socket (`TCP_INFO`'s bytes received, minus those waiting),
///   less what was read before the transfer (0 on a new connection, else noted at the end of the
///   previous one, ``Traffic``), must be the response's head and body when both are known: more
///   means libcurl read stray bytes and dropped them. That count is trusted only when the bytes
///   sent since (`TCP_INFO`'s bytes acknowledged) are this transfer's request alone: otherwise
///   other transfers used the connection in between, whose checks could not run.
///
/// Such a connection is shut down (`shutdown(2)`, both ways; libcurl still owns and closes the
/// socket), so libcurl's check before reusing it finds it closed and opens another.
///
/// libcurl may have handed the connection to another transfer already, within the call in which
/// this one ended (one waiting past the per-host limit, or one just added): its request may be out
/// and its response arriving, bytes that are not stray. Shutting the connection then would lose
/// that response, and libcurl would send the request again on a new connection, whatever its
/// method. A connection libcurl watches for a transfer is therefore left alone, and the count
/// before the next transfer on it forgotten; stray bytes on it then reach that transfer, as they
/// would have without the check.
enum CurlConnectionCheck {
    /// The bytes read from a socket and sent on it (acknowledged) so far.
    struct Traffic {
        var read: UInt64
        var sent: UInt64
        /// A new connection's: the bytes acknowledged count its SYN.
        static let fresh = Traffic(read: 0, sent: 1)
    }

    /// What was read from `socket` and sent on it so far, given the bytes `waiting` to be read on
    /// it; `nil` when the system doesn't say.
    static func traffic(of socket: Int32, waiting: Int) -> Traffic? {
        #if os(Linux)
        // struct tcp_info (linux/tcp.h, Linux 4.1): tcpi_bytes_acked and tcpi_bytes_received, u64s
        // at offsets 120 and 128. On the stack: this runs once per transfer.
        let counts = withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { info -> (acked: UInt64, received: UInt64)? in
            var length = socklen_t(info.count)
            guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, info.baseAddress, &length) == 0, length >= 136 else { return nil }
            let raw = UnsafeRawBufferPointer(info)
            return (raw.loadUnaligned(fromByteOffset: 120, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 128, as: UInt64.self))
        }
        guard let counts, counts.received >= UInt64(waiting) else { return nil }
        return Traffic(read: counts.received - UInt64(waiting), sent: counts.acked)
        #else
        return nil
        #endif
    }

    /// The bytes waiting to be read on `socket`; `nil` when the system doesn't say.
    static func pendingBytes(of socket: Int32) -> Int? {
        var count: Int32 = 0
        let result = withUnsafeMutablePointer(to: &count) { ioctl(socket, UInt(FIONREAD), $0) }
        guard result == 0 else { return nil }
        return Int(count)
    }

    /// Checks the connection `easy` kept after a transfer that ended well, and shuts it down when the
    /// server sent more than its response.
    ///
    /// - Parameters:
    ///   - easy: The ended transfer's handle, not reset yet.
    ///   - responseBytes: The bytes of the response on the wire (head and body), when known.
    ///   - loop: The transfer's loop, whose drive the caller holds.
    static func inspect(_ easy: UnsafeMutableRawPointer, responseBytes: UInt64?, loop: CurlLoop) {
        var socket: Int32 = -1
        guard jz_easy_getinfo_socket(easy, Int32(JZ_INFO_ACTIVESOCKET), &socket) == JZ_E_OK, socket >= 0 else { return }
        guard !loop.isInUse(socket) else {
            loop.setTraffic(nil, of: socket)
            return
        }
        // libcurl names the connection the handle last left in its cache: when this transfer's own
        // was closed at its end, that is the one of the handle's previous transfer, which others
        // may have used since. A local port that differs shows it.
        var localPort = 0
        if jz_easy_getinfo_long(easy, Int32(JZ_INFO_LOCAL_PORT), &localPort) == JZ_E_OK, localPort > 0,
           let bound = SocketAddress({ getsockname(socket, $0, $1) })?.port, bound != localPort {
            return
        }
        var connects = 0
        _ = jz_easy_getinfo_long(easy, Int32(JZ_INFO_NUM_CONNECTS), &connects)
        let waiting = pendingBytes(of: socket)
        let now = waiting.flatMap { traffic(of: socket, waiting: $0) }
        var stray = (waiting ?? 0) > 0
        if !stray, let now, let responseBytes, let before = connects > 0 ? Traffic.fresh : loop.traffic(of: socket),
           now.read >= before.read, now.sent >= before.sent, sentOnlyItsRequest(easy, bytes: now.sent - before.sent) {
            stray = now.read - before.read > responseBytes
        }
        if stray {
            _ = shutdown(socket, Int32(SHUT_RDWR))
            loop.setTraffic(nil, of: socket)
        } else {
            loop.setTraffic(now, of: socket)
        }
    }

    /// Whether `bytes`, sent on the connection since its last transfer ended, are this transfer's
    /// request: its heads, with or without its body (libcurl counts a body sent with the head in
    /// the head's size).
    private static func sentOnlyItsRequest(_ easy: UnsafeMutableRawPointer, bytes: UInt64) -> Bool {
        var heads = 0
        guard jz_easy_getinfo_long(easy, Int32(JZ_INFO_REQUEST_SIZE), &heads) == JZ_E_OK, heads > 0 else { return false }
        if bytes == UInt64(heads) { return true }
        var body: Int64 = 0
        guard jz_easy_getinfo_offset(easy, Int32(JZ_INFO_SIZE_UPLOAD_T), &body) == JZ_E_OK, body > 0 else { return false }
        return bytes == UInt64(heads) + UInt64(body)
    }
}
