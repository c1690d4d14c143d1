import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the raw test client (connect, send, receive, or an unexpected reply).
struct RawClientError: Error, CustomStringConvertible {
    let description: String
    /// The `errno` of the failing call, when there is one.
    var code: Int32 = 0
}

/// A response as read off the wire by ``RawHTTPClient``.
struct RawResponse {
    var status: Int
    var statusLine: String
    var headers: [(name: String, value: String)]
    var body: Data
    /// The sizes of the chunks, in order, when the body was chunked.
    var chunkSizes: [Int] = []

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func values(for name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal blocking HTTP/1.1 client on one TCP connection, for the things URLSession
/// hides: exact bytes sent, connection reuse, malformed requests, early closes.
/// Every receive times out (default 10 s) so a broken server fails a test instead of hanging it.
final class RawHTTPClient {
    private var fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeout: Double = 10) throws {
        fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw RawClientError(description: "socket() failed", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            systemClose(fd)
            fd = -1
            throw RawClientError(description: "connect() failed: errno \(code)", code: code)
        }
        var interval = timeval()
        interval.tv_sec = .init(timeout.rounded(.down))
        interval.tv_usec = .init((timeout - timeout.rounded(.down)) * 1_000_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close()
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    func close() {
        if fd >= 0 { systemClose(fd) }
        fd = -1
    }

    func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    func send(_ data: Data) throws {
        var sent = 0
        while sent < data.count {
            let result = data.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return systemSend(fd, base + sent, raw.count - sent, Self.sendFlags)
            }
            guard result > 0 else { throw RawClientError(description: "send() failed", code: errno) }
            sent += result
        }
    }

    /// Receives more bytes; `false` at end of stream (or connection reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received > 0 {
            buffer.append(contentsOf: chunk[0..<received])
            return true
        }
        if received == 0 || errno == ECONNRESET { return false }
        throw RawClientError(description: "recv() failed (timeout?)", code: errno)
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw RawClientError(description: "connection closed inside a line") }
        }
    }

    /// Exactly `count` bytes, as they come.
    func read(exactly count: Int) throws -> Data {
        while buffer.count < count {
            guard try fill() else {
                throw RawClientError(description: "connection closed after \(buffer.count) of \(count) bytes")
            }
        }
        defer { buffer.removeSubrange(0..<count) }
        return Data(buffer[0..<count])
    }

    /// Reads a status line and header section (skipping `100 Continue` unless asked).
    func readHead(skipContinue: Bool = true) throws -> RawResponse {
        while true {
            let statusLine = try readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw RawClientError(description: "bad status line \(statusLine)")
            }
            var headers: [(name: String, value: String)] = []
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else {
                    throw RawClientError(description: "bad header \(line)")
                }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers.append((String(line[..<colon]), value))
            }
            if status == 100, skipContinue { continue }
            return RawResponse(status: status, statusLine: statusLine, headers: headers, body: Data())
        }
    }

    /// Reads one complete response; `head` marks a response to `HEAD` (no body).
    func readResponse(head: Bool = false) throws -> RawResponse {
        var response = try readHead()
        let noBody = head || (100...199).contains(response.status) || response.status == 204 || response.status == 304
        if noBody { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw RawClientError(description: "bad chunk size \(sizeLine)")
                }
                if size == 0 { break }
                response.chunkSizes.append(size)
                response.body.append(try read(exactly: size))
                guard try readLine().isEmpty else { throw RawClientError(description: "missing CRLF after chunk") }
            }
            while try !readLine().isEmpty {}
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try read(exactly: length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Everything until the peer closes the connection.
    func readToEnd() throws -> Data {
        while try fill() {}
        defer { buffer.removeAll() }
        return Data(buffer)
    }

    /// Whether the peer closes the connection (EOF or reset) within `timeout` seconds;
    /// unread data is discarded.
    func isClosedByPeer(timeout: Double = 5) -> Bool {
        buffer.removeAll()
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            do {
                guard try fill() else { return true }
                buffer.removeAll()
            } catch {
                return false
            }
        }
    }

    /// Whether data or EOF is ready to be read within `timeout` seconds.
    func hasPendingInput(timeout: Double) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(timeout * 1000)) > 0
    }

    /// Sends `request` and reads the response.
    func exchange(_ request: String, head: Bool = false) throws -> RawResponse {
        try send(request)
        return try readResponse(head: head)
    }
}

private func systemSend(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(fd, pointer, count, flags)
}

private func systemClose(_ fd: Int32) {
    _ = close(fd)
}
