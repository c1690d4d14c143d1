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
/// Guard a value, not `Void`: with a zero-size value, an access to it is an access to the mutex's
/// address, which TSan's view of Swift's exclusivity checks once took for a race with the next
/// thread locking it (hundreds of false reports per test run, when HostPool briefly did that).
///
/// One allocation holds the value and the mutex: the mutex is the tail element of a `ManagedBuffer`
/// (``LockedStorage``) whose header is the value, so making a `Locked` costs one `malloc` and
/// letting it go one `free`, where a class with a separately allocated mutex cost two of each (a
/// request makes several).
///
/// `@unchecked Sendable` invariant: the value is read and written only inside `withLock`, while the
/// mutex is held; the mutex lives in the storage's tail allocation, which never moves, is
/// initialized once when the storage is made and destroyed only in its `deinit`, when no thread can
/// hold a reference. Copies of a `Locked` share one storage: it is a reference to the guarded value.
public struct Locked<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockedStorage<Value>

    /// Guards `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: calling `withLock` on the
    /// same instance from `body` deadlocks.
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let (value, mutex) = storage.pointers
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
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
        let mutex = storage.pointers.mutex
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
        let (value, mutex) = storage.pointers
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

/// The storage of a ``Locked``: the value as the header, the mutex as the one tail element.
///
/// Public (and not for use outside ``Locked``) so that `Locked`'s inlinable methods can reach it.
public final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// A storage holding `value`, its mutex initialized.
    @inlinable
    static func make(_ value: sending Value) -> LockedStorage {
        let made = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockedStorage.self)
        made.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return made
    }

    /// The value and the mutex. Both stay where they are while the storage lives: reading them
    /// takes no lock and no exclusivity check (the mutex makes each access to the value exclusive).
    @inlinable
    var pointers: (value: UnsafeMutablePointer<Value>, mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        withUnsafeMutablePointers { ($0, $1) }
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            _ = mutex.deinitialize(count: 1)
        }
    }
}
