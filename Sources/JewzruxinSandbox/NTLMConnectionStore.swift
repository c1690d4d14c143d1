import Foundation
import JewzruxinAuth
import JewzruxinPrimitives

/// Where each connection stands in the NTLM handshake of `/auth/ntlm/`.
///
/// NTLM authenticates a connection, not a request (RFC 4559 §4.1 describes the same for
/// Negotiate): the challenge is issued on one connection and only an answer on that connection
/// counts, and once a user is authenticated the connection's later requests to the same endpoint
/// need no `Authorization`. Each ``Sandbox`` has one store, shared by its connection threads (every
/// access is under a lock); a connection's entry goes when it closes, and at most ``capacity`` are
/// kept.
final class NTLMConnectionStore: Sendable {
    /// The most connections remembered at once.
    static let capacity = 1024

    /// What a connection has been through.
    enum Entry: Sendable, Equatable {
        /// A challenge was sent on it: the next answer must be to these eight bytes.
        case challenged(serverChallenge: [UInt8])
        /// It was authenticated for `endpoint` (the path's user and password) as `identity`.
        case authenticated(endpoint: String, identity: Identity)
    }

    /// Who authenticated, as their authenticate message said.
    struct Identity: Sendable, Equatable {
        let user: String
        let domain: String
        let workstation: String
    }

    private struct State: Sendable {
        var entries: [Int: Entry] = [:]
        var order: [Int] = []

        mutating func remove(_ connection: Int) {
            guard entries.removeValue(forKey: connection) != nil else { return }
            order.removeAll { $0 == connection }
        }
    }

    private let state = Locked(State())

    /// A new random challenge for `connection`, replacing whatever it had.
    func challenge(_ connection: Int) -> [UInt8] {
        let challenge = (0..<8).map { _ in UInt8.random(in: 0...255) }
        set(.challenged(serverChallenge: challenge), for: connection)
        return challenge
    }

    /// The challenge issued on `connection`, taken: an answer is checked once.
    func takeChallenge(_ connection: Int) -> [UInt8]? {
        state.withLock { state in
            guard case .challenged(let challenge)? = state.entries[connection] else { return nil }
            state.remove(connection)
            return challenge
        }
    }

    /// Marks `connection` authenticated for `endpoint`.
    func authenticate(_ connection: Int, endpoint: String, identity: Identity) {
        set(.authenticated(endpoint: endpoint, identity: identity), for: connection)
    }

    /// Who `connection` was authenticated as for `endpoint`, if it was.
    func identity(_ connection: Int, endpoint: String) -> Identity? {
        state.withLock { state in
            guard case .authenticated(endpoint, let identity)? = state.entries[connection] else { return nil }
            return identity
        }
    }

    /// Forgets `connection` (it closed).
    func forget(_ connection: Int) {
        state.withLock { $0.remove(connection) }
    }

    /// The number of connections remembered.
    var count: Int {
        state.withLock { $0.entries.count }
    }

    private func set(_ entry: Entry, for connection: Int) {
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: connection) == nil { state.order.append(connection) }
            if state.order.count > Self.capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
    }
}
