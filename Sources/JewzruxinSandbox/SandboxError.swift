#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error thrown when a ``Sandbox`` cannot start.
///
/// Every case carries the `errno` (or resolver code) reported by the operating system,
/// and ``description`` renders it as text, for example
/// `bind to 127.0.0.1:8080 failed: Address already in use (errno 98)`.
public enum SandboxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host string could not be resolved to a local address.
    ///
    /// `code` is the `getaddrinfo` error code and `message` its text.
    case addressResolutionFailed(host: String, code: Int32, message: String)

    /// `socket()` failed.
    case socketCreationFailed(errno: Int32)

    /// `bind()` failed, typically because the port is in use (`EADDRINUSE`) or the
    /// address does not belong to this machine (`EADDRNOTAVAIL`).
    case bindFailed(host: String, port: UInt16, errno: Int32)

    /// `listen()` or `getsockname()` on the bound socket failed.
    case listenFailed(errno: Int32)

    /// The internal wake-up pipe could not be created (usually `EMFILE`).
    case pipeCreationFailed(errno: Int32)

    /// A readable explanation including the system's message for the error code.
    public var description: String {
        switch self {
        case let .addressResolutionFailed(host, code, message):
            return "cannot resolve sandbox host \"\(host)\": \(message) (code \(code))"
        case let .socketCreationFailed(code):
            return "socket() failed: \(Self.text(code))"
        case let .bindFailed(host, port, code):
            return "bind to \(host):\(port) failed: \(Self.text(code))"
        case let .listenFailed(code):
            return "listen() failed: \(Self.text(code))"
        case let .pipeCreationFailed(code):
            return "pipe() failed: \(Self.text(code))"
        }
    }

    /// The operating system's error code carried by the error.
    ///
    /// This is the `errno` value for socket and pipe failures, and the `getaddrinfo`
    /// result code for ``addressResolutionFailed(host:code:message:)`` (0 when the host
    /// resolved but cannot be used).
    public var code: Int32 {
        switch self {
        case let .addressResolutionFailed(_, code, _): return code
        case let .socketCreationFailed(code), let .bindFailed(_, _, code),
             let .listenFailed(code), let .pipeCreationFailed(code):
            return code
        }
    }

    /// Whether the requested port is already taken by another socket.
    ///
    /// True for ``bindFailed(host:port:errno:)`` with `EADDRINUSE`; a caller that asked
    /// for a fixed port can then retry with another one, or with port `0`.
    public var isAddressInUse: Bool {
        if case let .bindFailed(_, _, code) = self { return code == EADDRINUSE }
        return false
    }

    private static func text(_ code: Int32) -> String {
        "\(Platform.describe(errorCode: code)) (errno \(code))"
    }
}
