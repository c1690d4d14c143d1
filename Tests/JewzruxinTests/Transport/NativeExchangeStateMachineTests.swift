import Testing
@testable import Jewzruxin

/// A stand-in for the waker and the doorbell: the machine only holds them.
private final class FakeWaker {}

private typealias Machine = NativeExchange.StateMachine<FakeWaker>

@Suite("Native transfer state machine: resume, handoff, run and the cancels racing them")
struct NativeExchangeStateMachineTests {
    @Test("a transfer is submitted once, handed off, run and finished; a cancel after completion does nothing")
    func lifecycle() {
        var machine = Machine()
        let doorbell = FakeWaker(), waker = FakeWaker()
        #expect(machine.resume() == .submit)
        #expect(machine.resume() == .none)
        #expect(machine.handedOff(to: doorbell) == true)
        #expect(machine.start(with: waker) == .run)
        #expect(machine.finishUnstarted() == false, "the pool can't end a transfer a worker runs")
        #expect(machine.finishRunning() == false, "no cancel saw it running: the waker has no wake-up coming")
        guard case .finished = machine.state else { Issue.record("not finished: \(machine.state)"); return }
        guard case .none = machine.cancel() else { Issue.record("a cancel after completion acted"); return }
        #expect(machine.resume() == .none)
    }

    @Test("cancel before resume: reported at once, and the resume after it sends nothing")
    func cancelBeforeResume() {
        var machine = Machine()
        guard case .report = machine.cancel() else { Issue.record("not reported"); return }
        guard case .none = machine.cancel() else { Issue.record("a second cancel acted"); return }
        #expect(machine.resume() == .none)
        #expect(machine.start(with: FakeWaker()) == .skip)
        #expect(machine.finishUnstarted() == false, "reported once")
    }

    @Test("cancel while queued: withdrawn from the pool, whose finish reports once; or ended by the worker that took it")
    func cancelWhileQueued() {
        var withdrawn = Machine()
        _ = withdrawn.resume()
        guard case .withdraw(ringing: nil) = withdrawn.cancel() else { Issue.record("not withdrawn"); return }
        #expect(withdrawn.finishUnstarted() == true)
        #expect(withdrawn.finishUnstarted() == false)
        #expect(withdrawn.start(with: FakeWaker()) == .skip)

        // The worker took it from the queue before the pool could withdraw it.
        var taken = Machine()
        _ = taken.resume()
        guard case .withdraw(ringing: nil) = taken.cancel() else { Issue.record("not withdrawn"); return }
        #expect(taken.start(with: FakeWaker()) == .finishCancelled)
        #expect(taken.finishUnstarted() == false)
    }

    @Test("cancel during a handoff: before it, nothing is sent early; after it, the worker's doorbell rings")
    func cancelAroundHandoff() {
        let doorbell = FakeWaker()
        var before = Machine()
        _ = before.resume()
        _ = before.cancel()
        #expect(before.handedOff(to: doorbell) == false, "a cancelled request isn't sent early")
        #expect(before.start(with: FakeWaker()) == .finishCancelled)

        var after = Machine()
        _ = after.resume()
        #expect(after.handedOff(to: doorbell) == true)
        guard case .withdraw(let ringing) = after.cancel() else { Issue.record("not withdrawn"); return }
        #expect(ringing === doorbell)
        #expect(after.start(with: FakeWaker()) == .finishCancelled, "the worker ends it without sending")
    }

    @Test("cancel during send or receive interrupts the worker's waker, once; the worker collects that wake-up")
    func cancelWhileRunning() {
        var machine = Machine()
        let waker = FakeWaker()
        _ = machine.resume()
        #expect(machine.start(with: waker) == .run)
        guard case .interrupt(let interrupted) = machine.cancel() else { Issue.record("not interrupted"); return }
        #expect(interrupted === waker)
        guard case .none = machine.cancel() else { Issue.record("a second cancel acted"); return }
        #expect(machine.finishUnstarted() == false)
        #expect(machine.finishRunning() == true, "the wake-up of the cancel must be collected before the waker serves again")
        #expect(machine.finishRunning() == false)
    }

    @Test("every event in every state: what it returns and where it leaves the transfer")
    func everyEventInEveryState() {
        let doorbell = FakeWaker(), waker = FakeWaker()
        /// The machine in a named state, reached by the events that lead there.
        func machine(_ name: String) -> Machine {
            var machine = Machine()
            switch name {
            case "initial": break
            case "submitted": _ = machine.resume()
            case "handed off": _ = machine.resume(); _ = machine.handedOff(to: doorbell)
            case "cancelled while submitted": _ = machine.resume(); _ = machine.cancel()
            case "running": _ = machine.resume(); _ = machine.start(with: waker)
            case "cancelled while running": _ = machine.resume(); _ = machine.start(with: waker); _ = machine.cancel()
            default: _ = machine.resume(); _ = machine.start(with: waker); _ = machine.finishRunning()  // finished
            }
            return machine
        }
        /// The state's name, payloads by identity.
        func name(_ state: Machine.State) -> String {
            switch state {
            case .initial: return "initial"
            case .submitted(nil, false): return "submitted"
            case .submitted(let ringing, false): return ringing === doorbell ? "handed off" : "submitted?"
            case .submitted(_, true): return "cancelled while submitted"
            case .running(let running, let cancelled):
                guard running === waker else { return "running?" }
                return cancelled ? "cancelled while running" : "running"
            case .finished: return "finished"
            }
        }
        let states = ["initial", "submitted", "handed off", "cancelled while submitted", "running", "cancelled while running", "finished"]
        for state in states { #expect(name(machine(state).state) == state) }

        // resume: only the first submits.
        for state in states {
            var m = machine(state)
            #expect(m.resume() == (state == "initial" ? .submit : .none), "resume in \(state)")
            #expect(name(m.state) == (state == "initial" ? "submitted" : state))
        }
        // cancel
        let cancels: [String: (String, String)] = [
            "initial": ("report", "finished"), "submitted": ("withdraw", "cancelled while submitted"),
            "handed off": ("withdraw+ring", "cancelled while submitted"), "cancelled while submitted": ("none", "cancelled while submitted"),
            "running": ("interrupt", "cancelled while running"), "cancelled while running": ("none", "cancelled while running"),
            "finished": ("none", "finished"),
        ]
        for state in states {
            var m = machine(state)
            let action: String
            switch m.cancel() {
            case .none: action = "none"
            case .report: action = "report"
            case .withdraw(nil): action = "withdraw"
            case .withdraw(let ringing): action = ringing === doorbell ? "withdraw+ring" : "withdraw?"
            case .interrupt(let interrupted): action = interrupted === waker ? "interrupt" : "interrupt?"
            }
            #expect(action == cancels[state]?.0, "cancel in \(state)")
            #expect(name(m.state) == cancels[state]?.1, "cancel in \(state)")
        }
        // handedOff: only a submitted transfer, and it may be sent early unless cancelled.
        for state in states {
            var m = machine(state)
            let sendsEarly = m.handedOff(to: doorbell)
            #expect(sendsEarly == (state == "submitted" || state == "handed off"), "handedOff in \(state)")
            let after = state == "submitted" ? "handed off" : state
            #expect(name(m.state) == after, "handedOff in \(state)")
        }
        // start
        let starts: [String: (Machine.StartAction, String)] = [
            "initial": (.skip, "initial"), "submitted": (.run, "running"), "handed off": (.run, "running"),
            "cancelled while submitted": (.finishCancelled, "finished"), "running": (.skip, "running"),
            "cancelled while running": (.skip, "cancelled while running"), "finished": (.skip, "finished"),
        ]
        for state in states {
            var m = machine(state)
            #expect(m.start(with: waker) == starts[state]?.0, "start in \(state)")
            #expect(name(m.state) == starts[state]?.1, "start in \(state)")
        }
        // finishUnstarted: the pool ends what no worker runs, once.
        for state in states {
            var m = machine(state)
            let ends = ["initial", "submitted", "handed off", "cancelled while submitted"].contains(state)
            #expect(m.finishUnstarted() == ends, "finishUnstarted in \(state)")
            #expect(name(m.state) == (ends ? "finished" : state), "finishUnstarted in \(state)")
        }
        // finishRunning: the worker ends what it runs; a cancel seen while running is owed a collect.
        for state in states {
            var m = machine(state)
            let running = state == "running" || state == "cancelled while running"
            #expect(m.finishRunning() == (state == "cancelled while running"), "finishRunning in \(state)")
            #expect(name(m.state) == (running ? "finished" : state), "finishRunning in \(state)")
        }
    }
}
