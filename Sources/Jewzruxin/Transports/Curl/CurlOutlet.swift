import Dispatch
import JewzruxinPrimitives

/// The way out of the loop's thread for the events of a transfer with a large body, so that a slow
/// content handler holds up its own transfer only.
///
/// A transfer reports its head and the first ``CurlTransfer/inlineBodyLimit`` bytes through its
/// loop's outbox, on the loop's thread, which costs no hop for the usual response. Past that, its body chunks and its end go
/// through a serial queue of its own, in order: the loop's thread queues a chunk and goes on with
/// the other transfers. When ``highWater`` bytes wait for the handler, ``hasRoom()`` refuses the
/// next chunk, the write callback pauses the transfer (`CURL_WRITEFUNC_PAUSE`: libcurl keeps the
/// bytes and stops reading that stream), and once the handler has brought the waiting bytes down to
/// ``lowWater``, ``delivered(_:)`` says to resume it. Memory stays within about ``highWater`` plus
/// libcurl's buffer and what one chunk decodes to (a compressed body) per transfer, whatever the
/// size of the body.
final class CurlOutlet: Sendable {
    /// Bytes waiting for the handler past which the transfer is paused.
    static let highWater = 1 << 20
    /// Bytes waiting at which a paused transfer resumes.
    static let lowWater = 1 << 18

    private struct State {
        var waiting = 0
        var isPaused = false
    }

    private let state = Locked(State())
    private let queue: DispatchQueue

    /// An outlet whose events wait until ``open()``: its transfer's events posted to the loop's
    /// outbox before it go first.
    init() {
        queue = DispatchQueue(label: "Jewzruxin.CurlTransfer.delivery", attributes: .initiallyInactive, target: .global())
    }

    /// Lets the events given so far, and later ones, run. Once.
    func open() {
        queue.activate()
    }

    /// Whether more bytes may wait; `false` marks the transfer paused, and a later ``delivered(_:)``
    /// says when to resume it.
    func hasRoom() -> Bool {
        state.withLock { state in
            guard state.waiting < Self.highWater else {
                state.isPaused = true
                return false
            }
            return true
        }
    }

    /// `count` more bytes wait for the handler.
    func add(_ count: Int) {
        state.withLock { $0.waiting += count }
    }

    /// `count` bytes added reached the handler: `true` when the transfer was paused and should now
    /// resume (said once per pause).
    func delivered(_ count: Int) -> Bool {
        state.withLock { state in
            state.waiting -= count
            guard state.isPaused, state.waiting <= Self.lowWater else { return false }
            state.isPaused = false
            return true
        }
    }

    /// Runs `work` after everything given before.
    func async(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
