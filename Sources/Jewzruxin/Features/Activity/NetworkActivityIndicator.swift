import Dispatch

/// Counts the cycles in flight, so an app can show that it is using the network.
///
/// A session adds one when a cycle starts sending and takes it away when the cycle finishes, fails
/// or is cancelled, whatever happens in between (retries, redirects, authentication). The count
/// never goes below zero. Sessions share ``shared`` unless given another indicator, or `nil` to
/// opt out (``HTTPSession/networkActivityIndicator``).
public final class NetworkActivityIndicator: RunActivity {
    /// The indicator sessions use by default.
    public static let shared = NetworkActivityIndicator()

    private struct State {
        var count = 0
        var observer: (@Sendable (Int) -> Void)?
    }

    private let state = Locked(State())
    /// Observers are told in the order the count changed, one at a time, off the caller's thread.
    private let observerQueue = DispatchQueue(label: "Jewzruxin.NetworkActivityIndicator")

    /// Creates an indicator with a count of zero.
    public init() {}

    /// How many cycles are in flight.
    public var count: Int { state.withLock { $0.count } }

    /// Whether any cycle is in flight: the moment to show a spinner.
    public var isActive: Bool { count > 0 }

    /// Called with the new count after every change, in order, on a private serial queue.
    public var observer: (@Sendable (Int) -> Void)? {
        get { state.withLock { $0.observer } }
        set { state.withLock { $0.observer = newValue } }
    }

    /// Adds one cycle in flight.
    func increase() { change(by: 1) }

    /// Takes one cycle away; the count stays at zero if it is already there.
    func decrease() { change(by: -1) }

    private func change(by delta: Int) {
        state.withLock { s in
            let updated = max(0, s.count + delta)
            guard updated != s.count else { return }
            s.count = updated
            if let observer = s.observer {
                // Enqueued under the lock so observers see the changes in order.
                observerQueue.async { observer(updated) }
            }
        }
    }
}

extension NetworkActivityIndicator {
    func runBegan() { increase() }
    func runEnded() { decrease() }
}

extension HTTPSession {
    /// The counter of cycles in flight that this session's cycles add to; ``NetworkActivityIndicator/shared``
    /// unless changed, `nil` to opt out.
    public var networkActivityIndicator: NetworkActivityIndicator? {
        get { runActivity as? NetworkActivityIndicator }
        set { runActivity = newValue }
    }
}
