#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses every connection, for as long as this value lives.
///
/// The socket is bound to `127.0.0.1` on a port the system picks, and never listens: a connect
/// to it is answered with a reset (`ECONNREFUSED`). Holding the binding is the point — a port
/// found by starting a server and stopping it can be handed straight to the next test's
/// server, and then the "refused" request reaches a live one.
public final class RefusingPort: @unchecked Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Int32

    /// Binds the socket. Throws `RefusingPortError` when the system refuses.
    public init() throws {
        (descriptor, port) = try LoopbackSocket.bound()
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:<port><path>` (or another scheme).
    public func url(_ path: String = "/", scheme: String = "http") -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }
}

/// A TCP socket of IPv4's loopback, for the ports of the tests.
enum LoopbackSocket {
    /// A new socket bound to `127.0.0.1` on a port the system picks, and that port.
    static func bound() throws -> (descriptor: Int32, port: Int) {
        let descriptor = try make()
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw RefusingPortError(call: "bind", code: code)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A new TCP socket.
    static func make() throws -> Int32 {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #elseif canImport(Musl)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM), 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw RefusingPortError(call: "socket", code: errno) }
        return descriptor
    }

    /// `127.0.0.1:port`.
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A socket call that failed while reserving a `RefusingPort`.
public struct RefusingPortError: Error, CustomStringConvertible {
    /// The call that failed.
    public let call: String
    /// Its `errno`.
    public let code: Int32
    public var description: String { "\(call) failed with errno \(code)" }
}
