import Testing
@testable import Jewzruxin

/// The lifecycle transitions on their own, no network.
@Suite("Cycle state machine")
struct StateMachineTests {
    typealias Machine = HTTPCycle.StateMachine

    @Test("a run goes idle → running → processing → finished")
    func happyPath() {
        var machine = Machine()
        #expect(machine.state == .idle)
        let r1 = machine.start()
        #expect(r1 == .send(attempt: 1))
        #expect(machine.state == .running)
        #expect(machine.isCurrent(1))
        let r2 = machine.transportCompleted(attempt: 1)
        #expect(r2)
        #expect(machine.state == .processing)
        let r3 = machine.processingCompleted(attempt: 1)
        #expect(r3)
        #expect(machine.state == .finished)
    }

    @Test("completion happens once: a second completion of the same run is refused")
    func completesOnce() {
        var machine = Machine()
        _ = machine.start()
        let r4 = machine.transportCompleted(attempt: 1)
        #expect(r4)
        let r5 = machine.transportCompleted(attempt: 1)
        #expect(!r5)
        let r6 = machine.processingCompleted(attempt: 1)
        #expect(r6)
        let r7 = machine.processingCompleted(attempt: 1)
        #expect(!r7)
        let r8 = machine.failed(attempt: 1)
        #expect(!r8)
    }

    @Test("start while running or processing is refused")
    func startWhileRunning() {
        var machine = Machine()
        _ = machine.start()
        let r9 = machine.start()
        #expect(r9 == .rejectAlreadyRunning)
        _ = machine.transportCompleted(attempt: 1)
        let r10 = machine.start()
        #expect(r10 == .rejectAlreadyRunning)
        _ = machine.processingCompleted(attempt: 1)
        let r11 = machine.start()
        #expect(r11 == .send(attempt: 2))
    }

    @Test("cancel: explicit doesn't notify, implicit does; only a running cycle can be cancelled")
    func cancel() {
        var machine = Machine()
        let r12 = machine.cancel(explicitly: false)
        #expect(r12 == .none)
        _ = machine.start()
        let r13 = machine.cancel(explicitly: true)
        #expect(r13 == .cancel(notify: false))
        #expect(machine.state == .cancelled)
        let r14 = machine.cancel(explicitly: false)
        #expect(r14 == .none)

        var processing = Machine()
        _ = processing.start()
        _ = processing.transportCompleted(attempt: 1)
        let r15 = processing.cancel(explicitly: false)
        #expect(r15 == .cancel(notify: true))
        let r16 = processing.processingCompleted(attempt: 1)
        #expect(!r16)
    }

    @Test("after a cancel, late transport callbacks of that run are ignored")
    func lateCallbacksIgnored() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.cancel(explicitly: true)
        #expect(!machine.isCurrent(1))
        let r17 = machine.transportCompleted(attempt: 1)
        #expect(!r17)
        let r18 = machine.failed(attempt: 1)
        #expect(!r18)
        #expect(machine.state == .cancelled)
    }

    @Test("restart makes the running attempt stale")
    func restart() {
        var machine = Machine()
        _ = machine.start()
        let r19 = machine.restart()
        #expect(r19 == 2)
        let r20 = machine.transportCompleted(attempt: 1)
        #expect(!r20)
        let r21 = machine.transportCompleted(attempt: 2)
        #expect(r21)
        let r22 = machine.restart()
        #expect(r22 == 3)
        let r23 = machine.processingCompleted(attempt: 2)
        #expect(!r23)
        #expect(machine.state == .running)
    }

    @Test("a finished or cancelled cycle can start again")
    func startAgain() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.failed(attempt: 1)
        let r24 = machine.start()
        #expect(r24 == .send(attempt: 2))
        _ = machine.cancel(explicitly: false)
        let r25 = machine.start()
        #expect(r25 == .send(attempt: 3))
    }

    @Test("a retry waits, then sends a new attempt; a cancel during the wait wins")
    func retryWait() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.transportCompleted(attempt: 1)
        let waiting = machine.waitToRetry(after: 1)
        #expect(waiting)
        #expect(machine.state == .waitingToRetry)
        #expect(machine.isActive)
        let next = machine.retry(after: 1)
        #expect(next == 2)
        #expect(machine.state == .running)

        _ = machine.transportCompleted(attempt: 2)
        _ = machine.waitToRetry(after: 2)
        let cancel = machine.cancel(explicitly: false)
        #expect(cancel == .cancel(notify: true))
        let late = machine.retry(after: 2)
        #expect(late == nil)
        #expect(machine.state == .cancelled)
    }

    @Test("a resend (authentication, 307) starts the next attempt of the same run")
    func resend() {
        var machine = Machine()
        _ = machine.start()
        let run = machine.run
        _ = machine.transportCompleted(attempt: 1)
        let next = machine.resend(after: 1)
        #expect(next == 2)
        #expect(machine.run == run)
        let stale = machine.resend(after: 1)
        #expect(stale == nil)
    }

    @Test("the deadline ends only the run it was armed for")
    func deadline() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.restart()
        let old = machine.deadlinePassed(run: 1)
        #expect(!old)
        let current = machine.deadlinePassed(run: 2)
        #expect(current)
        #expect(machine.state == .finished)
        let again = machine.deadlinePassed(run: 2)
        #expect(!again)
    }
}
