import Foundation
import Synchronization

/// The progress line of a download: redrawn in place on a terminal as bytes arrive, printed once
/// at the end otherwise.
///
/// ``update(written:expected:)`` is called from the session's delegate queue for every chunk;
/// redraws are limited to one every ``redrawInterval``. ``finish(written:expected:succeeded:)``
/// prints the final line (or erases the line after a failure).
final class DownloadProgress: Sendable {
    /// The shortest time between two redraws.
    static let redrawInterval: Duration = .milliseconds(100)

    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
        var finished = false
    }

    private let console: Console
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let state = Mutex(State())

    /// Starts measuring.
    ///
    /// - Parameter console: Where the line goes; it is redrawn only when the console redraws lines.
    init(console: Console) {
        self.console = console
        self.start = clock.now
    }

    /// Records the bytes received so far and redraws the line on a terminal.
    ///
    /// - Parameters:
    ///   - written: The bytes received so far.
    ///   - expected: The bytes expected, negative when unknown.
    func update(written: Int64, expected: Int64) {
        guard console.redraws else { return }
        let now = clock.now
        state.withLock { s in
            guard !s.finished else { return }
            if let last = s.lastDraw, last.duration(to: now) < Self.redrawInterval { return }
            s.lastDraw = now
            s.drawn = true
            let line = ProgressFormatter.line(done: written, total: expected, elapsed: seconds(since: start, to: now))
            console.raw("\r" + line + "\u{1B}[K")
        }
    }

    /// Ends the line: the final progress after a success, nothing (the line erased) after a failure.
    ///
    /// - Parameters:
    ///   - written: The bytes received in all.
    ///   - expected: The bytes that were expected, negative when unknown.
    ///   - succeeded: Whether the download completed.
    func finish(written: Int64, expected: Int64, succeeded: Bool) {
        let now = clock.now
        state.withLock { s in
            let prefix = s.drawn ? "\r" : ""
            s.finished = true
            guard succeeded else {
                if s.drawn { console.raw("\r\u{1B}[K") }
                s.drawn = false
                return
            }
            let line = ProgressFormatter.line(
                done: written, total: expected, elapsed: seconds(since: start, to: now), finished: true)
            console.raw(prefix + line + (s.drawn ? "\u{1B}[K" : "") + "\n")
            s.drawn = false
        }
    }

    private func seconds(since start: ContinuousClock.Instant, to now: ContinuousClock.Instant) -> Double {
        let duration = start.duration(to: now)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
