import Foundation

/// The task in which a cycle's interceptors run for one attempt (adapting its request, or deciding
/// on its failure), owned by the state machine's phase so that a cancel, a restart or the deadline
/// can stop it.
///
/// Made before its task, and registered with the machine first: a cancel may come before the task
/// is attached, and then cancels it as it is attached. The task is cancelled after this object's
/// lock is released, since cancelling runs the cancellation handlers of what it awaits (user code).
final class InterceptionTask: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    private let state = Locked(State())

    /// Runs `operation` in a new task, cancelled at once if ``cancel()`` came first.
    func run(_ operation: @escaping @Sendable () async -> Void) {
        let task = Task { await operation() }
        let cancelled = state.withLock { s -> Bool in
            if !s.isCancelled { s.task = task }
            return s.isCancelled
        }
        if cancelled { task.cancel() }
    }

    /// Cancels the task, or the one to come.
    func cancel() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.isCancelled = true
            defer { s.task = nil }
            return s.task
        }
        task?.cancel()
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }
}
