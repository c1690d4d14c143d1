#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the one lock of the package, used by the library and the
/// sandbox alike, instead of `Synchronization.Mutex`, `NSLock` or a mutex of their own.
///
/// Why not `Mutex`: on Linux it is built directly on `futex` system calls that ThreadSanitizer doesn't
/// intercept, so every access made under it is reported as a data race. A pthread mutex is understood
/// by TSan (and by Helgrind/DRD), which keeps `swift test --sanitize=thread` quiet about correct code
/// and able to report real races. (`Mutex` also needs newer Apple systems than the package declares.)
/// Why not `NSLock`: it is an Objective-C object on Apple platforms and a wrapper of this same mutex
/// on Linux; one type is one thing to reason about.
///
/// The package needs no condition variable: a native transport's worker that waits for another
/// thread waits in `poll` on its doorbell pipe, and the sandbox waits for its threads with a
/// `DispatchGroup`.
///
/// The API mirrors `Mutex.withLock`, with region-based isolation (`sending`) for the value going in
/// and the results coming out, so a non-`Sendable` value can be guarded as with `Mutex`.
///
/// Public, where the rest of the target is `package`, for speed: Swift 6.3 gives other modules the
/// body of an `@inlinable` function only when it is public, and a `package` `withLock` was called
/// unspecialized, with a metadata lookup per call (a quarter more instructions per request on the
/// native transport). The target is not a product, so only this package's modules can import it.
///
/// Guard a value, not `Void`: a zero-size value sits at the address of `mutex`, and TSan's
/// exclusivity checks then take the holder's access to it for a race with the next thread reading
/// `mutex` to lock it (hundreds of false reports per test run, when HostPool briefly did that).
///
/// `@unchecked Sendable` invariant: `value` is read and written only inside `withLock`, while `mutex`
/// is held; `mutex` is allocated once in `init`, never moves (it's heap-allocated, as POSIX requires of
/// a mutex in use) and is destroyed only in `deinit`, when no thread can hold a reference.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Not checked for exclusive access at run time: it is only accessed in `withLock`, with
    /// `mutex` held, which already makes each access exclusive (and is not reentrant). The
    /// runtime's check (`swift_beginAccess`, a thread-local set of accesses in progress) cost some
    /// 110 instructions per `withLock`, a few thousand per request.
    @exclusivity(unchecked) @usableFromInline var value: Value

    /// Guards `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: calling `withLock` on the
    /// same instance from `body` deadlocks.
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Takes the lock and lets it go at once, touching nothing.
    ///
    /// For ThreadSanitizer: a task resumed by a continuation from a thread outside Swift
    /// concurrency (a transport's, a dispatch queue's) is ordered after what that thread did
    /// before resuming it, but Swift's runtime doesn't tell TSan so, which then reports races on
    /// what the task reads (Scripts/tsan-repro/continuation-resume.swift). When the resuming thread
    /// passes the fence just before `resume`, and the task just after its `await`, TSan sees the
    /// order. Two uncontended lock operations.
    @inlinable
    public func fence() {
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` with exclusive access to the value if no other thread holds it now; `nil`
    /// without waiting if one does (or if this thread does: it doesn't deadlock, unlike
    /// ``withLock(_:)``).
    @inlinable
    public func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
