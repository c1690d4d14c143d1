import Dispatch
import Jewzruxin
import Synchronization

/// A spinner drawn on the terminal while requests are in flight, driven by a
/// ``NetworkActivityIndicator``.
///
/// The playground arms it around each request (``arm(label:)``, ``disarm()``): it turns when the
/// indicator says a cycle is active, after a short delay so fast answers don't flicker, and erases
/// itself when the count comes back to zero or the request ends. It only draws on a terminal.
final class Spinner: Sendable {
    /// The frames, drawn one after the other.
    static let frames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// How long a request runs before the spinner shows.
    static let delay: DispatchTimeInterval = .milliseconds(150)
    /// The time between frames.
    static let interval: DispatchTimeInterval = .milliseconds(80)

    private struct State {
        var label: String?
        var timer: (any DispatchSourceTimer)?
        var frame = 0
        var drawn = false
    }

    private let console: Console
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "PlaygroundKit.Spinner")

    /// Creates a spinner.
    ///
    /// - Parameter console: Where it draws; nothing is drawn unless the console redraws lines.
    init(console: Console) {
        self.console = console
    }

    /// Makes the spinner follow `indicator`: it spins while the count is above zero (and it is armed).
    ///
    /// - Parameter indicator: The indicator of the session the requests run on.
    func observe(_ indicator: NetworkActivityIndicator) {
        indicator.observer = { [weak self] count in self?.activityChanged(active: count > 0) }
    }

    /// Lets the spinner show for the request about to start.
    ///
    /// - Parameter label: The text after the spinner, such as `GET /hello/`.
    func arm(label: String) {
        state.withLock { $0.label = label }
    }

    /// Stops and erases the spinner; nothing shows until the next ``arm(label:)``.
    func disarm() {
        state.withLock { s in
            s.label = nil
            stop(&s)
        }
    }

    private func activityChanged(active: Bool) {
        guard console.redraws else { return }
        state.withLock { s in
            guard active, s.label != nil else {
                stop(&s)
                return
            }
            guard s.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.delay, repeating: Self.interval)
            timer.setEventHandler { [weak self] in self?.tick() }
            s.timer = timer
            timer.resume()
        }
    }

    private func tick() {
        state.withLock { s in
            guard let label = s.label, s.timer != nil else { return }
            console.raw("\r" + console.paint(Self.frames[s.frame % Self.frames.count], .cyan) + " " + label + "\u{1B}[K")
            s.frame += 1
            s.drawn = true
        }
    }

    /// Cancels the timer and erases what was drawn; called under the lock.
    private func stop(_ s: inout State) {
        s.timer?.cancel()
        s.timer = nil
        if s.drawn {
            console.raw("\r\u{1B}[K")
            s.drawn = false
        }
    }
}
