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
        let (listener, port) = try LoopbackSocket.bound()
        guard listen(listener, 0) == 0 else {
            let code = errno
            close(listener)
            throw RefusingPortError(call: "listen", code: code)
        }
        let filler: Int32
        do {
            filler = try LoopbackSocket.make()
        } catch {
            close(listener)
            throw error
        }
        var address = LoopbackSocket.loopback(port: port)
        let connected = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            close(filler)
            close(listener)
            throw RefusingPortError(call: "connect", code: code)
        }
        (self.listener, self.filler, self.port) = (listener, filler, port)
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }
}
