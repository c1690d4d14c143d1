// Thin, platform-neutral wrappers over the POSIX socket calls the sandbox uses.
//
// Every socket the sandbox owns is non-blocking and close-on-exec; blocking is done
// exclusively in `poll()` together with the stop signal's waker (see `StopSignal`), so that
// `Sandbox.stop()` can interrupt any wait promptly.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum Platform {
    #if canImport(Darwin)
    static let streamSocketType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #else
    static let streamSocketType = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// The calling thread's `errno`.
    static var lastError: Int32 { errno }

    /// A human-readable description of an `errno` value.
    static func describe(errorCode: Int32) -> String {
        guard let message = strerror(errorCode) else { return "error \(errorCode)" }
        return String(cString: message)
    }

    static func closeDescriptor(_ fd: Int32) {
        guard fd >= 0 else { return }
        _ = close(fd)
    }

    /// Marks `fd` non-blocking and close-on-exec.
    @discardableResult
    static func prepareDescriptor(_ fd: Int32) -> Bool {
        let statusFlags = fcntl(fd, F_GETFL, 0)
        guard statusFlags >= 0, fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK) == 0 else { return false }
        let descriptorFlags = fcntl(fd, F_GETFD, 0)
        guard descriptorFlags >= 0, fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0 else { return false }
        return true
    }

    /// Sets an integer socket option, ignoring failures (all uses are best-effort tuning).
    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Applies the per-connection options: no Nagle delay, and no SIGPIPE where the
    /// platform needs a socket option for that (Linux uses `MSG_NOSIGNAL` per send).
    static func configureConnection(_ fd: Int32) {
        setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        #if canImport(Darwin)
        setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1)
        #endif
    }

    /// Starts connecting the non-blocking `fd`: 0 when connected at once, otherwise -1 with
    /// `EINPROGRESS` while the connection is under way (or the error).
    static func startConnect(_ fd: Int32, to address: UnsafePointer<sockaddr>, length: socklen_t) -> Int32 {
        connect(fd, address, length)
    }

    static func sendBytes(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return send(fd, base, buffer.count, sendFlags)
    }

    static func receiveBytes(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return recv(fd, base, buffer.count, 0)
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }
}
