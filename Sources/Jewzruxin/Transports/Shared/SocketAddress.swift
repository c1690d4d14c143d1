import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket's address as `getsockname` or `getpeername` gives it, IPv4 or IPv6: what the native
/// transport reports of a connection, and what the curl transport checks a connection by.
struct SocketAddress {
    private var storage = sockaddr_storage()

    /// The address `query` (`getsockname` or `getpeername` on a descriptor) fills in; `nil` when it
    /// fails.
    init?(_ query: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { query($0, &length) }
        }
        guard result == 0 else { return nil }
    }

    /// The port; `nil` for a family other than IPv4 and IPv6.
    var port: Int? {
        var storage = storage
        return withUnsafeMutablePointer(to: &storage) { storage -> Int? in
            switch Int32(storage.pointee.ss_family) {
            case AF_INET:
                return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6:
                return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default:
                return nil
            }
        }
    }

    /// The numeric host (`inet_ntop`); `nil` for a family other than IPv4 and IPv6.
    var numericHost: String? {
        var storage = storage
        return withUnsafeMutablePointer(to: &storage) { storage -> String? in
            switch Int32(storage.pointee.ss_family) {
            case AF_INET:
                return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Self.text(family: AF_INET, &$0.pointee.sin_addr) }
            case AF_INET6:
                return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Self.text(family: AF_INET6, &$0.pointee.sin6_addr) }
            default:
                return nil
            }
        }
    }

    /// The text of an `in_addr` or `in6_addr` (`inet_ntop`).
    private static func text(family: Int32, _ address: UnsafeRawPointer) -> String? {
        // INET6_ADDRSTRLEN, which an IPv4 address fits too.
        let capacity = 46
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { text -> String? in
            guard let base = text.baseAddress, inet_ntop(family, address, base, socklen_t(capacity)) != nil else { return nil }
            return String(cString: base)
        }
    }
}
