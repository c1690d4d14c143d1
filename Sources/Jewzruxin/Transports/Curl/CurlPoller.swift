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

    private let doorbell: Waker
    #if os(Linux)
    private let epoll: Int32
    #else
    /// The sockets and what to watch them for; the loop's thread only.
    private var watched: [Int32: Int16] = [:]
    #endif

    /// A poller, or `nil` with the `errno` of what failed (no descriptor left, usually).
    init?(failure: inout Int32) {
        guard let doorbell = try? Waker() else {
            failure = errno
            return nil
        }
        self.doorbell = doorbell
        #if os(Linux)
        epoll = jz_epoll_create()
        guard epoll >= 0 else {
            failure = errno
            return nil
        }
        guard jz_epoll_watch(epoll, doorbell.readDescriptor, Int32(JZ_POLL_IN)) == 0 else {
            failure = errno
            close(epoll)
            return nil
        }
        #endif
    }

    deinit {
        #if os(Linux)
        close(epoll)
        #endif
        doorbell.close()
    }

    /// Ends the current or the next ``wait(until:into:)`` early. Any thread.
    func wake() {
        doorbell.wake()
    }

    /// Watches `descriptor` for what libcurl's socket callback asked (`JZ_POLL_*`), or stops
    /// watching it (`JZ_POLL_REMOVE`). On Linux any thread; elsewhere the loop's thread only.
    func watch(_ descriptor: Int32, _ what: Int32) {
        #if os(Linux)
        // Removing fails harmlessly when libcurl closed the socket already: closing removed it.
        _ = jz_epoll_watch(epoll, descriptor, what)
        #else
        guard what != Int32(JZ_POLL_REMOVE) else {
            watched[descriptor] = nil
            return
        }
        watched[descriptor] = (what & Int32(JZ_POLL_IN) != 0 ? Int16(POLLIN) : 0)
            | (what & Int32(JZ_POLL_OUT) != 0 ? Int16(POLLOUT) : 0)
        #endif
    }

    /// Waits until a watched socket is ready, ``wake()`` is called (or was, since the last wait), or
    /// `deadline` passes; puts the sockets found ready in `events`. The loop's thread only.
    func wait(until deadline: MonotonicTime, into events: inout [Event]) {
        let timeout = deadline.pollMilliseconds(from: .now)
        #if os(Linux)
        let capacity = 64
        let found = withUnsafeTemporaryAllocation(of: jz_ready.self, capacity: capacity) { buffer -> Int32 in
            let count = jz_epoll_wait(epoll, timeout, buffer.baseAddress, Int32(capacity))
            for event in buffer.prefix(Int(max(count, 0))) where event.fd != doorbell.readDescriptor {
                events.append(event)
            }
            return count
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
        #endif
        // Cleared after the wait, so a wake that came during it isn't lost; the loop looks at what
        // it was for (its inbox) right after.
        if found != 0 { doorbell.reset() }
    }
}
