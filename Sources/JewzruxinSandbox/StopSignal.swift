import Foundation
import JewzruxinPrimitives

/// The outcome of waiting for a descriptor.
enum WaitOutcome {
    /// The descriptor is ready (or has an error/hang-up condition to be read).
    case ready
    /// The sandbox is stopping.
    case stopped
    /// The timeout elapsed.
    case timedOut
}

/// The sandbox-wide stop flag: a ``Waker`` that is fired once and never reset, so every thread that
/// waits on it, now or later, wakes at once, whether it was waiting for socket I/O, a new connection,
/// or a response delay.
final class StopSignal: Sendable {
    private let waker: Waker

    init() throws(SandboxError) {
        do {
            waker = try Waker()
        } catch {
            throw SandboxError.pipeCreationFailed(errno: error.code)
        }
    }

    /// Whether `fire()` has been called.
    var isFired: Bool { waker.isSignalled }

    /// Raises the flag and wakes every waiter. Idempotent.
    func fire() {
        waker.wake()
    }

    /// Closes the pipe. Call only once no thread can wait on it any more.
    func close() {
        waker.close()
    }

    /// Waits until `fd` reports one of `events`, the signal fires, or the timeout elapses.
    ///
    /// - Parameter timeout: seconds (at most a day); `nil` waits without limit.
    func wait(for fd: Int32, events: Int16, timeout: Double? = nil) -> WaitOutcome {
        wait(for: fd, events: events, until: timeout.map { MonotonicTime.now(plus: min($0, 86_400)) })
    }

    /// Waits until `fd` reports one of `events`, the signal fires, or `deadline` passes.
    func wait(for fd: Int32, events: Int16, until deadline: MonotonicTime?) -> WaitOutcome {
        switch waker.wait(for: fd, events: events, until: deadline) {
        case .woken: return .stopped
        case .timedOut: return .timedOut
        // A failed poll: let the caller's next I/O call report the real error.
        case .ready, .failed: return .ready
        }
    }

    /// Sleeps for `seconds`, ending early when the signal fires.
    ///
    /// - Returns: `false` if the sandbox is stopping.
    func sleep(_ seconds: Double) -> Bool {
        guard seconds > 0 else { return !isFired }
        return wait(for: -1, events: 0, timeout: seconds) != .stopped
    }
}
