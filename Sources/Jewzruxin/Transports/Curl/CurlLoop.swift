import CJewzruxinCurl
import JewzruxinPrimitives
import Foundation

/// One thread running one `curl_multi` handle: every transfer of a curl transport is added,
/// driven, timed out, cancelled and completed here.
///
/// The multi handle and the easy handles in it are used on this thread only; other threads hand
/// their requests over through ``submit(_:)`` and ``cancel(_:)``, which queue the request under a
/// lock and wake the thread with `curl_multi_wakeup`. No transfer callback, event or completion
/// runs under that lock.
final class CurlLoop: @unchecked Sendable {
    private struct Inbox {
        var starts: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
        var resumes: [CurlTransfer] = []
        var isStopping = false
    }

    /// The multi handle; used on the loop's thread only, but for `curl_multi_wakeup`.
    private let multi: UnsafeMutableRawPointer?
    private let inbox = Locked(Inbox())
    /// The transfers in the multi handle, by easy handle. The loop's thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Easy handles of ended transfers, reset, for the next ones: making one costs more than
    /// resetting one. The loop's thread only.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private static let idleHandleLimit = 32
    /// How long the thread waits for sockets before it looks at timeouts again, at most.
    private static let longestPoll = MonotonicTime.nanoseconds(1)

    init(maximumConnectionsPerHost: Int) {
        multi = jz_multi_init()
        guard let multi else { return }
        _ = jz_multi_setopt_long(multi, Int32(JZ_MOPT_MAX_HOST_CONNECTIONS), maximumConnectionsPerHost)
        _ = jz_multi_setopt_long(multi, Int32(JZ_MOPT_PIPELINING), Int(JZ_PIPE_MULTIPLEX))
        let thread = Thread { [self] in run() }
        thread.name = "Jewzruxin.CurlTransport"
        thread.start()
    }

    /// Starts `transfer` on the loop's thread.
    func submit(_ transfer: CurlTransfer) {
        let accepted = multi != nil && inbox.withLock { inbox -> Bool in
            guard !inbox.isStopping else { return false }
            inbox.starts.append(transfer)
            return true
        }
        if accepted {
            wake()
        } else {
            let reason = multi == nil ? "curl_multi_init failed" : "the transport was released"
            transfer.complete(with: URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: reason]))
        }
    }

    /// Stops `transfer`, on the loop's thread: it completes with `URLError(.cancelled)` unless it
    /// has completed already.
    func cancel(_ transfer: CurlTransfer) {
        inbox.withLock { $0.cancels.append(transfer) }
        wake()
    }

    /// Resumes reading the response of `transfer`, paused while its handler was behind.
    func resume(_ transfer: CurlTransfer) {
        inbox.withLock { $0.resumes.append(transfer) }
        wake()
    }

    /// Ends the thread once the transfers in flight have ended; they run to their end.
    func stop() {
        inbox.withLock { $0.isStopping = true }
        wake()
    }

    private func wake() {
        if let multi { _ = jz_multi_wakeup(multi) }
    }

    // MARK: The loop's thread

    private func run() {
        guard let multi else { return }
        while true {
            let (starts, cancels, resumes, isStopping) = inbox.withLock { inbox in
                defer { inbox.starts = []; inbox.cancels = []; inbox.resumes = [] }
                return (inbox.starts, inbox.cancels, inbox.resumes, inbox.isStopping)
            }
            for transfer in cancels { cancelOnLoop(transfer, multi: multi) }
            for transfer in resumes { transfer.resumeReading() }
            for transfer in starts { startOnLoop(transfer, multi: multi) }
            if isStopping, active.isEmpty { break }
            var running: Int32 = 0
            _ = jz_multi_perform(multi, &running)
            var easy: UnsafeMutableRawPointer?
            var result: Int32 = 0
            while jz_multi_next_done(multi, &easy, &result) != 0 {
                guard let easy, let transfer = active.removeValue(forKey: easy) else { continue }
                _ = jz_multi_remove(multi, easy)
                transfer.finished(code: result)
            }
            let now = MonotonicTime.now
            var wake = now.adding(nanoseconds: Self.longestPoll)
            for (easy, transfer) in active {
                let deadline = transfer.idleDeadline
                if deadline <= now {
                    active.removeValue(forKey: easy)
                    _ = jz_multi_remove(multi, easy)
                    transfer.timedOut()
                } else {
                    wake = min(wake, deadline)
                }
            }
            var ready: Int32 = 0
            _ = jz_multi_poll(multi, wake.pollMilliseconds(from: now), &ready)
        }
        for easy in idleHandles { jz_easy_cleanup(easy) }
        idleHandles = []
        _ = jz_multi_cleanup(multi)
    }

    /// An easy handle with default options, for a transfer about to start. The loop's thread only.
    func makeHandle() -> UnsafeMutableRawPointer? {
        idleHandles.popLast() ?? jz_easy_init()
    }

    /// Takes back the handle of an ended transfer, out of the multi handle. The loop's thread only.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        guard idleHandles.count < Self.idleHandleLimit else {
            jz_easy_cleanup(easy)
            return
        }
        jz_easy_reset(easy)
        idleHandles.append(easy)
    }

    private func startOnLoop(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        guard let easy = transfer.prepare() else { return }
        let code = jz_multi_add(multi, easy)
        guard code == JZ_M_OK else {
            transfer.complete(with: URLError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "libcurl refused the transfer: " + String(cString: jz_multi_strerror(code)),
            ]))
            return
        }
        active[easy] = transfer
    }

    private func cancelOnLoop(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        if let easy = transfer.easyHandle, active.removeValue(forKey: easy) != nil {
            _ = jz_multi_remove(multi, easy)
        }
        transfer.complete(with: URLError(.cancelled))
    }
}
