#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time on the system's monotonic clock, in nanoseconds: what the deadlines of socket waits
/// are counted in, in the native transport and the sandbox.
///
/// Not `ContinuousClock.Instant`: that type is not frozen, so outside the standard library every
/// copy, sum and comparison of one is a call through its value witnesses, and a value holding one
/// (a deadline in a pending send, a worker's idle deadline) is copied the same way. Measured on the
/// native transport, that was a few per cent of the instructions of a request. This one is a
/// `UInt64`, inlined where it is used (public for that, as ``Locked`` is).
///
/// Sums saturate, and a number of seconds that is negative, not finite or too large for the clock is
/// read as zero or as "as late as can be": no timeout a caller gives makes it trap.
public struct MonotonicTime: Comparable, Hashable, Sendable {
    /// Nanoseconds since an arbitrary point (the system's boot, usually).
    public let nanoseconds: UInt64

    /// The latest time there is: a deadline that never comes.
    public static let distantFuture = MonotonicTime(nanoseconds: .max)

    /// The time `nanoseconds` after the clock's origin.
    @inlinable
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// Now.
    @inlinable
    public static var now: MonotonicTime {
        var spec = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicTime(nanoseconds: UInt64(max(0, spec.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, spec.tv_nsec)))
    }

    /// The whole nanoseconds in `seconds`: 0 for a negative or NaN value, `UInt64.max` for one too
    /// large (or infinite).
    @inlinable
    public static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        let nanoseconds = seconds * 1_000_000_000
        return nanoseconds < 18_000_000_000_000_000_000 ? UInt64(nanoseconds) : .max
    }

    /// The time `seconds` later (saturating).
    @inlinable
    public func adding(seconds: Double) -> MonotonicTime {
        adding(nanoseconds: Self.nanoseconds(seconds))
    }

    /// The time `nanoseconds` later (saturating).
    @inlinable
    public func adding(nanoseconds: UInt64) -> MonotonicTime {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        return MonotonicTime(nanoseconds: overflow ? .max : sum)
    }

    /// `seconds` from now.
    @inlinable
    public static func now(plus seconds: Double) -> MonotonicTime {
        now.adding(seconds: seconds)
    }

    /// The milliseconds from `now` to this time, rounded up, as `poll` takes them: 0 once it has
    /// passed, at most `Int32.max`.
    @inlinable
    public func pollMilliseconds(from now: MonotonicTime) -> Int32 {
        guard nanoseconds > now.nanoseconds else { return 0 }
        let milliseconds = (nanoseconds - now.nanoseconds) / 1_000_000 + 1
        return milliseconds < UInt64(Int32.max) ? Int32(milliseconds) : .max
    }

    @inlinable
    public static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }
}
