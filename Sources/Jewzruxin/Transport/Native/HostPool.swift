import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections to one origin: at most `limit` workers, each a thread with at most one
/// keep-alive connection, taking the transfers queued for the origin one at a time.
///
/// A worker that finishes a transfer takes the next queued one at once, on the same thread and,
/// when the server allows, the same connection. Idle workers wait for work on a condition variable
/// of their own and end (closing their connection) after `idleTimeout` without work.
final class HostPool: @unchecked Sendable {
    // Every mutable property is guarded by `mutex`.
    let origin: Origin
    private let limit: Int
    private let idleTimeout: TimeInterval
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var pending: [NativeExchange] = []
    private var pendingStart = 0
    private var idle: [Worker] = []
    private var workerCount = 0
    private var isShutDown = false

    init(origin: Origin, limit: Int, idleTimeout: TimeInterval) {
        self.origin = origin
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Connections open or opening, for tests and diagnostics.
    var connectionCount: Int { locked { workerCount } }

    /// Queues `exchange`; an idle worker takes it, or a new one when under the limit.
    func submit(_ exchange: NativeExchange) {
        enum Action { case handOff(Worker), spawn, queued, refused }
        let action: Action = locked {
            if isShutDown { return .refused }
            if let worker = idle.popLast() {
                worker.handoff = exchange
                pthread_cond_signal(worker.condition)
                return .handOff(worker)
            }
            if workerCount < limit {
                workerCount += 1
                return .spawn
            }
            pending.append(exchange)
            return .queued
        }
        switch action {
        case .spawn:
            let worker = Worker(pool: self)
            let thread = Thread { worker.run(first: exchange) }
            thread.name = "Jewzruxin.NativeTransport \(origin)"
            thread.start()
        case .refused:
            exchange.finishUnstarted(error: URLError(.cancelled))
        case .handOff, .queued:
            break
        }
    }

    /// Takes `exchange` out of the queue if it is still waiting there.
    ///
    /// - Returns: Whether it was waiting (and is now removed).
    func removePending(_ exchange: NativeExchange) -> Bool {
        locked {
            guard let index = pending[pendingStart...].firstIndex(where: { $0 === exchange }) else { return false }
            pending.remove(at: index)
            return true
        }
    }

    /// Ends every idle worker, and each busy one once its transfer is done; queued transfers are
    /// cancelled.
    func shutDown() {
        let dropped: [NativeExchange] = locked {
            isShutDown = true
            for worker in idle { pthread_cond_signal(worker.condition) }
            let dropped = Array(pending[pendingStart...])
            pending.removeAll()
            pendingStart = 0
            return dropped
        }
        for exchange in dropped { exchange.finishUnstarted(error: URLError(.cancelled)) }
    }

    // MARK: Worker side

    /// Called by a worker whose transfer ended (before it reports the end, so that a transfer
    /// submitted in response reuses it): the next queued transfer, assigned to it, or `nil` with
    /// the worker now listed as idle.
    fileprivate func workerBecameAvailable(_ worker: Worker) {
        locked {
            if pendingStart < pending.count {
                worker.handoff = pending[pendingStart]
                pendingStart += 1
                if pendingStart > 64, pendingStart * 2 > pending.count {
                    pending.removeFirst(pendingStart)
                    pendingStart = 0
                }
            } else if !isShutDown {
                idle.append(worker)
            }
        }
    }

    /// Waits for the transfer handed to `worker`; `nil` when the worker should end (idle too long,
    /// or the pool was shut down).
    fileprivate func nextExchange(for worker: Worker) -> NativeExchange? {
        locked {
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            let seconds = idleTimeout.rounded(.down)
            deadline.tv_sec += Int(seconds)
            deadline.tv_nsec += Int((idleTimeout - seconds) * 1_000_000_000)
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            while worker.handoff == nil && !isShutDown {
                if pthread_cond_timedwait(worker.condition, mutex, &deadline) == ETIMEDOUT { break }
            }
            if let exchange = worker.handoff {
                worker.handoff = nil
                return exchange
            }
            idle.removeAll { $0 === worker }
            workerCount -= 1
            return nil
        }
    }
}

/// One connection slot of a ``HostPool``: a thread that runs transfers one after the other.
private final class Worker: @unchecked Sendable {
    // `handoff` is guarded by the pool's mutex; the rest belongs to the worker's thread. The
    // worker keeps its pool alive (a thread may start after the transport is gone); the pool's
    // idle list holds the worker only until it ends, which `shutDown()` or the idle timeout brings.
    let pool: HostPool
    let condition: UnsafeMutablePointer<pthread_cond_t>
    var handoff: NativeExchange?
    private var connection: NativeConnection?
    private let waker = Waker()

    init(pool: HostPool) {
        self.pool = pool
        condition = .allocate(capacity: 1)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    func run(first: NativeExchange) {
        var next: NativeExchange? = first
        while let exchange = next {
            exchange.run(on: &connection, waker: waker) { pool.workerBecameAvailable(self) }
            next = pool.nextExchange(for: self)
        }
        connection?.close()
        connection = nil
    }
}
