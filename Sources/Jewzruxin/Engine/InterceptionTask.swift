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

    /// Runs `operation` in a new task, cancelled at once if ``cancel()`` came first; made in
    /// `context` when there is one, so that it has the task-local values of the run's caller.
    func run(in context: TaskContext? = nil, _ operation: @escaping @Sendable () async -> Void) {
        guard let context else {
            start(operation)
            return
        }
        context.spawn { self.start(operation) }
    }

    private func start(_ operation: @escaping @Sendable () async -> Void) {
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

/// The task-local values of the code that began a run (a trace id, a `ServiceContext`), for the
/// interceptors of every attempt of it: a retry or a redirect begins on a timer or a transport's
/// thread, outside any task, where they would be gone.
///
/// Swift copies task-local values only into a task made inside the task that holds them, so this
/// keeps such a task waiting, made where the run began, and makes the interceptors' tasks inside
/// it. It ends when the run's cycle lets it go.
final class TaskContext: Sendable {
    private let spawns: AsyncStream<@Sendable () -> Void>.Continuation

    /// A context with the current task's values; `nil` outside a task, where there are none.
    static func capture() -> TaskContext? {
        withUnsafeCurrentTask { $0 == nil } ? nil : TaskContext()
    }

    private init() {
        let (stream, continuation) = AsyncStream<@Sendable () -> Void>.makeStream()
        spawns = continuation
        Task {
            for await spawn in stream { spawn() }
        }
    }

    deinit { spawns.finish() }

    /// Calls `body` inside the context's task: a `Task` it makes has the caller's values.
    func spawn(_ body: @escaping @Sendable () -> Void) {
        spawns.yield(body)
    }
}
