import Dispatch
import Jewzruxin
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns Ctrl-C (SIGINT, received through a `DispatchSource`) into the cancellation of the request
/// in flight, so that it stops the request and not the playground.
///
/// The playground runs each cycle through ``run(_:)``. When SIGINT arrives while a cycle runs, the
/// cycle is cancelled (its `start()` throws `CancellationError`). When it arrives with no cycle
/// running, ``whenIdle`` decides: in a script the playground stops (status 130); at the prompt,
/// where the terminal is in raw mode, Ctrl-C is a key press that clears the line instead.
final class Interrupter: Sendable {
    /// What SIGINT does when no request is running.
    enum IdleAction: Sendable {
        /// Nothing: the prompt deals with Ctrl-C itself.
        case ignore
        /// End the process with status 130, as a shell script does.
        case exit
    }

    private struct State {
        var cycle: HTTPCycle?
        var interrupted = false
        var source: (any DispatchSourceSignal)?
    }

    private let state = Mutex(State())
    /// What SIGINT does when no request is running.
    let whenIdle: IdleAction
    private let onExit: @Sendable () -> Void

    /// Creates an interrupter; it listens for SIGINT once ``install()`` is called.
    ///
    /// - Parameters:
    ///   - whenIdle: What SIGINT does when no request is running.
    ///   - onExit: Called before the process exits on an idle SIGINT (to restore the terminal).
    init(whenIdle: IdleAction, onExit: @escaping @Sendable () -> Void = {}) {
        self.whenIdle = whenIdle
        self.onExit = onExit
    }

    /// Starts handling SIGINT: the default action (ending the process) is replaced by ``interrupt()``.
    func install() {
        signal(SIGINT, SIG_IGN)
        state.withLock { s in
            guard s.source == nil else { return }
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "PlaygroundKit.SIGINT"))
            source.setEventHandler { [weak self] in self?.interrupt() }
            source.resume()
            s.source = source
        }
    }

    /// Runs a cycle so that Ctrl-C cancels it.
    ///
    /// - Parameter cycle: The cycle, not started.
    /// - Returns: The response.
    /// - Throws: What `HTTPCycle.start()` throws: `CancellationError` after Ctrl-C.
    @discardableResult
    func run(_ cycle: HTTPCycle) async throws -> HTTPResponse {
        state.withLock { $0.cycle = cycle }
        defer { state.withLock { $0.cycle = nil } }
        return try await cycle.start()
    }

    /// Whether SIGINT arrived since the last call, which resets it.
    func takeInterrupted() -> Bool {
        state.withLock { s in
            defer { s.interrupted = false }
            return s.interrupted
        }
    }

    /// Handles one SIGINT: cancels the running cycle, or applies ``whenIdle``.
    func interrupt() {
        let cycle = state.withLock { s -> HTTPCycle? in
            s.interrupted = true
            return s.cycle
        }
        if let cycle {
            cycle.cancel(explicitly: false)
        } else if whenIdle == .exit {
            onExit()
            exit(130)
        }
    }
}
