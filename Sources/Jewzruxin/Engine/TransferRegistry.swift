import Foundation

/// The transfers of a session in flight, by identifier.
///
/// An entry keeps its cycle alive until the transfer completes, so a cycle nobody holds on to still
/// finishes; it also makes a transfer's completion count once.
final class TransferRegistry: Sendable {
    private struct State {
        var nextID = 0
        var entries: [Int: Entry] = [:]
        /// Callers of ``whenIdle()`` waiting for `entries` to empty.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Entry {
        let cycle: HTTPCycle
        var completing = false
    }

    private let state = Locked(State())

    var count: Int { state.withLock { $0.entries.count } }

    /// Events for a new transfer of `cycle`'s `attempt`, registered as in flight.
    func register(_ cycle: HTTPCycle, attempt: Int) -> HTTPTransferEvents {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            // `updateValue` rather than the subscript's setter: the subscript's accessor coroutine
            // allocates its frame on the heap, per request.
            s.entries.updateValue(Entry(cycle: cycle), forKey: s.nextID)
            return s.nextID
        }
        return HTTPTransferEvents(cycle: cycle, attempt: attempt, registry: self, id: id)
    }

    /// Marks the transfer `id` as completing; `false` if its completion was reported before.
    func claimCompletion(of id: Int) -> Bool {
        state.withLock { s in
            guard var entry = s.entries[id], !entry.completing else { return false }
            entry.completing = true
            s.entries.updateValue(entry, forKey: id)
            return true
        }
    }

    /// The completion of transfer `id` has been handled: forgets it, and wakes the waiters if no
    /// transfer is left.
    func remove(_ id: Int) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.entries.removeValue(forKey: id)
            guard s.entries.isEmpty else { return [] }
            defer { s.idleWaiters = [] }
            return s.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no transfer is in flight: every one has reported its completion, cancelled
    /// ones included.
    func whenIdle() async {
        // Resumed by the thread that ended the last transfer: ordered for ThreadSanitizer.
        defer { state.fence() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.entries.isEmpty { return true }
                s.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
