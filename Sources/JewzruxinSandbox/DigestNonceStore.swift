import Foundation
import JewzruxinAuth
import JewzruxinPrimitives

/// The nonces a sandbox's `/digest_auth/` endpoints have issued, with their use counts.
///
/// Each ``Sandbox`` has one store, shared by all connection threads (every access is
/// under a lock). It remembers at most ``capacity`` nonces; issuing more forgets the
/// oldest, and a forgotten nonce is treated like an expired one (a correct answer with
/// it gets `stale=true`).
final class DigestNonceStore: Sendable {
    /// The most nonces remembered at once.
    static let capacity = 1024

    /// What the store knows about one issued nonce.
    struct Record: Sendable {
        /// How many requests may use the nonce (`stale_after`), or `nil` for no limit.
        let useLimit: Int?
        /// How many requests were accepted with it so far.
        var uses = 0
        /// The highest `nc` accepted with it so far.
        var highestNonceCount: UInt64 = 0
    }

    /// The outcome of presenting a nonce with a correct Digest response.
    enum Admission: Sendable, Equatable {
        /// The request is accepted and counted.
        case accepted
        /// The nonce is unknown, forgotten, or has been used `stale_after` times.
        case stale
        /// The `nc` is malformed or not greater than one already accepted for this nonce.
        case replayed
    }

    private struct State: Sendable {
        var records: [String: Record] = [:]
        var issueOrder: [String] = []
    }

    /// The `opaque` value every challenge of this sandbox carries (random per sandbox).
    let opaque = DigestCredentials.makeClientNonce(byteCount: 12)

    private let state = Locked(State())

    /// Creates and remembers a new random nonce.
    ///
    /// - Parameter useLimit: how many requests may use it, or `nil` for no limit.
    func issue(useLimit: Int?) -> String {
        let nonce = DigestCredentials.makeClientNonce(byteCount: 16)
        state.withLock { state in
            state.records[nonce] = Record(useLimit: useLimit)
            state.issueOrder.append(nonce)
            if state.issueOrder.count > Self.capacity {
                let forgotten = state.issueOrder.removeFirst()
                state.records[forgotten] = nil
            }
        }
        return nonce
    }

    /// Whether `nonce` was issued here, is still remembered, and has uses left.
    func isCurrent(_ nonce: String) -> Bool {
        state.withLock { state in
            guard let record = state.records[nonce] else { return false }
            return record.useLimit.map { record.uses < $0 } ?? true
        }
    }

    /// Counts one use of `nonce` by a request whose Digest response was correct.
    ///
    /// - Parameter nonceCount: the request's `nc` (eight hex digits), or `nil` when the
    ///   request used no qop (RFC 2069 form), which has no replay counter.
    func admit(_ nonce: String, nonceCount: String?) -> Admission {
        state.withLock { state in
            guard var record = state.records[nonce], record.useLimit.map({ record.uses < $0 }) ?? true else {
                return .stale
            }
            if let nonceCount {
                guard let count = UInt64(nonceCount, radix: 16), count > record.highestNonceCount else {
                    return .replayed
                }
                record.highestNonceCount = count
            }
            record.uses += 1
            state.records[nonce] = record
            return .accepted
        }
    }

    /// The number of nonces currently remembered.
    var count: Int {
        state.withLock { $0.records.count }
    }
}
