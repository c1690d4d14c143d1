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
///   previous one by ``CurlLoop/setConsumedBytes(_:of:)``), must be the response's head and body
///   when both are known: more means libcurl read stray bytes and dropped them.
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
    /// The bytes the application read from `socket` so far; `nil` when the system doesn't say.
    static func consumedBytes(of socket: Int32) -> UInt64? {
        #if os(Linux)
        // struct tcp_info (linux/tcp.h): tcpi_bytes_received, a u64 at offset 128 (Linux 4.1).
        // On the stack: this runs once per transfer.
        let received = withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { info -> UInt64? in
            var length = socklen_t(info.count)
            guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, info.baseAddress, &length) == 0, length >= 136 else { return nil }
            return UnsafeRawBufferPointer(info).loadUnaligned(fromByteOffset: 128, as: UInt64.self)
        }
        guard let received, let waiting = pendingBytes(of: socket) else { return nil }
        return received >= UInt64(waiting) ? received - UInt64(waiting) : nil
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
            loop.setConsumedBytes(nil, of: socket)
            return
        }
        var connects = 0
        _ = jz_easy_getinfo_long(easy, Int32(JZ_INFO_NUM_CONNECTS), &connects)
        let consumed = consumedBytes(of: socket)
        var stray = (pendingBytes(of: socket) ?? 0) > 0
        if !stray, let consumed, let responseBytes, let before = connects > 0 ? 0 : loop.consumedBytes(of: socket) {
            stray = consumed > before && consumed - before > responseBytes
        }
        if stray {
            _ = shutdown(socket, Int32(SHUT_RDWR))
            loop.setConsumedBytes(nil, of: socket)
        } else {
            loop.setConsumedBytes(consumed, of: socket)
        }
    }
}
