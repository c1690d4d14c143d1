import Foundation
import JewzruxinPrimitives
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
/// when the server allows, the same connection. An idle worker waits in a `poll` on its connection
/// and its doorbell, and ends (closing the connection) after `idleTimeout` without work, or when the
/// server closes the connection or sends anything unasked.
///
/// A transfer handed to an idle worker with a connection is sent by the thread that submits it
/// (``NativeExchange/sendEagerly(on:)``): the worker then wakes once, when the response arrives,
/// instead of once to send and once more to read. The doorbell rings when the worker has to act
/// first: nothing was sent, the transfer's timeout ends before the worker's wait would, or the
/// transfer was cancelled.
final class HostPool: @unchecked Sendable {
    // Every mutable property is guarded by `lock`, as are the handoff properties of the workers.
    let origin: Origin
    /// The `Host` value of the origin's requests, made once.
    let hostField: String
    private let limit: Int
    private let idleTimeout: TimeInterval
    /// Guards the properties below and the workers' handoff properties, which are not its value.
    private let lock = Locked(())
    private var pending: [NativeExchange] = []
    private var pendingStart = 0
    private var idle: [Worker] = []
    private var workerCount = 0
    private var isShutDown = false

    init(origin: Origin, limit: Int, idleTimeout: TimeInterval) {
        self.origin = origin
        hostField = origin.hostField
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.withLock { _ in body() }
    }

    /// Connections open or opening, for tests and diagnostics.
    var connectionCount: Int { locked { workerCount } }

    /// Queues `exchange`; an idle worker takes it, or a new one when under the limit.
    func submit(_ exchange: NativeExchange) {
        enum Action { case handOff(Worker, NativeSocket?), spawn, queued, refused }
        let action: Action = locked {
            if isShutDown { return .refused }
            if let worker = idle.popLast() {
                worker.handoff = exchange
                worker.isHandoffReady = false
                defer { worker.idleSocket = nil }
                return .handOff(worker, worker.idleSocket)
            }
            if workerCount < limit {
                workerCount += 1
                return .spawn
            }
            pending.append(exchange)
            return .queued
        }
        switch action {
        case .handOff(let worker, let socket):
            exchange.handedOff(to: worker.doorbell)
            // The worker can't close or use the connection until the handoff is ready.
            let answerDeadline = socket.flatMap { exchange.sendEagerly(on: $0) }
            let rings: Bool = locked {
                worker.isHandoffReady = true
                // The worker waits for the handoff, or must be up in time to enforce the transfer's
                // timeout.
                if worker.isWaitingForHandoff { return true }
                return answerDeadline.map { $0 < worker.idleDeadline } ?? true
            }
            if rings { worker.doorbell.wake() }
        case .spawn:
            guard let worker = Worker(pool: self, first: exchange) else {
                // No worker, so no one to serve what was queued meanwhile either when none is left.
                let stranded: [NativeExchange] = locked {
                    workerCount -= 1
                    guard workerCount == 0 else { return [] }
                    defer { pending.removeAll(); pendingStart = 0 }
                    return Array(pending[pendingStart...])
                }
                for failed in [exchange] + stranded {
                    failed.finishUnstarted(error: URLError(.cannotConnectToHost, userInfo: [
                        NSLocalizedDescriptionKey: "No file descriptor was left for the transfer.",
                    ]))
                }
                return
            }
            let thread = Thread { worker.run() }
            thread.name = "Jewzruxin.NativeTransport \(origin)"
            thread.start()
        case .refused:
            exchange.finishUnstarted(error: URLError(.cancelled))
        case .queued:
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
        let (dropped, idleWorkers): ([NativeExchange], [Worker]) = locked {
            isShutDown = true
            let dropped = Array(pending[pendingStart...])
            pending.removeAll()
            pendingStart = 0
            return (dropped, idle)
        }
        for worker in idleWorkers { worker.doorbell.wake() }
        for exchange in dropped { exchange.finishUnstarted(error: URLError(.cancelled)) }
    }

    // MARK: Worker side

    /// Called by a worker whose transfer ended (before it reports the end, so that a transfer
    /// submitted in response reuses it): the next queued transfer is assigned to it, or it is listed
    /// as idle with `connection`.
    fileprivate func workerBecameAvailable(_ worker: Worker, connection: NativeConnection?) {
        locked {
            if pendingStart < pending.count {
                worker.handoff = pending[pendingStart]
                worker.isHandoffReady = true
                pendingStart += 1
                if pendingStart > 64, pendingStart * 2 > pending.count {
                    pending.removeFirst(pendingStart)
                    pendingStart = 0
                }
            } else if !isShutDown {
                worker.idleSocket = connection?.socket
                worker.idleDeadline = MonotonicTime.now(plus: idleTimeout)
                idle.append(worker)
            }
        }
    }

    /// Waits for the transfer handed to `worker`; `nil` when the worker should end (idle too long,
    /// its connection closed or spoke unasked, or the pool was shut down).
    fileprivate func nextExchange(for worker: Worker, connection: NativeConnection?) -> NativeExchange? {
        enum Next { case take(NativeExchange), end, wait(until: MonotonicTime), waitForHandoff }
        var connectionSpoke = false
        while true {
            let next: Next = locked {
                if let exchange = worker.handoff {
                    // The submitting thread may still be sending on the connection: it rings once done.
                    guard worker.isHandoffReady else {
                        worker.isWaitingForHandoff = true
                        return .waitForHandoff
                    }
                    worker.isWaitingForHandoff = false
                    worker.handoff = nil
                    return .take(exchange)
                }
                guard isShutDown || connectionSpoke || MonotonicTime.now >= worker.idleDeadline else {
                    return .wait(until: worker.idleDeadline)
                }
                idle.removeAll { $0 === worker }
                worker.idleSocket = nil
                workerCount -= 1
                return .end
            }
            switch next {
            case .take(let exchange):
                return exchange
            case .end:
                return nil
            case .wait(let deadline):
                connectionSpoke = worker.waitForWork(on: connection?.socket, until: deadline)
            case .waitForHandoff:
                // Not on the connection: the answer to what the submitting thread sends may come
                // first. The ring is sure to come: the submitter looks for this wait once it is done.
                _ = worker.doorbell.wait(for: -1, events: 0, until: nil)
            }
            // Every ring is for a change the next look under the lock sees: clear it before looking,
            // so a ring that came for something already handled doesn't end the next wait at once.
            worker.doorbell.reset()
        }
    }
}

/// One connection slot of a ``HostPool``: a thread that runs transfers one after the other.
private final class Worker: @unchecked Sendable {
    // The handoff properties are guarded by the pool's lock; `first` and `connection` belong to the
    // worker's thread. The worker keeps its pool alive (a thread may start after the transport is
    // gone); the pool's idle list holds the worker only until it ends, which `shutDown()` or the
    // idle timeout brings.
    let pool: HostPool
    /// The transfer handed to the worker, and whether the submitting thread is done with it.
    var handoff: NativeExchange?
    var isHandoffReady = false
    var isWaitingForHandoff = false
    /// The socket of the connection, while the worker is idle with one.
    var idleSocket: NativeSocket?
    /// When the idle worker ends if no work comes.
    var idleDeadline = MonotonicTime.now
    /// Rung to make an idle worker look at its handoff, or end.
    let doorbell: Waker
    /// Interrupts the transfer the worker runs (its cancel).
    private let waker: Waker
    /// The transfer the worker was made for, until its thread takes it.
    private var first: NativeExchange?
    private var connection: NativeConnection?

    /// `nil` when no pipe is left for the wakers.
    init?(pool: HostPool, first: NativeExchange) {
        guard let doorbell = try? Waker(), let waker = try? Waker() else { return nil }
        self.pool = pool
        self.first = first
        self.doorbell = doorbell
        self.waker = waker
    }

    func run() {
        // Each transfer is released at the end of its iteration, before the wait for the next
        // one: an idle worker must not keep a finished transfer, its cycle and its body alive.
        while let exchange = first.take() ?? pool.nextExchange(for: self, connection: connection) {
            exchange.run(on: &connection, waker: waker) { pool.workerBecameAvailable(self, connection: $0) }
        }
        connection?.close()
        connection = nil
    }

    /// Waits until the doorbell rings, `socket` has something to read (a response to a transfer
    /// sent for the worker, or the server closing), or `deadline` passes.
    ///
    /// - Returns: Whether `socket` became readable (and the doorbell didn't ring).
    func waitForWork(on socket: NativeSocket?, until deadline: MonotonicTime) -> Bool {
        doorbell.wait(for: socket?.descriptor ?? -1, events: Int16(POLLIN), until: deadline) == .ready
    }
}
