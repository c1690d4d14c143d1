import JewzruxinPrimitives

/// A continuation resumed with a value handed over from any thread (a transport's, a dispatch
/// queue's, a thread of its own), ordered so that ThreadSanitizer sees it.
///
/// Swift's runtime doesn't tell TSan that a task resumed by a continuation from a thread outside
/// Swift concurrency runs after what that thread did before resuming it, so TSan reports races on
/// what the task then reads (Scripts/tsan-repro/continuation-resume.swift). The library fences
/// its own awaiting calls with `Locked.fence()`; the tests' own continuations do the same through
/// this type: the resuming thread passes the fence before `resume`, the task after its `await`.
public struct Handover<Value: Sendable, Failure: Error>: Sendable {
    fileprivate let continuation: CheckedContinuation<Value, Failure>
    fileprivate let order: Locked<UInt8>

    /// Resumes the awaiting task with `value`.
    public func resume(returning value: sending Value) {
        order.fence()
        continuation.resume(returning: value)
    }

    /// Resumes the awaiting task by throwing `error`.
    public func resume(throwing error: Failure) {
        order.fence()
        continuation.resume(throwing: error)
    }
}

extension Handover where Value == Void {
    /// Resumes the awaiting task.
    public func resume() { resume(returning: ()) }
}

/// `withCheckedContinuation`, resumed through a ``Handover``.
public func withHandover<Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Handover<Value, Never>) -> Void
) async -> Value {
    let order = Locked<UInt8>(0)
    let value = await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Value, Never>) in
        body(Handover(continuation: continuation, order: order))
    }
    order.fence()
    return value
}

/// `withCheckedThrowingContinuation`, resumed through a ``Handover``.
public func withThrowingHandover<Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Handover<Value, any Error>) -> Void
) async throws -> Value {
    let order = Locked<UInt8>(0)
    do {
        let value = try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Value, any Error>) in
            body(Handover(continuation: continuation, order: order))
        }
        order.fence()
        return value
    } catch {
        order.fence()
        throw error
    }
}
