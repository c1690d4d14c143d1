#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the library's lock, used instead of
/// `Synchronization.Mutex`.
///
/// On Linux, `Mutex` is built directly on `futex` system calls that ThreadSanitizer doesn't
/// intercept, so every access made under it is reported as a data race. A pthread mutex is
/// understood by TSan (and by Helgrind/DRD), which keeps `swift test --sanitize=thread` quiet
/// about correct code and able to report real races.
///
/// The API mirrors `Mutex.withLock`, with region-based isolation (`sending`) for the value
/// going in and the results coming out, so a non-`Sendable` value can be guarded as with `Mutex`.
///
/// `@unchecked Sendable` invariant: `value` is read and written only inside `withLock`, while
/// `mutex` is held; `mutex` is allocated once in `init`, never moves (it's heap-allocated, as
/// POSIX requires of a mutex in use) and is destroyed only in `deinit`, when no thread can hold
/// a reference.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: consuming sending Value) {
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
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
