import Foundation
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a socket operation stopped.
enum SocketFailure: Error, Equatable {
    /// The wait was interrupted by the transfer's `Waker`.
    case woken
    case timedOut
    /// The peer closed or reset the connection.
    case closed
    case system(Int32)
}

/// A non-blocking TCP socket used with blocking semantics: every wait is a `poll` bounded by a
/// deadline and interruptible by a ``Waker``.
final class NativeSocket: @unchecked Sendable {
    // `isClosed` is written by the thread of the worker that owns the connection; a submitting thread
    // uses the socket only while HostPool's lock has it lent out for a handoff, which orders the two.
    let descriptor: Int32
    private(set) var isClosed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = systemClose(descriptor)
    }

    // MARK: Connecting

    /// Resolves `origin` and connects to the first address that answers.
    ///
    /// - Parameters:
    ///   - url: The request's URL, which the errors name (a request made for `origin` has one).
    ///   - resolved: Set to the time the name was resolved, for the attempt's metrics.
    /// - Throws: `URLError(.cannotFindHost)`, `.cannotConnectToHost`, `.timedOut` (marked
    ///   ``HTTPError/requestNotSentKey``), `.cancelled`.
    static func connect(
        to origin: Origin, for url: URL?, deadline: MonotonicTime, waker: Waker, resolved: inout MonotonicTime
    ) throws -> NativeSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        guard status == 0, let first = list else {
            throw URLError(.cannotFindHost, userInfo: [
                NSLocalizedDescriptionKey: "The host \(origin.host) could not be resolved.", NSURLErrorFailingURLErrorKey: url as Any,
            ])
        }
        defer { freeaddrinfo(first) }
        resolved = .now
        var lastError = URLError(.cannotConnectToHost, userInfo: [
            NSLocalizedDescriptionKey: "Could not connect to \(origin).", NSURLErrorFailingURLErrorKey: url as Any,
        ])
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            do {
                return try connect(info.pointee, deadline: deadline, waker: waker)
            } catch SocketFailure.woken {
                throw URLError(.cancelled)
            } catch SocketFailure.timedOut {
                // Nothing of the request has gone out: any method may be sent again.
                throw URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "Connecting to \(origin) timed out.", HTTPError.requestNotSentKey: true,
                    NSURLErrorFailingURLErrorKey: url as Any,
                ])
            } catch SocketFailure.system(let code) {
                if code == ECONNREFUSED, let url {
                    // Worded as every transport words it.
                    lastError = ConnectionErrors.refused(url)
                } else {
                    lastError = URLError(.cannotConnectToHost, userInfo: [
                        NSLocalizedDescriptionKey: "Could not connect to \(origin): \(describe(code)).", NSURLErrorFailingURLErrorKey: url as Any,
                    ])
                }
            } catch {
                continue
            }
        }
        throw lastError
    }

    private static func connect(_ info: addrinfo, deadline: MonotonicTime, waker: Waker) throws -> NativeSocket {
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { throw SocketFailure.system(errno) }
        let socket = NativeSocket(descriptor: fd)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        if systemConnect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw SocketFailure.system(errno) }
            try socket.wait(for: Int16(POLLOUT), deadline: deadline, waker: waker)
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            guard code == 0 else { throw SocketFailure.system(code) }
        }
        return socket
    }

    // MARK: Waiting, reading, writing

    /// Waits until the socket is ready for `events`, the deadline passes or the waker fires.
    func wait(for events: Int16, deadline: MonotonicTime, waker: Waker) throws(SocketFailure) {
        switch waker.wait(for: descriptor, events: events, until: deadline) {
        case .ready: return
        case .woken: throw .woken
        case .timedOut: throw .timedOut
        case .failed(let code): throw .system(code)
        }
    }

    /// Reads what is available into `buffer`, waiting for something to arrive.
    ///
    /// - Parameter waitingFirst: Wait before the first read, when nothing can have arrived yet
    ///   (saves a `recv` that would fail with `EAGAIN`).
    /// - Returns: The number of bytes read; `0` when the peer closed the connection.
    func read(
        into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicTime, waker: Waker, waitingFirst: Bool = false
    ) throws(SocketFailure) -> Int {
        if waitingFirst { try wait(for: Int16(POLLIN), deadline: deadline, waker: waker) }
        while true {
            guard !waker.isSignalled else { throw .woken }
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), deadline: deadline, waker: waker)
            case EINTR: continue
            case ECONNRESET, EPIPE: throw .closed
            case let code: throw .system(code)
            }
        }
    }

    /// Writes all of `bytes`, waiting for room as needed.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicTime, waker: Waker) throws(SocketFailure) {
        var offset = 0
        while offset < bytes.count {
            guard !waker.isSignalled else { throw .woken }
            offset += try sendWithoutWaiting(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if offset < bytes.count { try wait(for: Int16(POLLOUT), deadline: deadline, waker: waker) }
        }
    }

    /// Sends as much of `bytes` as the socket takes at once, without waiting for room.
    ///
    /// Only the descriptor is used, so another thread may call this while the socket's owner waits
    /// in a `poll` on it.
    /// - Returns: The number of bytes sent: all of them, or fewer when the send buffer is full.
    func sendWithoutWaiting(_ bytes: UnsafeRawBufferPointer) throws(SocketFailure) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let count = send(descriptor, base + offset, bytes.count - offset, Self.sendFlags)
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: return offset
            case EINTR: continue
            case ECONNRESET, EPIPE: throw .closed
            case let code: throw .system(code)
            }
        }
        return offset
    }

    /// Whether a pooled connection is still usable: nothing to read (neither a close nor stray
    /// bytes) and no error pending.
    var isReusable: Bool {
        guard !isClosed else { return false }
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) == 0
    }

    // MARK: Addresses

    /// The two ends of a connection, as ``HTTPTransferMetrics`` names them.
    struct Endpoints: Sendable {
        var remoteAddress: String?
        var remotePort: Int?
        var localAddress: String?
        var localPort: Int?
    }

    /// The peer's address and port (`getpeername`) and ours (`getsockname`), IPv4 or IPv6; a value
    /// the system can't give is `nil`. Two system calls: read once per connection.
    func endpoints() -> Endpoints {
        let remote = SocketAddress { getpeername(descriptor, $0, $1) }
        let local = SocketAddress { getsockname(descriptor, $0, $1) }
        return Endpoints(remoteAddress: remote?.numericHost, remotePort: remote?.port, localAddress: local?.numericHost, localPort: local?.port)
    }

    // MARK: Platform

    #if canImport(Darwin)
    private static let streamSocketType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #else
    private static let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }
}

private func systemClose(_ fd: Int32) -> Int32 {
    close(fd)
}

private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
