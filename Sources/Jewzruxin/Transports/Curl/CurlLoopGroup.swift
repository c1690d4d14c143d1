import JewzruxinPrimitives
import Foundation

/// The loops of one curl transport: each a thread of its own with a `curl_multi` handle
/// (``CurlLoop``), so that a transport with many transfers in flight isn't held to the one
/// thread's share of the processors, on a busy machine above all.
///
/// **Which loop.** A transfer goes to the loop with the fewest transfers that haven't ended, the
/// first of equals: one after another, requests stay on the first loop and reuse its connections;
/// side by side, they spread. A loop's thread starts the first time a transfer goes to it, so a
/// transport that never has two transfers at once runs one thread.
///
/// **The connection limit.** Each loop keeps its own connections, so the per-host limit is shared
/// out between them (3 and 3 of 6): however the transfers spread, no more than the limit are open
/// to a host. With a limit of 1 there is one loop.
final class CurlLoopGroup: Sendable {
    /// Each loop's share of the per-host connection limit; as many as there are loops.
    let shares: [Int]
    private let startsOnCallingThread: Bool
    /// The loops started so far (`nil` for one not started), and how many transfers each has that
    /// haven't ended.
    private let slots: Locked<[(loop: CurlLoop?, transfers: Int)]>

    /// How many loops a transport runs by default: one per processor, at most four.
    static var defaultLoopCount: Int {
        min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// - Parameters:
    ///   - loopCount: The most loops to run; fewer when the per-host limit is lower.
    ///   - maximumConnectionsPerHost: The transport's per-host limit, shared out.
    ///   - startsOnCallingThread: Passed to each ``CurlLoop``.
    init(loopCount: Int, maximumConnectionsPerHost: Int, startsOnCallingThread: Bool) {
        shares = Self.shares(of: maximumConnectionsPerHost, loops: loopCount)
        self.startsOnCallingThread = startsOnCallingThread
        slots = Locked(Array(repeating: (nil, 0), count: shares.count))
    }

    /// `limit` shared out over at most `loops` loops, each with one connection at least, the first
    /// ones with one more when it doesn't divide.
    static func shares(of limit: Int, loops: Int) -> [Int] {
        let count = max(1, min(loops, limit))
        let limit = max(1, limit)
        return (0..<count).map { limit / count + ($0 < limit % count ? 1 : 0) }
    }

    /// The loop `transfer` goes to, counted as one of its transfers until ``ended(on:)``.
    func assign() -> (loop: CurlLoop, index: Int) {
        let (index, loop) = slots.withLock { slots -> (Int, CurlLoop?) in
            var chosen = 0
            for index in slots.indices where slots[index].transfers < slots[chosen].transfers { chosen = index }
            slots[chosen].transfers += 1
            return (chosen, slots[chosen].loop)
        }
        if let loop { return (loop, index) }
        // Started outside the lock: it makes a thread. Another caller may have started it meanwhile.
        let started = CurlLoop(maximumConnectionsPerHost: shares[index], startsOnCallingThread: startsOnCallingThread)
        let installed = slots.withLock { slots -> CurlLoop in
            if let existing = slots[index].loop { return existing }
            slots[index].loop = started
            return started
        }
        if installed !== started { started.stop() }
        return (installed, index)
    }

    /// A transfer of the loop at `index` has ended (or was let go without starting).
    func ended(on index: Int) {
        slots.withLock { $0[index].transfers -= 1 }
    }

    /// The first loop, if it has started: for tests.
    var firstLoop: CurlLoop? {
        slots.withLock { $0[0].loop }
    }

    /// How many loops have started: for tests.
    var startedLoops: Int {
        slots.withLock { slots in slots.count { $0.loop != nil } }
    }

    /// Ends every loop's thread once its transfers have ended.
    func stop() {
        let loops = slots.withLock { $0.compactMap(\.loop) }
        for loop in loops { loop.stop() }
    }
}
