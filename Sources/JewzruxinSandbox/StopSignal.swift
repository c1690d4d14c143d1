import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The outcome of waiting for a descriptor.
enum WaitOutcome {
    /// The descriptor is ready (or has an error/hang-up condition to be read).
    case ready
    /// The sandbox is stopping.
    case stopped
    /// The timeout elapsed.
    case timedOut
}

/// The sandbox-wide stop flag, backed by a self-pipe.
///
/// Firing writes one byte into the pipe and never reads it back, so the read end stays
/// readable forever: every thread that includes it in a `poll()` set wakes up at once,
/// whether it was waiting for socket I/O, a new connection, or a response delay.
final class StopSignal: Sendable {
    private let readFD: Int32
    private let writeFD: Int32
    private let fired = Locked(false)

    init() throws(SandboxError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw SandboxError.pipeCreationFailed(errno: Platform.lastError)
        }
        readFD = fds[0]
        writeFD = fds[1]
        Platform.prepareDescriptor(readFD)
        Platform.prepareDescriptor(writeFD)
    }

    /// Whether `fire()` has been called.
    var isFired: Bool { fired.withLock { $0 } }

    /// Raises the flag and wakes every waiter. Idempotent.
    func fire() {
        let first = fired.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Closes the pipe. Call only once no thread can wait on it any more.
    func close() {
        Platform.closeDescriptor(readFD)
        Platform.closeDescriptor(writeFD)
    }

    /// Waits until `fd` reports one of `events`, the signal fires, or the timeout elapses.
    ///
    /// - Parameter timeout: seconds; `nil` waits without limit.
    func wait(for fd: Int32, events: Int16, timeout: Double? = nil) -> WaitOutcome {
        let deadline = timeout.map { Platform.monotonicNanoseconds() &+ Self.nanoseconds($0) }
        while true {
            let milliseconds = Self.remainingMilliseconds(until: deadline)
            if milliseconds == 0, deadline != nil, fd < 0 { return .timedOut }
            var set: [(fd: Int32, events: Int16)] = [(readFD, Int16(POLLIN))]
            if fd >= 0 { set.append((fd, events)) }
            guard let revents = Platform.pollDescriptors(set, timeoutMilliseconds: milliseconds) else {
                return .ready  // let the caller's next I/O call report the real error
            }
            if revents[0] != 0 { return .stopped }
            if fd >= 0, revents[1] != 0 { return .ready }
            if let deadline, Platform.monotonicNanoseconds() >= deadline { return .timedOut }
        }
    }

    /// Sleeps for `seconds`, ending early when the signal fires.
    ///
    /// - Returns: `false` if the sandbox is stopping.
    func sleep(_ seconds: Double) -> Bool {
        guard seconds > 0 else { return !isFired }
        return wait(for: -1, events: 0, timeout: seconds) != .stopped
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 86_400) * 1_000_000_000)
    }

    /// Milliseconds until `deadline`, rounded up, or -1 (infinite) without a deadline.
    private static func remainingMilliseconds(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return -1 }
        let now = Platform.monotonicNanoseconds()
        guard deadline > now else { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }
}
