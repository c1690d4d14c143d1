import JewzruxinPrimitives
import Testing
@testable import Jewzruxin

private final class Request {}
private final class Worker {}

/// A pool of fake requests and workers; a socket is a number, what was sent early a string.
private typealias Machine = HostPool.StateMachine<Request, Worker, Int, String>

/// The machine with `limit` and a 60 s idle timeout.
private func machine(limit: Int = 6) -> Machine {
    Machine(limit: limit, idleTimeout: 60)
}

/// Starts a worker for `request` (which must be asked for).
private func spawn(_ machine: inout Machine, for request: Request) -> Worker {
    let worker = Worker()
    guard case .spawn = machine.submit(request) else {
        Issue.record("no worker was asked for")
        return worker
    }
    machine.spawned(worker)
    return worker
}

/// The request `machine` hands to `worker` when it looks for work now, with what was sent early.
private func taken(_ machine: inout Machine, by worker: Worker, at now: MonotonicTime = .now) -> (Request, String?)? {
    guard case .run(let request, let early) = machine.nextWork(for: worker, now: now, connectionSpoke: false) else { return nil }
    return (request, early)
}

@Suite("Native host pool state machine: workers, idle connections, handoffs, the limit and the queue")
struct HostPoolStateMachineTests {
    @Test("a request starts a worker; once idle, the worker is handed the next request with its connection's socket")
    func handOffToIdleWorker() {
        var pool = machine()
        let first = Request(), second = Request()
        let worker = spawn(&pool, for: first)
        #expect(pool.connectionCount == 1)
        let t0 = MonotonicTime.now
        pool.workerFinished(worker, socket: 7, now: t0)
        guard case .wait(let until) = pool.nextWork(for: worker, now: t0, connectionSpoke: false) else {
            Issue.record("an idle worker should wait")
            return
        }
        #expect(until == t0.adding(seconds: 60))
        guard case .handOff(let chosen, socket: 7) = pool.submit(second) else { Issue.record("not handed off"); return }
        #expect(chosen === worker)
        // Sent early, answer due after the idle wait would end: the worker wakes on the answer, no ring.
        #expect(pool.handOffDone(worker, early: "sent", answerDeadline: t0.adding(seconds: 120)) == false)
        // The answer made the socket readable: that is not the server speaking unasked.
        guard case .run(let request, let early) = pool.nextWork(for: worker, now: t0, connectionSpoke: true) else {
            Issue.record("the handed-off request wasn't run")
            return
        }
        #expect(request === second && early == "sent")
        #expect(pool.connectionCount == 1)
    }

    @Test("the doorbell rings when nothing was sent, when the answer is due before the idle wait ends, or the worker waits")
    func ringing() {
        let t0 = MonotonicTime.now
        for (early, due, rings) in [(nil, nil, true), ("sent", t0.adding(seconds: 30), true), ("sent", t0.adding(seconds: 61), false)] as [(String?, MonotonicTime?, Bool)] {
            var pool = machine()
            let worker = spawn(&pool, for: Request())
            pool.workerFinished(worker, socket: 3, now: t0)
            _ = pool.submit(Request())
            #expect(pool.handOffDone(worker, early: early, answerDeadline: due) == rings)
        }
        // A worker that looked during the handoff waits for it: it is rung whatever was sent.
        var pool = machine()
        let worker = spawn(&pool, for: Request())
        pool.workerFinished(worker, socket: 3, now: t0)
        let request = Request()
        _ = pool.submit(request)
        guard case .waitForHandOff = pool.nextWork(for: worker, now: t0, connectionSpoke: true) else {
            Issue.record("the worker should wait for the handoff, not use or close the connection")
            return
        }
        #expect(pool.handOffDone(worker, early: "sent", answerDeadline: t0.adding(seconds: 600)) == true)
        #expect(taken(&pool, by: worker, at: t0)?.0 === request)
    }

    @Test("the server closing a pooled connection ends its idle worker; one closing it during a handoff doesn't")
    func serverClosesPooledConnection() {
        var pool = machine()
        let t0 = MonotonicTime.now
        let worker = spawn(&pool, for: Request())
        pool.workerFinished(worker, socket: 3, now: t0)
        guard case .end = pool.nextWork(for: worker, now: t0, connectionSpoke: true) else { Issue.record("not ended"); return }
        #expect(pool.connectionCount == 0)
        guard case .spawn = pool.submit(Request()) else { Issue.record("an ended worker was reused"); return }

        // Closed as a request is handed over: the worker waits, then runs it (it finds the connection
        // closed and opens another; nothing was sent early on it).
        var racing = machine()
        let other = spawn(&racing, for: Request())
        racing.workerFinished(other, socket: 4, now: t0)
        let request = Request()
        _ = racing.submit(request)
        guard case .waitForHandOff = racing.nextWork(for: other, now: t0, connectionSpoke: true) else { Issue.record("ended"); return }
        #expect(racing.handOffDone(other, early: nil, answerDeadline: nil) == true)
        let next = taken(&racing, by: other, at: t0)
        #expect(next?.0 === request && next?.1 == nil)
    }

    @Test("an idle worker ends at its idle timeout, not before")
    func idleTimeout() {
        var pool = machine()
        let t0 = MonotonicTime.now
        let worker = spawn(&pool, for: Request())
        pool.workerFinished(worker, socket: nil, now: t0)
        guard case .wait = pool.nextWork(for: worker, now: t0.adding(seconds: 59), connectionSpoke: false) else { Issue.record("ended early"); return }
        guard case .end = pool.nextWork(for: worker, now: t0.adding(seconds: 60), connectionSpoke: false) else { Issue.record("not ended"); return }
        #expect(pool.connectionCount == 0)
        #expect(pool.phase(of: worker) == nil)
    }

    @Test("the per-host limit: workers being made count, requests beyond it queue in order and go to the workers that finish")
    func perHostLimit() {
        var pool = machine(limit: 2)
        let requests = (0..<5).map { _ in Request() }
        guard case .spawn = pool.submit(requests[0]), case .spawn = pool.submit(requests[1]) else {
            Issue.record("no workers asked for")
            return
        }
        #expect(pool.connectionCount == 2, "workers being made count against the limit")
        for request in requests[2...] {
            guard case .queued = pool.submit(request) else { Issue.record("not queued beyond the limit"); return }
        }
        let first = Worker(), second = Worker()
        pool.spawned(first)
        pool.spawned(second)
        #expect(pool.queuedCount == 3)
        let now = MonotonicTime.now
        pool.workerFinished(second, socket: 1, now: now)
        pool.workerFinished(first, socket: 2, now: now)
        #expect(taken(&pool, by: first)?.0 === requests[3])
        #expect(taken(&pool, by: second)?.0 === requests[2])
        pool.workerFinished(second, socket: 1, now: now)
        #expect(taken(&pool, by: second)?.0 === requests[4])
        pool.workerFinished(first, socket: 2, now: now)
        guard case .wait = pool.nextWork(for: first, now: now, connectionSpoke: false) else { Issue.record("not idle"); return }
        #expect(pool.connectionCount == 2 && pool.queuedCount == 0)
    }

    @Test("a cancelled request leaves the queue once; one a worker took can't be withdrawn")
    func withdraw() {
        var pool = machine(limit: 1)
        let worker = spawn(&pool, for: Request())
        let queued = Request(), kept = Request()
        _ = pool.submit(queued)
        _ = pool.submit(kept)
        #expect(pool.withdraw(queued) == true)
        #expect(pool.withdraw(queued) == false)
        pool.workerFinished(worker, socket: nil, now: .now)
        #expect(taken(&pool, by: worker)?.0 === kept)
        #expect(pool.withdraw(kept) == false)
    }

    @Test("the request goes to the worker that became idle last")
    func lastIdleFirst() {
        var pool = machine()
        let early = spawn(&pool, for: Request()), late = spawn(&pool, for: Request())
        let t0 = MonotonicTime.now
        pool.workerFinished(late, socket: 2, now: t0.adding(seconds: 1))
        pool.workerFinished(early, socket: 1, now: t0)
        guard case .handOff(let chosen, socket: 2) = pool.submit(Request()) else { Issue.record("not handed off"); return }
        #expect(chosen === late)
    }

    @Test("shutdown: queued requests are dropped, idle workers rung and ended, busy ones end after their request, new ones refused")
    func shutDown() {
        var pool = machine(limit: 2)
        let busy = spawn(&pool, for: Request()), idle = spawn(&pool, for: Request())
        pool.workerFinished(idle, socket: 5, now: .now)
        let queued = Request()
        _ = pool.submit(Request())  // handed to the idle worker
        #expect(pool.handOffDone(idle, early: nil, answerDeadline: nil) == true)
        _ = pool.submit(queued)
        let (dropped, ringing) = pool.shutDown()
        #expect(dropped.count == 1 && dropped.first === queued)
        #expect(ringing.isEmpty, "the worker handed a request is not idle")
        guard case .refuse = pool.submit(Request()) else { Issue.record("accepted after shutdown"); return }
        #expect(taken(&pool, by: idle) != nil, "a request handed over before the shutdown still runs")
        pool.workerFinished(idle, socket: 5, now: .now)
        guard case .end = pool.nextWork(for: idle, now: .now, connectionSpoke: false) else { Issue.record("not ended"); return }
        pool.workerFinished(busy, socket: nil, now: .now)
        guard case .end = pool.nextWork(for: busy, now: .now, connectionSpoke: false) else { Issue.record("not ended"); return }
        #expect(pool.connectionCount == 0)

        var waiting = machine()
        let worker = spawn(&waiting, for: Request())
        waiting.workerFinished(worker, socket: 1, now: .now)
        let (none, rung) = waiting.shutDown()
        #expect(none.isEmpty && rung.count == 1 && rung.first === worker)
        guard case .end = waiting.nextWork(for: worker, now: .now, connectionSpoke: false) else { Issue.record("not ended"); return }
    }

    @Test("a worker that can't be made leaves its queue stranded only when no other worker is left to serve it")
    func spawnFailure() {
        var pool = machine(limit: 2)
        _ = spawn(&pool, for: Request())
        guard case .spawn = pool.submit(Request()) else { Issue.record("no second worker asked for"); return }
        _ = pool.submit(Request())
        #expect(pool.spawnFailed().isEmpty, "the first worker serves the queue")
        #expect(pool.queuedCount == 1 && pool.connectionCount == 1)

        var alone = machine(limit: 1)
        guard case .spawn = alone.submit(Request()) else { Issue.record("no worker asked for"); return }
        let stranded = Request()
        _ = alone.submit(stranded)
        let failed = alone.spawnFailed()
        #expect(failed.count == 1 && failed.first === stranded)
        #expect(alone.queuedCount == 0 && alone.connectionCount == 0)
    }

    @Test("events for a worker in the wrong phase, or one that ended, change nothing and end nothing else")
    func strayEvents() {
        var pool = machine()
        let worker = spawn(&pool, for: Request())
        #expect(pool.handOffDone(worker, early: "x", answerDeadline: nil) == false, "a busy worker has no handoff")
        guard case .busy? = pool.phase(of: worker) else { Issue.record("not busy"); return }
        let stranger = Worker()
        #expect(pool.handOffDone(stranger, early: nil, answerDeadline: nil) == false)
        pool.workerFinished(stranger, socket: 1, now: .now)
        guard case .end = pool.nextWork(for: stranger, now: .now, connectionSpoke: false) else { Issue.record("a stranger got work"); return }
        // A busy worker asking for work is ended rather than left in a phase it can't leave.
        guard case .end = pool.nextWork(for: worker, now: .now, connectionSpoke: false) else { Issue.record("not ended"); return }
        #expect(pool.connectionCount == 0)
    }
}
