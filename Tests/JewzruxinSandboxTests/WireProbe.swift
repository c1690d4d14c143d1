import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP client that tells how a connection ended: an orderly close (EOF), a reset, or
/// nothing within the time allowed. ``RawHTTPClient`` folds a reset into EOF; fault tests need
/// the difference.
final class WireProbe: @unchecked Sendable {
    /// How reading ended.
    enum Ending: Equatable {
        /// The peer closed in order (FIN).
        case eof
        /// The peer reset the connection (RST).
        case reset
        /// Neither happened within the time allowed.
        case timedOut
    }

    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw RawClientError(description: "socket() failed", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            probeClose(fd)
            fd = -1
            throw RawClientError(description: "connect() failed: errno \(code)", code: code)
        }
    }

    deinit { close() }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    func close() {
        if fd >= 0 { probeClose(fd) }
        fd = -1
    }

    func send(_ text: String) throws {
        let data = Data(text.utf8)
        let sent = data.withUnsafeBytes { probeSend(fd, $0.baseAddress, $0.count, Self.sendFlags) }
        guard sent == data.count else { throw RawClientError(description: "send() failed", code: errno) }
    }

    /// Sends a minimal GET request for `target`.
    func get(_ target: String) throws {
        try send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    }

    /// Reads everything until the connection ends or `timeout` seconds pass.
    func readAll(timeout: Double = 10) -> (data: Data, ending: Ending) {
        var data = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return (data, .timedOut) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                data.append(contentsOf: chunk[0..<received])
            } else if received == 0 {
                return (data, .eof)
            } else if errno == ECONNRESET {
                return (data, .reset)
            } else if errno != EINTR && errno != EAGAIN {
                return (data, .reset)
            }
        }
    }

    /// Whether anything (bytes, EOF or a reset) arrives within `timeout` seconds.
    func hasInput(timeout: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(timeout * 1000)) > 0
    }
}

private func probeClose(_ fd: Int32) {
    _ = close(fd)
}

private func probeSend(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(fd, pointer, count, flags)
}
