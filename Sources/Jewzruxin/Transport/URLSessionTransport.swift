import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one URLSession delegate of an ``HTTPSession``: routes each task's callbacks to its cycle.
///
/// Challenges and redirects are handled here, at session level, because task-level delegates never
/// see them on Linux (L7). Every challenge gets an explicit answer: default handling without a
/// credential hangs the task (L4) and a nil credential crashes (L5).
final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    private struct Entry {
        let cycle: HTTPCycle
        let attempt: Int
    }

    private struct Registry {
        /// Running tasks by identifier. The entry keeps its cycle alive until the task completes, so
        /// a cycle nobody holds on to still finishes.
        var entries: [Int: Entry] = [:]
        /// Callers of ``whenIdle()`` waiting for `entries` to empty.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let registry = Mutex(Registry())

    var count: Int { registry.withLock { $0.entries.count } }

    func register(_ task: URLSessionTask, for cycle: HTTPCycle, attempt: Int) {
        registry.withLock { $0.entries[task.taskIdentifier] = Entry(cycle: cycle, attempt: attempt) }
    }

    private func entry(for task: URLSessionTask) -> Entry? {
        registry.withLock { $0.entries[task.taskIdentifier] }
    }

    private func remove(_ task: URLSessionTask) {
        let waiters = registry.withLock { r -> [CheckedContinuation<Void, Never>] in
            r.entries.removeValue(forKey: task.taskIdentifier)
            guard r.entries.isEmpty else { return [] }
            defer { r.idleWaiters = [] }
            return r.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no task of this session is in flight: every URLSession task has reported its
    /// completion, cancelled ones included.
    func whenIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = registry.withLock { r -> Bool in
                if r.entries.isEmpty { return true }
                r.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let entry = entry(for: dataTask) {
            do {
                try entry.cycle.transportDidReceive(response, attempt: entry.attempt)
            } catch {
                entry.cycle.transportDidFail(error, attempt: entry.attempt)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let entry = entry(for: dataTask) else { return }
        do {
            try entry.cycle.transportDidReceive(data, attempt: entry.attempt)
        } catch {
            entry.cycle.transportDidFail(error, attempt: entry.attempt)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entry(for: task) else { return }
        entry.cycle.transportDidComplete(error: error, attempt: entry.attempt)
        remove(task)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // 307 and 308 must keep the method and body, which FoundationNetworking drops (L9): the
        // redirect is refused here, so the task ends with it, and the cycle resends the whole request.
        if response.statusCode == 307 || response.statusCode == 308 {
            completionHandler(nil)
            return
        }
        completionHandler(Self.redirectRequest(request, for: response))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        guard let entry = entry(for: task) else { return }
        entry.cycle.transportDidSend(
            bytes: bytesSent, total: totalBytesSent, expected: totalBytesExpectedToSend, attempt: entry.attempt)
    }

    /// `proposed`, aimed at the `Location` of `response` resolved as RFC 3986 says.
    ///
    /// FoundationNetworking resolves a relative `Location` such as `/echo/?q=1` to `/echo?q=1`,
    /// dropping the slash before the query; the URL is recomputed here from the header itself.
    static func redirectRequest(_ proposed: URLRequest, for response: HTTPURLResponse) -> URLRequest {
        guard let resolved = response.resolvedLocation(), resolved != proposed.url else { return proposed }
        var request = proposed
        request.url = resolved
        return request
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // No credentials to offer: decline. FoundationNetworking then cancels the task, but the
        // 401/407 response and its body have already been delivered (L3), so the cycle is told to
        // end with that response rather than with a cancellation.
        if let entry = entry(for: task) {
            entry.cycle.transportDidDeclineChallenge(attempt: entry.attempt)
        }
        completionHandler(.rejectProtectionSpace, nil)
    }
}

extension HTTPURLResponse {
    /// The `Location` header resolved against the response's URL (or `base`) as RFC 3986 says,
    /// which FoundationNetworking doesn't do for a relative path followed by a query.
    func resolvedLocation(base: URL? = nil) -> URL? {
        guard let location = value(forHTTPHeaderField: "Location") else { return nil }
        return URL(string: location, relativeTo: url ?? base)?.absoluteURL
    }
}
