import JewzruxinPrimitives

extension HostPool {
    /// The workers of one origin and the requests waiting for them: each worker's phase owns what it
    /// has (the request handed to it, the socket of its idle connection), and each event returns what
    /// to do, carried out by the pool after its lock is released. No socket, waker, thread or transfer
    /// is touched under the lock.
    ///
    /// A worker is a thread with at most one keep-alive connection. It is *busy* running a request;
    /// then it takes the next queued one (*assigned*), or becomes *idle* until its deadline, or
    /// *ending* once the pool is shut down. A request submitted while a worker is idle is handed to
    /// the one that became idle last (its connection the most recently used): the submitting thread
    /// may send it on that worker's connection first (*handing off*), and the worker waits until it is
    /// done before taking it. Without an idle worker a new one is started while there are fewer than
    /// `limit`; otherwise the request waits in the queue, first in first out.
    ///
    /// Generic over what it holds, so that every transition is tested without a socket or a thread;
    /// the pool uses `NativeExchange`, its `Worker`, `NativeSocket` and `NativeExchange.EarlySend`.
    struct StateMachine<Request: AnyObject, Worker: AnyObject, Socket, Early> {
        /// Where a worker is.
        enum Phase {
            /// Running a request (or about to: it was given one).
            case busy
            /// Waiting for work until `deadline`, with its connection's socket, if it has one, for a
            /// submitting thread to send on.
            case idle(socket: Socket?, deadline: MonotonicTime)
            /// A submitting thread is sending `request` on the worker's connection: the worker neither
            /// uses nor closes the connection until the handoff is done. `idleDeadline` is when the
            /// worker's wait would have ended; `workerWaits` once the worker waits for the handoff.
            case handingOff(Request, idleDeadline: MonotonicTime, workerWaits: Bool)
            /// `request` is the worker's to take, with what the submitting thread sent of it.
            case assigned(Request, Early?)
            /// Done with its last request after the pool was shut down: the worker ends.
            case ending

            /// When the wait of an idle worker ends; `nil` for the other phases.
            var idleDeadline: MonotonicTime? {
                guard case .idle(_, let deadline) = self else { return nil }
                return deadline
            }
        }

        /// A worker and its phase.
        struct Slot {
            let worker: Worker
            var phase: Phase
        }

        enum SubmitAction {
            /// Hand the request to the idle `worker`: tell the request, send it on `socket` when there
            /// is one and it suits, then report with ``handOffDone(_:early:answerDeadline:)``.
            case handOff(Worker, socket: Socket?)
            /// Start a worker with the request as its first; report with ``spawned(_:)`` or
            /// ``spawnFailed()``.
            case spawn
            /// The request waits for a worker.
            case queued
            /// The pool is shut down: end the request with a cancellation.
            case refuse
        }

        enum NextAction {
            /// Run `request`, with what the submitting thread sent of it.
            case run(Request, Early?)
            /// Wait on the doorbell (not the connection) for the submitting thread to finish its
            /// handoff: it rings.
            case waitForHandOff
            /// Wait on the doorbell and the connection until `deadline`, then look again.
            case wait(until: MonotonicTime)
            /// End the worker: close its connection, end its thread.
            case end
        }

        /// The most workers at once.
        let limit: Int
        /// How long a worker stays idle, in nanoseconds.
        let idleTimeout: UInt64
        private(set) var slots: [Slot] = []
        /// Workers being made: they count against the limit.
        private(set) var starting = 0
        /// The queue is `queue[queueStart...]`; the consumed front is dropped now and then.
        private var queue: [Request] = []
        private var queueStart = 0
        private(set) var isShutDown = false

        /// - Parameters:
        ///   - limit: The most workers at once (at least 1).
        ///   - idleTimeout: How long a worker stays idle, in seconds.
        init(limit: Int, idleTimeout: Double) {
            self.limit = max(1, limit)
            self.idleTimeout = MonotonicTime.nanoseconds(idleTimeout)
        }

        // MARK: Reading

        /// Workers running or being made: each has a connection, or is opening one.
        var connectionCount: Int { slots.count + starting }

        /// Requests waiting for a worker.
        var queuedCount: Int { queue.count - queueStart }

        /// The phase of `worker`, `nil` once it ended.
        func phase(of worker: Worker) -> Phase? {
            slots.first { $0.worker === worker }?.phase
        }

        // MARK: Requests

        /// A request is resumed.
        mutating func submit(_ request: Request) -> SubmitAction {
            if isShutDown { return .refuse }
            if let index = lastIdle(), case .idle(let socket, let deadline) = slots[index].phase {
                slots[index].phase = .handingOff(request, idleDeadline: deadline, workerWaits: false)
                return .handOff(slots[index].worker, socket: socket)
            }
            if connectionCount < limit {
                starting += 1
                return .spawn
            }
            queue.append(request)
            return .queued
        }

        /// The worker asked for by ``SubmitAction/spawn`` is made: it runs its first request.
        mutating func spawned(_ worker: Worker) {
            starting -= 1
            slots.append(Slot(worker: worker, phase: .busy))
        }

        /// The worker asked for by ``SubmitAction/spawn`` couldn't be made (no descriptor left).
        ///
        /// - Returns: The queued requests, to end, when no worker is left to serve them.
        mutating func spawnFailed() -> [Request] {
            starting -= 1
            guard slots.isEmpty, starting == 0 else { return [] }
            defer { clearQueue() }
            return Array(queue[queueStart...])
        }

        /// The submitting thread is done handing a request to `worker`.
        ///
        /// - Parameters:
        ///   - early: What it sent on the worker's connection, if anything.
        ///   - answerDeadline: When the response to what it sent must have begun.
        /// - Returns: Whether to ring the worker's doorbell: it waits for the handoff, nothing was sent
        ///   (the worker sends it), or the response is due before the worker's wait would end (the
        ///   worker must be up to enforce the timeout).
        mutating func handOffDone(_ worker: Worker, early: Early?, answerDeadline: MonotonicTime?) -> Bool {
            guard let index = index(of: worker), case .handingOff(let request, let idleDeadline, let workerWaits) = slots[index].phase else {
                return false
            }
            slots[index].phase = .assigned(request, early)
            if workerWaits { return true }
            guard early != nil, let answerDeadline else { return true }
            return answerDeadline < idleDeadline
        }

        /// A cancelled request leaves the queue.
        ///
        /// - Returns: Whether it was queued (so no worker will take it).
        mutating func withdraw(_ request: Request) -> Bool {
            guard let index = queue[queueStart...].firstIndex(where: { $0 === request }) else { return false }
            queue.remove(at: index)
            return true
        }

        /// The transport goes: idle workers end, busy ones once their request is done, queued
        /// requests are cancelled, new ones refused.
        ///
        /// - Returns: The queued requests, to end, and the idle workers, whose doorbells to ring.
        mutating func shutDown() -> (dropped: [Request], idle: [Worker]) {
            isShutDown = true
            let dropped = Array(queue[queueStart...])
            clearQueue()
            let idle = slots.compactMap { slot -> Worker? in
                guard case .idle = slot.phase else { return nil }
                return slot.worker
            }
            return (dropped, idle)
        }

        // MARK: Workers

        /// `worker` is done with its request (before reporting its end, so that a request submitted in
        /// response reuses it), with `socket` the socket of the connection it keeps, if any.
        mutating func workerFinished(_ worker: Worker, socket: Socket?, now: MonotonicTime) {
            guard let index = index(of: worker) else { return }
            if queueStart < queue.count {
                slots[index].phase = .assigned(queue[queueStart], nil)
                queueStart += 1
                if queueStart == queue.count {
                    clearQueue()
                } else if queueStart > 64, queueStart * 2 > queue.count {
                    queue.removeFirst(queueStart)
                    queueStart = 0
                }
            } else if isShutDown {
                slots[index].phase = .ending
            } else {
                slots[index].phase = .idle(socket: socket, deadline: now.adding(nanoseconds: idleTimeout))
            }
        }

        /// `worker` looks for work, at `now`; `connectionSpoke` when its idle connection became
        /// readable (the server closed it, or sent something unasked).
        mutating func nextWork(for worker: Worker, now: MonotonicTime, connectionSpoke: Bool) -> NextAction {
            guard let index = index(of: worker) else { return .end }
            switch slots[index].phase {
            case .assigned(let request, let early):
                slots[index].phase = .busy
                return .run(request, early)
            case .handingOff(let request, let idleDeadline, _):
                slots[index].phase = .handingOff(request, idleDeadline: idleDeadline, workerWaits: true)
                return .waitForHandOff
            case .idle(_, let deadline) where !isShutDown && !connectionSpoke && now < deadline:
                return .wait(until: deadline)
            case .idle, .ending, .busy:
                // `.busy` can't look for work: ending the worker is the safe answer all the same.
                slots.remove(at: index)
                return .end
            }
        }

        // MARK: Private

        // Both look at the slots in place: copying a slot out to test it costs more than the test.

        private func index(of worker: Worker) -> Int? {
            for index in slots.indices where slots[index].worker === worker { return index }
            return nil
        }

        /// The idle worker whose wait began last: the latest deadline.
        private func lastIdle() -> Int? {
            var found: Int?
            var latest = MonotonicTime(nanoseconds: 0)
            for index in slots.indices {
                guard let deadline = slots[index].phase.idleDeadline, found == nil || deadline >= latest else { continue }
                found = index
                latest = deadline
            }
            return found
        }

        private mutating func clearQueue() {
            queue.removeAll(keepingCapacity: true)
            queueStart = 0
        }
    }
}
