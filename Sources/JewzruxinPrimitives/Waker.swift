#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``Waker`` could not be made.
package struct WakerError: Error, Equatable {
    /// The `errno` of the failed `pipe` call (usually `EMFILE`: no descriptor left).
    package let code: Int32
}

/// Wakes threads blocked in `poll`, from any thread: the package's one self-pipe, used by the native
/// transport (a transfer's cancel, a worker's doorbell) and by the sandbox (its stop signal).
///
/// Why a pipe: a thread blocked on a socket waits in `poll`, and a pipe is the one thing `poll` can
/// wait on next to a socket on every platform the package builds on (`eventfd` is Linux's only,
/// kqueue's user events Apple's only).
///
/// Why it stays readable until ``reset()``: ``wake()`` writes one byte that only ``reset()`` reads
/// back, so a wake-up can't be missed. Every thread waiting on it wakes, and so does every wait that
/// begins later: a cancel that comes between two socket waits of a transfer ends the next one, and the
/// sandbox's stop ends every thread's wait, however many there are and whenever they begin. Whoever
/// resets must then look again at what the wake-up was for (under the lock that guards it), since a
/// reset also clears a wake that came just before it.
///
/// A flag under the lock records the byte, so at most one is ever in the pipe: ``wake()`` never
/// blocks, repeated wakes cost nothing, and ``reset()`` reads only when there is a byte to read. The
/// write and the read are made under that lock, the waker's own, so that the flag and the pipe agree;
/// each is one non-blocking system call on a pipe that no one else reads or writes.
package final class Waker: Sendable {
    /// The end to include in a `poll` set, readable while the waker is signalled.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32
    private let state = Locked(State())

    private struct State {
        var signalled = false
        var closed = false
    }

    /// What ``wait(for:events:until:)`` saw.
    package enum WaitOutcome: Equatable, Sendable {
        /// The descriptor is ready for one of the events (or has an error or hang-up to be read).
        case ready
        /// The waker was woken (before or during the wait).
        case woken
        /// The deadline passed.
        case timedOut
        /// `poll` failed with this `errno`.
        case failed(Int32)
    }

    /// Makes a pipe, both ends non-blocking and closed on `exec`.
    ///
    /// - Throws: ``WakerError`` when no pipe can be made.
    package init() throws(WakerError) {
        var fds: (Int32, Int32) = (-1, -1)
        let status = withUnsafeMutablePointer(to: &fds) {
            $0.withMemoryRebound(to: Int32.self, capacity: 2) { pipe($0) }
        }
        guard status == 0 else { throw WakerError(code: errno) }
        for fd in [fds.0, fds.1] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = fds.0
        writeDescriptor = fds.1
    }

    deinit {
        close()
    }

    /// Whether it was woken since the last ``reset()``.
    package var isSignalled: Bool {
        state.withLock { $0.signalled }
    }

    /// Wakes every current and later wait until ``reset()``. Idempotent; does nothing once closed.
    package func wake() {
        state.withLock { state in
            guard !state.signalled, !state.closed else { return }
            state.signalled = true
            var byte: UInt8 = 1
            _ = write(writeDescriptor, &byte, 1)
        }
    }

    /// Clears a wake-up, so the next wait blocks again.
    package func reset() {
        state.withLock { state in
            guard state.signalled, !state.closed else { return }
            state.signalled = false
            var byte: UInt8 = 0
            _ = read(readDescriptor, &byte, 1)
        }
    }

    /// Closes the pipe now rather than when the waker goes. Call it only once no thread can wait on
    /// it any more: a descriptor closed under a `poll` may be reused by the next `open`.
    package func close() {
        let open = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard open else { return }
        _ = closeDescriptor(readDescriptor)
        _ = closeDescriptor(writeDescriptor)
    }

    /// Waits until `descriptor` is ready for `events`, the waker is woken, or `deadline` passes.
    ///
    /// A wake-up wins over a ready descriptor. A deadline that has passed still gets one look (a `poll`
    /// that doesn't block). `poll` is retried when a signal interrupts it.
    ///
    /// - Parameters:
    ///   - descriptor: The descriptor to wait for; a negative one is ignored (as `poll` has it), which
    ///     makes the call a sleep that a wake-up ends.
    ///   - events: `poll` events of `descriptor`, such as `POLLIN`.
    ///   - deadline: When to give up; `nil` waits without limit.
    package func wait(for descriptor: Int32, events: Int16, until deadline: MonotonicTime?) -> WaitOutcome {
        var fds = (
            pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptor, events: events, revents: 0)
        )
        while true {
            let timeout = deadline.map { $0.pollMilliseconds(from: .now) } ?? -1
            // A homogeneous tuple is laid out as an array of its elements: no array is allocated.
            let count = withUnsafeMutablePointer(to: &fds) {
                $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, timeout) }
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                return .failed(code)
            }
            if fds.0.revents != 0 { return .woken }
            if fds.1.revents != 0 { return .ready }
            if let deadline, MonotonicTime.now >= deadline { return .timedOut }
        }
    }
}

/// `close` from inside the type, whose own `close()` hides it.
private func closeDescriptor(_ fd: Int32) -> Int32 {
    close(fd)
}
