import Foundation
import JewzruxinPrimitives
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Waker: the self-pipe of the transport and the sandbox")
struct WakerTests {
    @Test("a wake ends the current wait and every later one, until reset")
    func wakeIsLevelTriggered() async throws {
        let waker = try Waker()
        #expect(waker.wait(for: -1, events: 0, until: .now) == .timedOut)
        async let waited = Task.detached { waker.wait(for: -1, events: 0, until: nil) }.value
        waker.wake()
        #expect(await waited == .woken)
        #expect(waker.wait(for: -1, events: 0, until: nil) == .woken)
        waker.wake()
        #expect(waker.isSignalled)
        waker.reset()
        #expect(!waker.isSignalled)
        #expect(waker.wait(for: -1, events: 0, until: .now(plus: 0.001)) == .timedOut)
    }

    @Test("a ready descriptor ends the wait; a wake-up wins over it")
    func readiness() throws {
        let waker = try Waker()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { _ = close($0) } }
        #expect(waker.wait(for: fds[0], events: Int16(POLLIN), until: .now) == .timedOut)
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(waker.wait(for: fds[0], events: Int16(POLLIN), until: nil) == .ready)
        waker.wake()
        #expect(waker.wait(for: fds[0], events: Int16(POLLIN), until: nil) == .woken)
    }

    @Test("once closed, a wake does nothing")
    func closed() throws {
        let waker = try Waker()
        waker.close()
        waker.wake()
        #expect(!waker.isSignalled)
        waker.close()
    }
}

@Suite("MonotonicTime: deadlines that no timeout makes trap")
struct MonotonicTimeTests {
    @Test("seconds saturate: negative and NaN are none, infinite and huge are the distant future")
    func saturation() {
        let now = MonotonicTime.now
        #expect(now.adding(seconds: -1) == now)
        #expect(now.adding(seconds: .nan) == now)
        #expect(now.adding(seconds: .infinity) == .distantFuture)
        #expect(now.adding(seconds: 1e300) == .distantFuture)
        #expect(now.adding(seconds: 1.5).nanoseconds - now.nanoseconds == 1_500_000_000)
        #expect(MonotonicTime.now >= now)
    }

    @Test("poll milliseconds round up, are 0 once passed and at most Int32.max")
    func pollMilliseconds() {
        let now = MonotonicTime(nanoseconds: 1_000_000_000)
        #expect(now.pollMilliseconds(from: now) == 0)
        #expect(now.pollMilliseconds(from: now.adding(seconds: 1)) == 0)
        #expect(now.adding(nanoseconds: 1).pollMilliseconds(from: now) == 1)
        #expect(now.adding(nanoseconds: 1_500_000).pollMilliseconds(from: now) == 2)
        #expect(MonotonicTime.distantFuture.pollMilliseconds(from: now) == .max)
    }
}
