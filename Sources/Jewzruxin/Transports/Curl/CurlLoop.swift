import CJewzruxinCurl
import JewzruxinPrimitives
import Foundation

/// One `curl_multi` handle driven by `curl_multi_socket_action`, with a thread of its own that
/// waits on the sockets libcurl asks to watch (``CurlPoller``): every transfer of a curl transport
/// is added, driven, timed out, cancelled and completed here.
///
/// **The drive.** Whoever calls into the multi handle (or into an easy handle in it) holds the
/// drive, a lock that libcurl's callbacks run under. The loop's thread takes it for each round of
/// socket events and timers. A thread that starts a transfer takes it too when it is free and few
/// transfers are running (with many, the loop's thread is awake for their answers anyway), adds the
/// transfer and lets libcurl send the request at once (on Linux, where a socket it watches from there
/// is part of the loop's wait already, and with a libcurl that resolves names asynchronously, so
/// that the caller never waits for DNS): in the usual case, a request to a host with an idle
/// connection, the loop's thread then wakes only for the response, not also for the request. When
/// the drive is taken, the transfer waits in the inbox and the loop's thread is woken for it, as are
/// cancels and resumes always.
///
/// **No handler under the drive.** The callbacks that run under it only read and queue: what a
/// transfer reports (its head, its body up to ``CurlTransfer/inlineBodyLimit``, its end) goes to
/// the outbox with ``post(_:)``, and the loop's thread runs the outbox in order once it has let the
/// drive go. A thread that started a transfer and found something posted wakes the loop's thread
/// for it. Only the loop's thread runs the outbox, so a transfer's events keep their order and never
/// run on the thread of another transfer's caller.
final class CurlLoop: @unchecked Sendable {
    /// What other threads hand the loop's thread. Whoever puts the first item in an empty inbox
    /// wakes the thread; the others find it woken already, since the thread empties the whole
    /// inbox at once after it wakes: one wake-up (a write to the poller's doorbell) per round
    /// rather than per item, when many requests start at once.
    private struct Inbox {
        var starts: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
        var resumes: [CurlTransfer] = []
        var isStopping = false
        /// How many times an item found the inbox empty and woke the thread: for tests.
        var wakes = 0

        /// Adds what `add` puts in; returns whether the inbox was empty, the caller then wakes the
        /// thread.
        mutating func put(_ add: (inout Inbox) -> Void) -> Bool {
            let wasEmpty = starts.isEmpty && cancels.isEmpty && resumes.isEmpty
            add(&self)
            if wasEmpty { wakes += 1 }
            return wasEmpty
        }
    }

    /// What only the holder of the drive reads or writes: the multi handle's state, the easy
    /// handles in it and the idle ones, libcurl's timer, and the events posted.
    private struct Drive {
        /// The transfers in the multi handle, by easy handle.
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        /// When libcurl wants `JZ_SOCKET_TIMEOUT` acted on; `nil` for never.
        var timer: MonotonicTime?
        /// When the loop's thread wakes at the latest, set before it waits: a transfer started
        /// meanwhile that needs it earlier wakes it.
        var plannedWake = MonotonicTime.distantFuture
        /// Events to run on the loop's thread once the drive is let go.
        var outbox: [Event] = []
        /// The thread ended, the multi handle is gone.
        var isFinished = false
        /// Transfers started by the thread that submitted them, and by the loop's thread.
        var startedHere = 0
        var startedOnLoop = 0
    }

    /// The multi handle; `nil` when libcurl couldn't make one.
    private let multi: UnsafeMutableRawPointer?
    private let poller: CurlPoller?
    private let inbox = Locked(Inbox())
    /// Guards ``state``: held while calling into libcurl (module doc).
    private let drive = Locked(0)
    /// Read and written only while ``drive`` is held, which makes each access exclusive: not
    /// checked again at run time.
    @exclusivity(unchecked) private var state = Drive()
    /// How many transfers were running when the drive was last let go: read without it, by a thread
    /// deciding whether to start its transfer itself. (A lock of its own rather than an atomic:
    /// `Synchronization.Atomic` needs newer Apple systems than the package declares.)
    private let runningCount = Locked(0)
    /// Easy handles of ended transfers, for the next ones: making one costs more than resetting
    /// one. A primed handle kept the options its last transfer set, which were only those every
    /// plain GET sets alike (``CurlTransfer``): the next transfer sets only its own. Under the drive.
    @exclusivity(unchecked) private var idleHandles: [(handle: UnsafeMutableRawPointer, primed: Bool)] = []
    private static let idleHandleLimit = 32
    /// From how many transfers running a submitted transfer goes to the loop's thread, even when the
    /// drive is free.
    private static let busyTransferCount = 4
    /// How long the thread waits for sockets before it looks at timeouts again, at most.
    private static let longestWait = MonotonicTime.nanoseconds(1)
    /// Why the loop can't run, when it can't.
    private let failure: String?
    /// The idle connections libcurl keeps at most. Unset, it keeps four per easy handle in the multi
    /// handle at that moment: when fewer transfers run for an instant (a busy machine's client
    /// makes its requests late), it closes connections that the next burst opens again, each a TCP
    /// and TLS handshake.
    static func connectionCacheSize(maximumConnectionsPerHost: Int) -> Int {
        max(32, maximumConnectionsPerHost * 4)
    }

    /// Whether a thread that submits a transfer may start it itself (module doc).
    private let startsOnCallingThread: Bool

    /// - Parameters:
    ///   - maximumConnectionsPerHost: libcurl's limit of connections to one host.
    ///   - startsOnCallingThread: Whether a thread that submits a transfer may start it itself; only
    ///     when the poller sees sockets watched during a wait (``CurlPoller/seesChangesDuringWait``)
    ///     and libcurl resolves names without blocking.
    init(maximumConnectionsPerHost: Int, startsOnCallingThread: Bool) {
        self.startsOnCallingThread = startsOnCallingThread && CurlPoller.seesChangesDuringWait
        var code: Int32 = 0
        let poller = CurlPoller(failure: &code)
        var failure = poller == nil ? "the transport's poller can't be made: " + String(cString: strerror(code)) : nil
        self.poller = poller
        multi = poller == nil ? nil : jz_multi_init()
        if poller != nil, multi == nil { failure = "curl_multi_init failed" }
        self.failure = failure
        guard let multi else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = jz_multi_setopt_long(multi, Int32(JZ_MOPT_MAX_HOST_CONNECTIONS), maximumConnectionsPerHost)
        _ = jz_multi_setopt_long(
            multi, Int32(JZ_MOPT_MAXCONNECTS), Self.connectionCacheSize(maximumConnectionsPerHost: maximumConnectionsPerHost))
        _ = jz_multi_setopt_long(multi, Int32(JZ_MOPT_PIPELINING), Int(JZ_PIPE_MULTIPLEX))
        _ = jz_multi_set_socket(multi, curlSocketCallback, context)
        _ = jz_multi_set_timer(multi, curlTimerCallback, context)
        let thread = Thread { [self] in run() }
        thread.name = "Jewzruxin.CurlTransport"
        thread.start()
    }

    /// Starts `transfer`: on the calling thread when the drive is free, else on the loop's.
    func submit(_ transfer: CurlTransfer) {
        guard let multi, let poller else {
            return transfer.fail(URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: failure ?? "no loop"]))
        }
        // With many transfers running, the loop's thread is awake for their answers anyway, and the
        // calling thread (often a serial handler queue) has its own work: not even a try at the
        // drive, which would contend with the loop's.
        if startsOnCallingThread, runningCount.withLock({ $0 }) < Self.busyTransferCount,
           let wakes = drive.withLockIfAvailable({ _ in startHere(transfer, multi: multi) }) {
            if wakes { poller.wake() }
            return
        }
        let (accepted, wakes) = inbox.withLock { inbox in
            inbox.isStopping ? (false, false) : (true, inbox.put { $0.starts.append(transfer) })
        }
        guard accepted else {
            return transfer.fail(URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: "the transport was released"]))
        }
        if wakes { poller.wake() }
    }

    /// Stops `transfer`, on the loop's thread: it completes with `URLError(.cancelled)` unless it
    /// has completed already.
    func cancel(_ transfer: CurlTransfer) {
        let wakes = inbox.withLock { $0.put { $0.cancels.append(transfer) } }
        if wakes { poller?.wake() }
    }

    /// Resumes reading the response of `transfer`, paused while its handler was behind.
    func resume(_ transfer: CurlTransfer) {
        let wakes = inbox.withLock { $0.put { $0.resumes.append(transfer) } }
        if wakes { poller?.wake() }
    }

    /// Ends the thread once the transfers in flight have ended; they run to their end.
    func stop() {
        inbox.withLock { $0.isStopping = true }
        poller?.wake()
    }

    /// How many transfers the threads that submitted them started, and how many the loop's thread
    /// did: for tests.
    func startCounts() -> (here: Int, onLoop: Int) {
        drive.withLock { _ in (state.startedHere, state.startedOnLoop) }
    }

    /// How many times a submit, cancel or resume woke the loop's thread: for tests.
    func inboxWakes() -> Int {
        inbox.withLock { $0.wakes }
    }

    /// Whether each idle handle is primed, the one taken next last: for tests.
    func idleHandlesPrimed() -> [Bool] {
        drive.withLock { _ in idleHandles.map(\.primed) }
    }

    /// Runs `body` holding the drive, so that a transfer it submits goes through the inbox: for tests.
    func holdingDrive(_ body: () -> Void) {
        drive.withLock { _ in body() }
    }

    // MARK: Under the drive

    /// What the loop's thread runs once the drive is let go. A transfer's reports are records
    /// rather than closures: what they carry is stored in the outbox itself, with no closure
    /// context allocated per event.
    enum Event: Sendable {
        /// A response head, for the engine.
        case head(HTTPTransferEvents, HTTPResponseHead)
        /// Body bytes, for the engine.
        case body(HTTPTransferEvents, Data)
        /// A transfer's end (``CurlTransfer/reportEnd()``).
        case end(CurlTransfer)
        /// Anything else.
        case call(@Sendable () -> Void)

        func run() {
            switch self {
            case let .head(events, head): events.didReceive(head)
            case let .body(events, data): events.didReceive(data)
            case let .end(transfer): transfer.reportEnd()
            case let .call(call): call()
            }
        }
    }

    /// Runs `event` on the loop's thread once the drive is let go, after those posted before it.
    /// Under the drive only: libcurl's callbacks report through it.
    func post(_ event: Event) {
        state.outbox.append(event)
    }

    /// Runs `call` on the loop's thread once the drive is let go, after the events posted before
    /// it. Under the drive only.
    func post(_ call: @escaping @Sendable () -> Void) {
        state.outbox.append(.call(call))
    }

    /// An easy handle for a transfer about to start: with default options, or primed (see
    /// ``idleHandles``). A primed one is taken first. Under the drive.
    func makeHandle() -> (handle: UnsafeMutableRawPointer, primed: Bool)? {
        if let idle = idleHandles.popLast() { return idle }
        return jz_easy_init().map { ($0, false) }
    }

    /// What was read from and sent on each kept connection's socket when its last transfer ended,
    /// for the next transfer on it to tell what it read itself (``CurlConnectionCheck``). Under the
    /// drive.
    @exclusivity(unchecked) private var traffic: [Int32: CurlConnectionCheck.Traffic] = [:]

    /// What was read from and sent on `socket` when its last transfer ended, if known. Under the
    /// drive.
    func traffic(of socket: Int32) -> CurlConnectionCheck.Traffic? {
        traffic[socket]
    }

    /// Notes what was read from and sent on `socket` so far, `nil` to forget it. Under the drive.
    func setTraffic(_ counts: CurlConnectionCheck.Traffic?, of socket: Int32) {
        traffic[socket] = counts
    }

    /// Whether a transfer uses the connection of `socket` now: libcurl watches it for one. Under the
    /// drive.
    func isInUse(_ socket: Int32) -> Bool {
        poller?.isWatched(socket) ?? false
    }

    /// Takes back the handle of an ended transfer, out of the multi handle: kept primed when
    /// `keepsOptions` (its transfer set only the options of a plain GET, and ended well), reset to
    /// libcurl's defaults otherwise. Under the drive.
    func recycle(_ easy: UnsafeMutableRawPointer, keepsOptions: Bool) {
        guard idleHandles.count < Self.idleHandleLimit else {
            jz_easy_cleanup(easy)
            return
        }
        if keepsOptions {
            // What points into the ended transfer goes: the next one sets its own.
            _ = jz_easy_setopt_pointer(easy, Int32(JZ_OPT_HTTPHEADER), nil)
            _ = jz_easy_setopt_pointer(easy, Int32(JZ_OPT_ERRORBUFFER), nil)
            _ = jz_easy_setopt_pointer(easy, Int32(JZ_OPT_HEADERDATA), nil)
            _ = jz_easy_setopt_pointer(easy, Int32(JZ_OPT_WRITEDATA), nil)
            // Primed handles are taken first: put it after the reset ones.
            idleHandles.append((easy, true))
        } else {
            jz_easy_reset(easy)
            idleHandles.insert((easy, false), at: 0)
        }
    }

    /// Starts `transfer` on the calling thread, which holds the drive: returns whether the loop's
    /// thread must wake, for events posted meanwhile or for a deadline earlier than its own.
    private func startHere(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) -> Bool {
        if state.isFinished || inbox.withLock({ $0.isStopping }) {
            transfer.fail(URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: "the transport was released"]))
            return false
        }
        start(transfer, multi: multi)
        state.startedHere += 1
        actOnDueTimer(multi: multi)
        publishRunningCount()
        let deadline = min(state.timer ?? .distantFuture, transfer.idleDeadline)
        return !state.outbox.isEmpty || deadline < state.plannedWake
    }

    private func start(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        guard let easy = transfer.prepare() else { return }
        let code = jz_multi_add(multi, easy)
        guard code == JZ_M_OK else {
            transfer.complete(with: URLError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "libcurl refused the transfer: " + String(cString: jz_multi_strerror(code)),
            ]))
            return
        }
        state.active[easy] = transfer
    }

    private func cancelHere(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        if let easy = transfer.easyHandle { _ = detach(easy, multi: multi) }
        transfer.complete(with: URLError(.cancelled))
    }

    /// Takes `easy` out of the multi handle: its transfer, `nil` when it wasn't in. Under the drive.
    private func detach(_ easy: UnsafeMutableRawPointer, multi: UnsafeMutableRawPointer) -> CurlTransfer? {
        guard let transfer = state.active.removeValue(forKey: easy) else { return nil }
        _ = jz_multi_remove(multi, easy)
        return transfer
    }

    /// Publishes how many transfers run, for threads deciding whether to start theirs. Under the drive.
    private func publishRunningCount() {
        let count = state.active.count
        runningCount.withLock { $0 = count }
    }

    /// Acts on libcurl's timer while it is due, and ends the transfers that finish meanwhile. A
    /// transfer that ends frees its connection for one waiting for it (past the per-host limit),
    /// which libcurl then sets the timer to start at once: it goes out in this round rather than in
    /// the next, after the events of this one have been run. Bounded, should libcurl keep the
    /// timer due.
    private func actOnDueTimer(multi: UnsafeMutableRawPointer) {
        var running: Int32 = 0
        for _ in 0..<8 {
            guard let timer = state.timer, timer <= MonotonicTime.now else { return }
            state.timer = nil
            _ = jz_multi_socket_action(multi, Int32(JZ_SOCKET_TIMEOUT), 0, &running)
            collectDone(multi: multi)
        }
    }

    /// Ends the transfers libcurl has finished.
    private func collectDone(multi: UnsafeMutableRawPointer) {
        var easy: UnsafeMutableRawPointer?
        var result: Int32 = 0
        while jz_multi_next_done(multi, &easy, &result) != 0 {
            guard let easy else { continue }
            // While the handle is in the multi handle, libcurl still names the connection it kept.
            state.active[easy]?.ended(code: result)
            guard let transfer = detach(easy, multi: multi) else { continue }
            transfer.finished(code: result)
        }
    }

    /// libcurl's socket callback: watch `descriptor` for `what`.
    fileprivate func socketChanged(_ descriptor: Int32, _ what: Int32) {
        poller?.watch(descriptor, what)
    }

    /// libcurl's timer callback.
    fileprivate func timerChanged(milliseconds: Int) {
        state.timer = milliseconds < 0 ? nil : MonotonicTime.now.adding(nanoseconds: UInt64(milliseconds) * 1_000_000)
    }

    // MARK: The loop's thread

    private func run() {
        guard let multi, let poller else { return }
        var ready: [CurlPoller.Event] = []
        // The outbox's storage goes round between the drive and this thread: swapped out under the
        // drive, emptied here, swapped in again next round, so that posting doesn't grow a new
        // array (and reallocate it as it grows) every round.
        var events: [Event] = []
        events.reserveCapacity(16)
        while true {
            let (wake, ends) = drive.withLock { _ in round(ready, multi: multi, poller: poller, events: &events) }
            for event in events { event.run() }
            // Let the events go before the wait: they hold the transfers' cycles, which must not
            // outlive their end by as long as the loop sleeps.
            events.removeAll(keepingCapacity: true)
            if ends { break }
            ready.removeAll(keepingCapacity: true)
            poller.wait(until: wake, into: &ready)
        }
    }

    /// One round under the drive: the inbox, the sockets found ready and the timers. Swaps the
    /// events posted into `events` (empty, its storage kept, on the way in) and returns when to
    /// wake at the latest, and whether the thread ends.
    private func round(
        _ ready: [CurlPoller.Event], multi: UnsafeMutableRawPointer, poller: CurlPoller, events: inout [Event]
    ) -> (wake: MonotonicTime, ends: Bool) {
        let (starts, cancels, resumes, isStopping) = inbox.withLock { inbox in
            defer { inbox.starts = []; inbox.cancels = []; inbox.resumes = [] }
            return (inbox.starts, inbox.cancels, inbox.resumes, inbox.isStopping)
        }
        for transfer in cancels { cancelHere(transfer, multi: multi) }
        for transfer in resumes { transfer.resumeReading() }
        for transfer in starts { start(transfer, multi: multi) }
        state.startedOnLoop += starts.count
        var running: Int32 = 0
        for event in ready where poller.isWanted(event.fd) {
            _ = jz_multi_socket_action(multi, event.fd, event.mask, &running)
        }
        collectDone(multi: multi)
        actOnDueTimer(multi: multi)
        let now = MonotonicTime.now
        var wake = now.adding(nanoseconds: Self.longestWait)
        if let timer = state.timer { wake = min(wake, timer) }
        for (easy, transfer) in state.active {
            let deadline = transfer.idleDeadline
            if deadline <= now {
                _ = detach(easy, multi: multi)
                transfer.timedOut()
            } else {
                wake = min(wake, deadline)
            }
        }
        state.plannedWake = wake
        publishRunningCount()
        swap(&events, &state.outbox)
        let ends = isStopping && state.active.isEmpty
        if ends {
            state.isFinished = true
            for idle in idleHandles { jz_easy_cleanup(idle.handle) }
            idleHandles = []
            _ = jz_multi_cleanup(multi)
        }
        return (wake, ends)
    }
}

// libcurl's multi callbacks: C functions that find their loop from the context pointer, which the
// multi handle keeps while the loop lives (the loop's thread holds the loop until it cleans up).

private let curlSocketCallback: jz_socket_callback = { _, descriptor, what, context, _ in
    guard let context else { return 0 }
    Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().socketChanged(descriptor, what)
    return 0
}

private let curlTimerCallback: jz_timer_callback = { _, milliseconds, context in
    guard let context else { return 0 }
    Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue().timerChanged(milliseconds: milliseconds)
    return 0
}
