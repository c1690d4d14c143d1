import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The state shared by a ``SOCKSProxy`` and its threads, and what each connection's thread runs:
/// the handshake of RFC 1928 (with RFC 1929's sub-negotiation), the connect to the target, then the
/// relay.
final class SOCKSProxyCore: Sendable {
    struct State: Sendable {
        var connectionCount = 0
        var handshakes: [SOCKSProxy.Handshake] = []
    }

    let credentials: SOCKSProxy.Credentials?
    /// The only names that resolve, keys lowercased; `nil` for the system's resolver.
    let hosts: [String: String]?
    let stopSignal: StopSignal
    let threads = ThreadTracker()
    let state = Locked(State())

    init(credentials: SOCKSProxy.Credentials?, hosts: [String: String]?, stopSignal: StopSignal) {
        self.credentials = credentials
        self.hosts = hosts
        self.stopSignal = stopSignal
    }

    /// Accepts connections until the proxy stops, serving each on its own thread.
    func acceptLoop(listenFD: Int32) {
        Listener.acceptConnections(on: listenFD, until: stopSignal) { fd in
            state.withLock { $0.connectionCount += 1 }
            threads.spawn(name: "SOCKSProxy connection") { [self] in
                serve(SocketStream(fd: fd, stop: stopSignal))
            }
        }
    }

    // MARK: One connection

    /// How a handshake ends.
    private enum Ending {
        /// Send the last answer; then relay to the connected target, or close.
        case answer(Data, target: Int32?)
        /// Close without a word (a greeting that isn't SOCKS5).
        case close
    }

    private func serve(_ client: SocketStream) {
        var handshake = SOCKSProxy.Handshake()
        let ending: Ending
        do throws(RequestError) {
            ending = try negotiate(client, &handshake)
        } catch {
            // The client left, or the proxy is stopping, inside the handshake.
            record(handshake)
            Platform.closeDescriptor(client.fd)
            return
        }
        // Recorded before the answer goes out: a client that has its answer finds it recorded.
        record(handshake)
        switch ending {
        case .close:
            client.lingeringClose()
        case .answer(let bytes, let target):
            do {
                try client.write(bytes)
            } catch {
                if let target { Platform.closeDescriptor(target) }
                Platform.closeDescriptor(client.fd)
                return
            }
            if let target {
                relay(client: client, target: target)
            } else {
                client.lingeringClose()
            }
        }
    }

    /// Runs the handshake up to its last answer, which it returns rather than sends.
    private func negotiate(_ client: SocketStream, _ handshake: inout SOCKSProxy.Handshake) throws(RequestError) -> Ending {
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

        // An address, or a name: mapped by the hosts given (only numeric addresses pass otherwise),
        // or resolved by the system.
        let address = addressType == .domainName ? hosts?[host.lowercased()] ?? host : host
        let numeric = addressType != .domainName || hosts != nil
        switch Dialer.connect(host: address, port: target.port, numeric: numeric, stop: stopSignal) {
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
    private func failure(_ reply: SOCKSProxy.Reply, _ handshake: inout SOCKSProxy.Handshake) -> Ending {
        handshake.reply = reply
        // VER REP RSV, and an empty IPv4 bound address.
        return .answer(Data([5, reply.rawValue, 0, 1, 0, 0, 0, 0, 0, 0]), target: nil)
    }

    private func record(_ handshake: SOCKSProxy.Handshake) {
        state.withLock { $0.handshakes.append(handshake) }
    }

    private func read(_ count: Int, from stream: SocketStream) throws(RequestError) -> [UInt8] {
        var data = Data()
        try stream.read(exactly: count, into: &data)
        return Array(data)
    }

    // MARK: Relaying

    /// Copies bytes both ways until both sides have closed (a side's end of stream is passed on to
    /// the other as a half-close) or one fails (both are then shut down), then closes both.
    private func relay(client: SocketStream, target: Int32) {
        let back = DispatchSemaphore(value: 0)
        let clientFD = client.fd
        threads.spawn(name: "SOCKSProxy relay") { [self] in
            pump(from: SocketStream(fd: target, stop: stopSignal), to: SocketStream(fd: clientFD, stop: stopSignal))
            back.signal()
        }
        pump(from: client, to: SocketStream(fd: target, stop: stopSignal))
        back.wait()
        Platform.closeDescriptor(target)
        Platform.closeDescriptor(clientFD)
    }

    private func pump(from source: SocketStream, to destination: SocketStream) {
        do throws(RequestError) {
            var chunk = Data()
            repeat {
                // What the client sent behind its request is already buffered: it goes first.
                guard source.bufferedCount > 0 else { continue }
                chunk.removeAll(keepingCapacity: true)
                try source.read(exactly: source.bufferedCount, into: &chunk)
                try destination.write(chunk)
            } while try source.fill()
            Platform.shutdownWrite(destination.fd)
        } catch .stopped {
            return
        } catch {
            // A reset or a failed write: end the other direction too.
            Platform.shutdownBoth(source.fd)
            Platform.shutdownBoth(destination.fd)
        }
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
