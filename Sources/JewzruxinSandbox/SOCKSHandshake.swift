import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The SOCKS5 handshake of a ``SOCKSProxy``'s connection (RFC 1928, with RFC 1929's
/// sub-negotiation), up to the connect to the target.
struct SOCKSHandshake: ProxyHandshake {
    static let name = "SOCKSProxy"

    let credentials: SOCKSProxy.Credentials?
    /// The only names that resolve; `nil` for the system's resolver.
    let hosts: [String: String]?

    func negotiate(_ client: SocketStream, _ handshake: inout SOCKSProxy.Handshake, stop: StopSignal) throws(RequestError) -> ProxyEnding {
        // Greeting: VER NMETHODS METHODS, answered with VER METHOD.
        let greeting = try read(2, from: client)
        guard greeting[0] == 5 else { return .close }
        handshake.offeredMethods = try read(Int(greeting[1]), from: client).map(SOCKSProxy.Method.init(rawValue:))
        let method = chooseMethod(from: handshake.offeredMethods)
        handshake.chosenMethod = method
        guard method != .noAcceptableMethods else { return .answer(Data([5, method.rawValue]), target: nil) }
        try client.write(Data([5, method.rawValue]))

        if method == .usernamePassword {
            // RFC 1929: VER ULEN UNAME PLEN PASSWD, answered with VER STATUS.
            let version = try read(2, from: client)
            let username = try read(Int(version[1]), from: client)
            let passwordLength = try read(1, from: client)
            let password = try read(Int(passwordLength[0]), from: client)
            handshake.username = String(decoding: username, as: UTF8.self)
            let accepted = version[0] == 1 && credentials.map {
                Array($0.username.utf8) == username && Array($0.password.utf8) == password
            } ?? true
            handshake.credentialsAccepted = accepted
            guard accepted else { return .answer(Data([1, 1]), target: nil) }
            try client.write(Data([1, 0]))
        }

        // Request: VER CMD RSV ATYP DST.ADDR DST.PORT, answered with VER REP RSV ATYP BND.ADDR BND.PORT.
        let request = try read(4, from: client)
        handshake.command = SOCKSProxy.Command(rawValue: request[1])
        guard request[0] == 5 else { return failure(.generalFailure, &handshake) }
        guard let addressType = SOCKSProxy.AddressType(rawValue: request[3]) else {
            return failure(.addressTypeNotSupported, &handshake)
        }
        let host: String
        switch addressType {
        case .ipv4: host = Self.text(ofAddress: try read(4, from: client), family: AF_INET)
        case .ipv6: host = Self.text(ofAddress: try read(16, from: client), family: AF_INET6)
        case .domainName:
            let length = try read(1, from: client)
            host = String(decoding: try read(Int(length[0]), from: client), as: UTF8.self)
        }
        let portBytes = try read(2, from: client)
        let target = SOCKSProxy.Target(addressType: addressType, host: host, port: Int(portBytes[0]) << 8 | Int(portBytes[1]))
        handshake.target = target
        guard handshake.command == .connect else { return failure(.commandNotSupported, &handshake) }

        switch Dialer.connect(target: host, isAddress: addressType != .domainName, port: target.port, hosts: hosts, stop: stop) {
        case .success(let connected):
            handshake.reply = .succeeded
            return .answer(Data([5, 0, 0]) + Self.boundAddress(of: connected), target: connected)
        case .failure(.stopped):
            throw .stopped
        case .failure(.unresolved):
            return failure(.hostUnreachable, &handshake)
        case .failure(.failed(let code)):
            return failure(Self.reply(forConnectError: code), &handshake)
        }
    }

    /// The method the proxy takes from those offered.
    private func chooseMethod(from offered: [SOCKSProxy.Method]) -> SOCKSProxy.Method {
        if credentials != nil {
            return offered.contains(.usernamePassword) ? .usernamePassword : .noAcceptableMethods
        }
        if offered.contains(.noAuthentication) { return .noAuthentication }
        return offered.contains(.usernamePassword) ? .usernamePassword : .noAcceptableMethods
    }

    /// The failure `reply`, after which the connection closes.
    private func failure(_ reply: SOCKSProxy.Reply, _ handshake: inout SOCKSProxy.Handshake) -> ProxyEnding {
        handshake.reply = reply
        // VER REP RSV, and an empty IPv4 bound address.
        return .answer(Data([5, reply.rawValue, 0, 1, 0, 0, 0, 0, 0, 0]), target: nil)
    }

    private func read(_ count: Int, from stream: SocketStream) throws(RequestError) -> [UInt8] {
        var data = Data()
        try stream.read(exactly: count, into: &data)
        return Array(data)
    }

    // MARK: Addresses

    /// The reply for a connect that failed with `code`.
    static func reply(forConnectError code: Int32) -> SOCKSProxy.Reply {
        switch code {
        case ECONNREFUSED: .connectionRefused
        case ENETUNREACH: .networkUnreachable
        case EHOSTUNREACH, ETIMEDOUT: .hostUnreachable
        default: .generalFailure
        }
    }

    /// An address as text, as `inet_ntop` writes it.
    static func text(ofAddress bytes: [UInt8], family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = bytes.withUnsafeBytes { address in
            inet_ntop(family, address.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ATYP BND.ADDR BND.PORT of the proxy's end of the connection to the target.
    static func boundAddress(of fd: Int32) -> Data {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        } == 0
        if named, Int32(storage.ss_family) == AF_INET6 {
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in6.self)
                return Data([4]) + withUnsafeBytes(of: address.sin6_addr) { Data($0) } + withUnsafeBytes(of: address.sin6_port) { Data($0) }
            }
        }
        if named, Int32(storage.ss_family) == AF_INET {
            return withUnsafeBytes(of: &storage) { raw in
                let address = raw.load(as: sockaddr_in.self)
                return Data([1]) + withUnsafeBytes(of: address.sin_addr) { Data($0) } + withUnsafeBytes(of: address.sin_port) { Data($0) }
            }
        }
        return Data([1, 0, 0, 0, 0, 0, 0])
    }
}
