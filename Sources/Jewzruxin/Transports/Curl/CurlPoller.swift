import CJewzruxinCurl
import JewzruxinPrimitives
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The sockets a curl loop waits on, as libcurl's socket callback asks, and the loop's doorbell.
///
/// On Linux it is an epoll set: a socket added by any thread is watched at once, even by a wait
/// already under way, which is what lets a caller's thread start a transfer without waking the
/// loop (``CurlLoop``). Elsewhere it is a `poll` over the sockets it was given, changed by the
/// loop's thread only (``seesChangesDuringWait`` is `false`).
final class CurlPoller: @unchecked Sendable {
    /// What a socket was found ready for, as `curl_multi_socket_action` takes it.
    typealias Event = jz_ready

    /// Whether a socket watched while another thread waits is part of that wait.
    #if os(Linux)
    static let seesChangesDuringWait = true
    #else
    static let seesChangesDuringWait = false
    #endif

    #if os(Linux)
    /// An eventfd in the epoll set: ringing it is one write, with no lock, from any thread.
    private let doorbell: Int32
    private let epoll: Int32
    /// The sockets in the epoll set and what libcurl wants of each, 0 for nothing any more. Under the
    /// loop's drive (libcurl's socket callback runs there).
    ///
    /// A socket libcurl stops watching stays in the set, marked 0, rather than being taken out: a
    /// keep-alive connection is given up and taken again by every request on it, and each change is
    /// a system call. One that turns ready while marked 0 (a server closing an idle connection) is
    /// taken out then (``isWanted(_:)``). A closed socket leaves the set by itself; when libcurl
    /// wants a socket again, it is changed, or added if it was closed meanwhile (its number reused).
    @exclusivity(unchecked) private var wanted: [Int32: Int32] = [:]
    #else
    private let doorbell: Waker
    /// The sockets and what to watch them for; the loop's thread only.
    @exclusivity(unchecked) private var watched: [Int32: Int16] = [:]
    #endif

    /// A poller, or `nil` with the `errno` of what failed (no descriptor left, usually).
    init?(failure: inout Int32) {
        #if os(Linux)
        doorbell = jz_eventfd_create()
        guard doorbell >= 0 else {
            failure = errno
            return nil
        }
        epoll = jz_epoll_create()
        guard epoll >= 0 else {
            failure = errno
            close(doorbell)
            return nil
        }
        guard jz_epoll_watch(epoll, doorbell, Int32(JZ_POLL_IN)) == 0 else {
            failure = errno
            close(epoll)
            close(doorbell)
            return nil
        }
        #else
        guard let doorbell = try? Waker() else {
            failure = errno
            return nil
        }
        self.doorbell = doorbell
        #endif
    }

    deinit {
        #if os(Linux)
        close(epoll)
        close(doorbell)
        #else
        doorbell.close()
        #endif
    }

    /// Ends the current or the next ``wait(until:into:)`` early. Any thread.
    func wake() {
        #if os(Linux)
        jz_eventfd_ring(doorbell)
        #else
        doorbell.wake()
        #endif
    }

    /// Watches `descriptor` for what libcurl's socket callback asked (`JZ_POLL_*`), or stops
    /// watching it (`JZ_POLL_REMOVE`). Under the loop's drive (on Linux, from any thread that holds
    /// it; elsewhere only the loop's thread drives).
    func watch(_ descriptor: Int32, _ what: Int32) {
        #if os(Linux)
        guard what != Int32(JZ_POLL_REMOVE) else {
            if wanted[descriptor] != nil { wanted[descriptor] = 0 }
            return
        }
        guard wanted[descriptor] != what else { return }
        if jz_epoll_watch(epoll, descriptor, what) == 0 {
            wanted[descriptor] = what
        } else {
            wanted[descriptor] = nil
        }
        #else
        guard what != Int32(JZ_POLL_REMOVE) else {
            watched[descriptor] = nil
            return
        }
        watched[descriptor] = (what & Int32(JZ_POLL_IN) != 0 ? Int16(POLLIN) : 0)
            | (what & Int32(JZ_POLL_OUT) != 0 ? Int16(POLLOUT) : 0)
        #endif
    }

    /// Whether libcurl watches `descriptor` now (for a transfer using its connection), without
    /// changing anything. Under the loop's drive.
    func isWatched(_ descriptor: Int32) -> Bool {
        #if os(Linux)
        return (wanted[descriptor] ?? 0) != 0
        #else
        return watched[descriptor] != nil
        #endif
    }

    /// Whether libcurl wants `descriptor`, found ready, watched: if not, it leaves the set now (it
    /// was kept there after libcurl gave it up, and would be found ready again and again). Under the
    /// loop's drive.
    func isWanted(_ descriptor: Int32) -> Bool {
        #if os(Linux)
        guard wanted[descriptor] == 0 else { return true }
        wanted[descriptor] = nil
        _ = jz_epoll_watch(epoll, descriptor, Int32(JZ_POLL_REMOVE))
        return false
        #else
        return true
        #endif
    }

    /// Waits until a watched socket is ready, ``wake()`` is called (or was, since the last wait), or
    /// `deadline` passes; puts the sockets found ready in `events`. The loop's thread only.
    func wait(until deadline: MonotonicTime, into events: inout [Event]) {
        let timeout = deadline.pollMilliseconds(from: .now)
        #if os(Linux)
        let capacity = 64
        withUnsafeTemporaryAllocation(of: jz_ready.self, capacity: capacity) { buffer in
            let count = jz_epoll_wait(epoll, timeout, buffer.baseAddress, Int32(capacity))
            for event in buffer.prefix(Int(max(count, 0))) {
                // Cleared as soon as seen, so a ring that comes later isn't lost; the loop looks at
                // what it was for (its inbox) right after.
                if event.fd == doorbell { jz_eventfd_clear(doorbell) } else { events.append(event) }
            }
        }
        #else
        var fds = [pollfd(fd: doorbell.readDescriptor, events: Int16(POLLIN), revents: 0)]
        for (descriptor, interest) in watched { fds.append(pollfd(fd: descriptor, events: interest, revents: 0)) }
        let found = poll(&fds, nfds_t(fds.count), timeout)
        for fd in fds.dropFirst() where fd.revents != 0 {
            var mask: Int32 = 0
            if fd.revents & Int16(POLLIN) != 0 { mask |= Int32(JZ_CSELECT_IN) }
            if fd.revents & Int16(POLLOUT) != 0 { mask |= Int32(JZ_CSELECT_OUT) }
            if fd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { mask |= Int32(JZ_CSELECT_ERR) }
            events.append(jz_ready(fd: fd.fd, mask: mask))
        }
        // Cleared after the wait, so a wake that came during it isn't lost; the loop looks at what
        // it was for (its inbox) right after.
        if found != 0 { doorbell.reset() }
        #endif
    }
}
