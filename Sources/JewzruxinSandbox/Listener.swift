import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the listening socket and runs the accept loop.
enum Listener {
    /// The `listen()` backlog: enough for bursts of many simultaneous connects.
    static let backlog: Int32 = 512

    /// Resolves `host`, then binds and listens on the first address that accepts it.
    ///
    /// - Returns: the non-blocking listening descriptor and the port actually bound.
    static func open(host: String, port: UInt16) throws(SandboxError) -> (fd: Int32, port: UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let message = gai_strerror(status).map { String(cString: $0) } ?? "unknown error"
            throw .addressResolutionFailed(host: host, code: status, message: message)
        }
        defer { freeaddrinfo(first) }

        var failure = SandboxError.addressResolutionFailed(host: host, code: 0, message: "no usable address")
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else {
                failure = .socketCreationFailed(errno: Platform.lastError)
                continue
            }
            Platform.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
                failure = .bindFailed(host: host, port: port, errno: Platform.lastError)
                Platform.closeDescriptor(fd)
                continue
            }
            guard listen(fd, backlog) == 0, Platform.prepareDescriptor(fd), let bound = boundPort(of: fd) else {
                failure = .listenFailed(errno: Platform.lastError)
                Platform.closeDescriptor(fd)
                continue
            }
            return (fd, bound)
        }
        throw failure
    }

    /// The local port of a bound socket, via `getsockname()`.
    private static func boundPort(of fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }

    /// Accepts connections until the sandbox stops, serving each on its own thread.
    static func acceptLoop(listenFD: Int32, core: ServerCore) {
        acceptConnections(on: listenFD, until: core.stopSignal) { fd in
            let number = core.connectionOpened()
            core.threads.spawn(name: "JewzruxinSandbox connection") {
                Connection.serve(fd: fd, core: core, number: number)
                core.connectionClosed(number)
            }
        }
    }

    /// The accept loop of every server of the module: accepts connections on `listenFD` until
    /// `stop` fires, and hands each one to `accepted`, non-blocking, close-on-exec and without
    /// Nagle's delay. `accepted` runs on the calling thread and owns the descriptor: it starts the
    /// thread that serves it.
    static func acceptConnections(on listenFD: Int32, until stop: StopSignal, _ accepted: (Int32) -> Void) {
        while stop.wait(for: listenFD, events: Int16(POLLIN)) != .stopped {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else {
                let code = Platform.lastError
                // Out of descriptors or memory: back off briefly instead of spinning.
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    guard stop.sleep(0.01) else { return }
                }
                continue
            }
            guard Platform.prepareDescriptor(fd) else {
                Platform.closeDescriptor(fd)
                continue
            }
            Platform.configureConnection(fd)
            accepted(fd)
        }
    }
}
