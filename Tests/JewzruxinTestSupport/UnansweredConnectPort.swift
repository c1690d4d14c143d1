#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port where a connect is never answered, for as long as this value lives: the way to
/// make a connect time out without leaving the machine.
///
/// The socket listens on `127.0.0.1` with a backlog of zero and never accepts; one connection of
/// its own fills the queue, and the system then drops every further `SYN` unanswered, so a client's
/// connect waits until its own timeout.
public final class UnansweredConnectPort: @unchecked Sendable {
    /// The port number.
    public let port: Int
    private let listener: Int32
    private let filler: Int32

    /// Listens and fills the backlog. Throws `RefusingPortError` when the system refuses.
    public init() throws {
        let listener = try Self.socket()
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && getsockname(listener, socketAddress, &length) == 0
                    && listen(listener, 0) == 0
            }
        }
        guard listening else {
            let code = errno
            close(listener)
            throw RefusingPortError(call: "listen", code: code)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let filler: Int32
        do {
            filler = try Self.socket()
        } catch {
            close(listener)
            throw error
        }
        self.filler = filler
        let connected = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
        }
        guard connected else {
            let code = errno
            close(filler)
            close(listener)
            throw RefusingPortError(call: "connect", code: code)
        }
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }

    private static func socket() throws -> Int32 {
        #if canImport(Darwin)
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #elseif canImport(Musl)
        let descriptor = Musl.socket(AF_INET, Int32(SOCK_STREAM), 0)
        #else
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw RefusingPortError(call: "socket", code: errno) }
        return descriptor
    }
}
