import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why reading or answering a request could not go on.
enum RequestError: Error, Equatable {
    /// The sandbox is stopping.
    case stopped
    /// The peer closed the connection or a socket call failed.
    case disconnected
    /// The request is unacceptable; answer with `status` and close.
    case rejected(status: Int, message: String)
}

/// Buffered, stop-aware I/O on one connected, non-blocking socket.
///
/// Owned by a single connection thread. Every wait goes through
/// ``StopSignal/wait(for:events:timeout:)`` so that stopping the sandbox interrupts it.
final class SocketStream {
    let fd: Int32
    let stop: StopSignal
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    init(fd: Int32, stop: StopSignal) {
        self.fd = fd
        self.stop = stop
    }

    /// Bytes received but not yet consumed.
    var bufferedCount: Int { buffer.count - readIndex }

    /// Receives more bytes into the buffer.
    ///
    /// - Returns: `false` at end of stream.
    func fill() throws(RequestError) -> Bool {
        if readIndex > 0, readIndex == buffer.count || readIndex >= 64 << 10 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        while true {
            let received = scratch.withUnsafeMutableBytes { Platform.receiveBytes(fd, $0) }
            if received > 0 {
                buffer.append(contentsOf: scratch[0..<received])
                return true
            }
            if received == 0 { return false }
            let code = Platform.lastError
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .disconnected }
            if stop.wait(for: fd, events: Int16(POLLIN)) == .stopped { throw .stopped }
        }
    }

    /// Reads one line terminated by LF (a preceding CR is dropped).
    ///
    /// - Parameter limit: the most bytes the line, including its terminator, may take.
    /// - Returns: the line without its terminator, or `nil` if the stream ended before
    ///   any byte of the line arrived.
    /// - Throws: ``RequestError/rejected(status:message:)`` with `tooLong` when the line
    ///   exceeds `limit`; ``RequestError/disconnected`` on EOF inside the line.
    func readLine(limit: Int, tooLong: String) throws(RequestError) -> [UInt8]? {
        var scanned = 0
        while true {
            if let newline = buffer[(readIndex + scanned)...].firstIndex(of: 0x0A) {
                let length = newline - readIndex + 1
                guard length <= limit else { throw .rejected(status: 400, message: tooLong) }
                var line = Array(buffer[readIndex..<newline])
                if line.last == 0x0D { line.removeLast() }
                readIndex = newline + 1
                return line
            }
            scanned = bufferedCount
            guard scanned < limit else { throw .rejected(status: 400, message: tooLong) }
            guard try fill() else {
                if bufferedCount == 0 { return nil }
                throw .disconnected
            }
        }
    }

    /// Reads exactly `count` bytes and appends them to `data`.
    func read(exactly count: Int, into data: inout Data) throws(RequestError) {
        var remaining = count
        while remaining > 0 {
            if bufferedCount == 0 {
                guard try fill() else { throw .disconnected }
            }
            let take = min(remaining, bufferedCount)
            data.append(contentsOf: buffer[readIndex..<(readIndex + take)])
            readIndex += take
            remaining -= take
        }
    }

    /// Waits `seconds` before a delayed response; ends early with ``RequestError/stopped`` when the
    /// sandbox stops and, on Linux, with ``RequestError/disconnected`` when the client shuts its
    /// side of the connection (or the socket fails): a client that gave up (a cancel, a timeout)
    /// holds no thread of the sandbox for the rest of the delay.
    func pause(_ seconds: Double) throws(RequestError) {
        #if os(Linux)
        // POLLRDHUP (0x2000, <poll.h> with _GNU_SOURCE): the peer closed or shut down writing.
        // HUP and ERR come without asking.
        switch stop.wait(for: fd, events: 0x2000, timeout: seconds) {
        case .stopped: throw .stopped
        case .timedOut: return
        case .ready: throw .disconnected
        }
        #else
        guard stop.sleep(seconds) else { throw .stopped }
        #endif
    }

    /// Sends all of `data`.
    func write(_ data: Data) throws(RequestError) {
        var sent = 0
        while sent < data.count {
            let result = data.withUnsafeBytes { raw in
                Platform.sendBytes(fd, UnsafeRawBufferPointer(rebasing: raw[sent...]))
            }
            if result > 0 {
                sent += result
                continue
            }
            let code = Platform.lastError
            if result < 0, code == EINTR { continue }
            guard result < 0, code == EAGAIN || code == EWOULDBLOCK else { throw .disconnected }
            if stop.wait(for: fd, events: Int16(POLLOUT)) == .stopped { throw .stopped }
        }
    }

    /// Closes gracefully: half-closes, reads and discards what the peer still sends
    /// (for up to `timeout` seconds or `limit` bytes) so the final response is not
    /// destroyed by a reset, then closes.
    func lingeringClose(timeout: Double = 1, limit: Int = 1 << 20) {
        Platform.shutdownWrite(fd)
        let deadline = MonotonicTime.now(plus: timeout)
        var discarded = 0
        readLoop: while discarded < limit {
            let received = scratch.withUnsafeMutableBytes { Platform.receiveBytes(fd, $0) }
            if received > 0 {
                discarded += received
                continue
            }
            if received == 0 { break }
            let code = Platform.lastError
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { break }
            switch stop.wait(for: fd, events: Int16(POLLIN), until: deadline) {
            case .ready: continue readLoop
            case .stopped, .timedOut: break readLoop
            }
        }
        Platform.closeDescriptor(fd)
    }

    /// Closes at once: shuts down both directions and closes (used by `dropAfter`).
    func abruptClose() {
        Platform.shutdownBoth(fd)
        Platform.closeDescriptor(fd)
    }
}
