import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens outgoing connections for the servers that relay (``SOCKSProxy``, ``HTTPConnectProxy``): the other half of
/// ``Listener``, with the same descriptor settings and every wait ended by the stop signal.
enum Dialer {
    /// Why no connection could be opened.
    enum Failure: Error, Equatable {
        /// The name did not resolve: the `getaddrinfo` code.
        case unresolved(Int32)
        /// Every address refused or failed: the `errno` of the last one (`ETIMEDOUT` when the
        /// time ran out).
        case failed(Int32)
        /// The server is stopping.
        case stopped
    }

    /// Connects to the target a proxy's client named: an address, or a name that `hosts` maps to an
    /// address (matched without regard to case; no other name resolves, so no resolver is asked),
    /// or, without `hosts`, that the system resolves.
    static func connect(target host: String, isAddress: Bool, port: Int, hosts: [String: String]?, stop: StopSignal) -> Result<Int32, Failure> {
        let mapped = isAddress ? nil : hosts?.first { $0.key.lowercased() == host.lowercased() }?.value
        return connect(host: mapped ?? host, port: port, numeric: isAddress || hosts != nil, stop: stop)
    }

    /// Connects to `host`:`port`, trying each address `host` resolves to in turn.
    ///
    /// - Parameters:
    ///   - host: A numeric address or a name.
    ///   - port: The TCP port.
    ///   - numeric: Whether `host` must be a numeric address: no resolver is asked.
    ///   - stop: The server's stop signal, which ends the wait for a connection.
    ///   - timeout: The longest wait for each address, in seconds.
    /// - Returns: A connected, non-blocking, close-on-exec descriptor.
    static func connect(host: String, port: Int, numeric: Bool, stop: StopSignal, timeout: Double = 10) -> Result<Int32, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.streamSocketType
        hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { return .failure(.unresolved(status)) }
        defer { freeaddrinfo(first) }

        var failure = Failure.failed(ECONNREFUSED)
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else {
                failure = .failed(Platform.lastError)
                continue
            }
            guard Platform.prepareDescriptor(fd) else {
                failure = .failed(Platform.lastError)
                Platform.closeDescriptor(fd)
                continue
            }
            switch finishConnect(fd, to: info.ai_addr, length: info.ai_addrlen, stop: stop, timeout: timeout) {
            case nil:
                Platform.configureConnection(fd)
                return .success(fd)
            case .stopped?:
                Platform.closeDescriptor(fd)
                return .failure(.stopped)
            case let other?:
                failure = other
                Platform.closeDescriptor(fd)
            }
        }
        return .failure(failure)
    }

    /// Connects the non-blocking `fd`; `nil` once connected.
    private static func finishConnect(
        _ fd: Int32, to address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, stop: StopSignal, timeout: Double
    ) -> Failure? {
        guard let address else { return .failed(EINVAL) }
        if Platform.startConnect(fd, to: address, length: length) == 0 { return nil }
        let code = Platform.lastError
        guard code == EINPROGRESS || code == EINTR else { return .failed(code) }
        switch stop.wait(for: fd, events: Int16(POLLOUT), timeout: timeout) {
        case .stopped: return .stopped
        case .timedOut: return .failed(ETIMEDOUT)
        case .ready: break
        }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return .failed(Platform.lastError) }
        return error == 0 ? nil : .failed(error)
    }
}
