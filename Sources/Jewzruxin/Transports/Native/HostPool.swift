import Foundation
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections to one origin: at most `limit` workers, each a thread with at most one
/// keep-alive connection, taking the transfers queued for the origin one at a time (the rules are
/// its ``StateMachine``'s).
///
/// A worker that finishes a transfer takes the next queued one at once, on the same thread and,
/// when the server allows, the same connection. An idle worker waits in a `poll` on its connection
/// and its doorbell, and ends (closing the connection) after `idleTimeout` without work, or when the
/// server closes the connection or sends anything unasked.
///
/// A transfer handed to an idle worker with a connection is sent by the thread that submits it
/// (``NativeExchange/handOff(to:socket:)``): the worker then wakes once, when the response arrives,
/// instead of once to send and once more to read. The doorbell rings when the worker has to act
/// first: nothing was sent, the transfer's timeout ends before the worker's wait would, the worker
/// waits for the handoff, or the transfer was cancelled. A ring is never lost (the doorbell stays
/// readable until reset) and a stray one costs a look: the worker resets the doorbell after its wait
/// and before it looks at its phase again.
final class HostPool: Sendable {
    let origin: Origin
    private let state: Locked<Machine>

    fileprivate typealias Machine = StateMachine<NativeExchange, Worker, NativeSocket, NativeExchange.EarlySend>

    init(origin: Origin, limit: Int, idleTimeout: TimeInterval) {
        self.origin = origin
        state = Locked(Machine(limit: limit, idleTimeout: idleTimeout))
    }

    /// Connections open or opening, for tests and diagnostics.
    var connectionCount: Int { state.withLock { $0.connectionCount } }

    /// Queues `exchange`; an idle worker takes it, or a new one when under the limit.
    func submit(_ exchange: NativeExchange) {
        switch state.withLock({ $0.submit(exchange) }) {
        case .queued:
            break
        case .handOff(let worker, let socket):
            // The worker can't close or use the connection until the handoff is done.
            let early = exchange.handOff(to: worker.doorbell, socket: socket)
            let rings = state.withLock { $0.handOffDone(worker, early: early, answerDeadline: early?.answerDeadline) }
            if rings { worker.doorbell.wake() }
        case .spawn:
            guard let worker = Worker(pool: self) else {
                // No worker, so no one to serve what was queued meanwhile either when none is left.
                let stranded = state.withLock { $0.spawnFailed() }
                for failed in [exchange] + stranded {
                    failed.finishUnstarted(error: URLError(.cannotConnectToHost, userInfo: [
                        NSLocalizedDescriptionKey: "No file descriptor was left for the transfer.",
                    ]))
                }
                return
            }
            state.withLock { $0.spawned(worker) }
            worker.assignFirst(exchange)
            let thread = Thread { worker.run() }
            thread.name = "Jewzruxin.NativeTransport \(origin)"
            thread.start()
        case .refuse:
            exchange.finishUnstarted(error: URLError(.cancelled))
        }
    }

    /// Takes `exchange` out of the queue if it is still waiting there.
    ///
    /// - Returns: Whether it was waiting (and is now removed).
    func withdraw(_ exchange: NativeExchange) -> Bool {
        state.withLock { $0.withdraw(exchange) }
    }

    /// Ends every idle worker, and each busy one once its transfer is done; queued transfers are
    /// cancelled.
    func shutDown() {
        let (dropped, idle) = state.withLock { $0.shutDown() }
        for worker in idle { worker.doorbell.wake() }
        for exchange in dropped { exchange.finishUnstarted(error: URLError(.cancelled)) }
    }

    // MARK: Worker side

    /// Called by a worker whose transfer ended (before it reports the end, so that a transfer
    /// submitted in response reuses it), with the connection it keeps.
    fileprivate func workerFinished(_ worker: Worker, connection: NativeConnection?) {
        state.withLock { $0.workerFinished(worker, socket: connection?.socket, now: .now) }
    }

    /// Waits for the next transfer of `worker`; `nil` when the worker should end (idle too long, its
    /// connection closed or spoke unasked, or the pool was shut down).
    fileprivate func nextWork(for worker: Worker, connection: NativeConnection?) -> (NativeExchange, NativeExchange.EarlySend?)? {
        var connectionSpoke = false
        while true {
            switch state.withLock({ $0.nextWork(for: worker, now: .now, connectionSpoke: connectionSpoke) }) {
            case .run(let exchange, let early):
                return (exchange, early)
            case .end:
                return nil
            case .wait(let deadline):
                switch worker.doorbell.wait(for: connection?.socket.descriptor ?? -1, events: Int16(POLLIN), until: deadline) {
                case .ready:
                    connectionSpoke = true
                case .woken:
                    // Every ring is for a change the next look sees: clear it before looking, so a ring
                    // for something handled already doesn't end the next wait at once.
                    worker.doorbell.reset()
                case .timedOut:
                    break
                case .failed:
                    // A `poll` that fails on the connection would fail again: end the worker.
                    connectionSpoke = true
                }
            case .waitForHandOff:
                // Not on the connection: the answer to what the submitting thread sends may come
                // first. The ring is sure to come: the submitter looks for this wait once it is done.
                if worker.doorbell.wait(for: -1, events: 0, until: nil) == .woken { worker.doorbell.reset() }
            }
        }
    }
}

/// One connection slot of a ``HostPool``: a thread that runs transfers one after the other, on the
/// connection it keeps between them.
private final class Worker: Sendable {
    // The worker keeps its pool alive (a thread may start after the transport is gone); the pool holds
    // the worker only until it ends, which `shutDown()` or the idle timeout brings.
    let pool: HostPool
    /// Rung to make an idle worker look at its phase.
    let doorbell: Waker
    /// Interrupts the transfer the worker runs (its cancel).
    let waker: Waker
    /// The transfer the worker was made for, until its thread takes it.
    private let first = Locked<NativeExchange?>(nil)

    /// `nil` when no pipe is left for the wakers.
    init?(pool: HostPool) {
        guard let doorbell = try? Waker(), let waker = try? Waker() else { return nil }
        self.pool = pool
        self.doorbell = doorbell
        self.waker = waker
    }

    /// Gives the worker its first transfer, before its thread starts.
    func assignFirst(_ exchange: NativeExchange) {
        first.withLock { $0 = exchange }
    }

    /// The worker's thread: its first transfer, then what the pool gives it, until it ends.
    ///
    /// Each transfer is released at the end of its iteration, before the wait for the next one: an
    /// idle worker must not keep a finished transfer, its cycle and its body alive. (So the first
    /// isn't a parameter, nor captured by the thread's closure: either kept it, and its cycle, until
    /// the worker ended.)
    func run() {
        var connection: NativeConnection?
        while let (exchange, early) = first.withLock({ $0.take() }).map({ ($0, nil) }) ?? pool.nextWork(for: self, connection: connection) {
            exchange.run(on: &connection, early: early, waker: waker) { pool.workerFinished(self, connection: $0) }
        }
        connection?.close()
    }
}
