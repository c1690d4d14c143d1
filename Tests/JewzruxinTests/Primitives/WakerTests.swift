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
        #expect(waker.wait(for: -1, events: 0, until: .now + .milliseconds(1)) == .timedOut)
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
