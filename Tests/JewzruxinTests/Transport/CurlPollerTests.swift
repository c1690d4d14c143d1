import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinPrimitives
import CJewzruxinCurl
#if canImport(Glibc)
import Glibc
#endif

/// The curl loop's wait: sockets watched as libcurl asks, one given up kept in the set until it turns
/// ready, a wake-up that isn't lost. On a socket pair, without libcurl.
@Suite("Curl transport: the poller")
struct CurlPollerTests {
    /// A poller and a connected pair of stream sockets, closed after `body`.
    static func withPollerAndPair(_ body: (_ poller: CurlPoller, _ watched: Int32, _ peer: Int32) throws -> Void) throws {
        var failure: Int32 = 0
        let poller = try #require(CurlPoller(failure: &failure))
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try body(poller, fds[0], fds[1])
    }

    static func send(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = read(fd, &buffer, buffer.count)
    }

    static func wait(_ poller: CurlPoller, milliseconds: UInt64 = 200) -> [CurlPoller.Event] {
        var events: [CurlPoller.Event] = []
        poller.wait(until: MonotonicTime.now.adding(nanoseconds: milliseconds * 1_000_000), into: &events)
        return events
    }

    @Test("a watched socket is reported when readable, with the IN mask; a wake-up ends a wait with no socket")
    func readableAndWake() throws {
        try Self.withPollerAndPair { poller, watched, peer in
            poller.watch(watched, Int32(JZ_POLL_IN))
            #expect(Self.wait(poller, milliseconds: 20).isEmpty)
            Self.send(peer)
            let events = Self.wait(poller)
            #expect(events.map(\.fd) == [watched])
            #expect(events.first.map { $0.mask & Int32(JZ_CSELECT_IN) != 0 } == true)
            Self.drain(watched)
            poller.wake()
            let start = MonotonicTime.now
            #expect(Self.wait(poller, milliseconds: 5_000).isEmpty)
            #expect(MonotonicTime.now < start.adding(nanoseconds: 2_000_000_000))
        }
    }

    @Test("a socket libcurl gave up stays watched until it turns ready, then leaves; wanted again, it is back")
    func givenUpThenWantedAgain() throws {
        try Self.withPollerAndPair { poller, watched, peer in
            poller.watch(watched, Int32(JZ_POLL_IN))
            poller.watch(watched, Int32(JZ_POLL_REMOVE))
            Self.send(peer)
            let events = Self.wait(poller)
            if CurlPoller.seesChangesDuringWait {
                // Still in the epoll set: found ready once, then taken out as no longer wanted.
                #expect(events.map(\.fd) == [watched])
                #expect(!poller.isWanted(watched))
                #expect(Self.wait(poller, milliseconds: 20).isEmpty)
            } else {
                #expect(events.isEmpty)
            }
            poller.watch(watched, Int32(JZ_POLL_IN))
            #expect(Self.wait(poller).map(\.fd) == [watched])
            #expect(poller.isWanted(watched))
        }
    }
}
