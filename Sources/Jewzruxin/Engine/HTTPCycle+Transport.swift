import Foundation
import JewzruxinAuth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinPrimitives

// What a transport reports, and how a finished transfer is judged: the engine asks the session's
// seams (authentication, redirect policy, retry strategy, status delegate) and follows their answers.
extension HTTPCycle {
    func transportDidReceive(_ response: URLResponse, attempt: Int) throws {
        guard let http = response as? HTTPURLResponse else { return }
        try transportDidReceive(HTTPResponse(core: http), attempt: attempt)
    }

    /// A response head arrived: `response` has it and no body.
    func transportDidReceive(_ response: HTTPResponse, attempt: Int) throws {
        let taken = locked.withLock { s -> (ContentFeed, [any HTTPEventMonitor])? in
            guard let feed = s.machine.feed(of: attempt) else { return nil }
            s.response.head = response.head
            return (feed, s.monitors)
        }
        guard let (feed, monitors) = taken else { return }
        for monitor in monitors { monitor.cycle(self, didReceive: response) }
        try feed.receive(response)
    }

    func transportDidReceive(_ chunk: Data, attempt: Int) throws {
        let taken = locked.withLock { s -> (ContentFeed, DidWriteBodyDataHandler?, HTTPResponse?, HandlerDelivery, [ProgressObserver])? in
            guard let feed = s.machine.feed(of: attempt) else { return nil }
            // The response (for its expected length) only for progress: a chunk of a response
            // without a handler or a sequence for it needn't copy it.
            let handler = s.settings.didWriteData
            let observers = s.progressObservers.isEmpty ? [] : s.progressObservers.filter { $0.direction == .received }
            return (feed, handler, handler == nil && observers.isEmpty ? nil : s.response, s.handlers, observers)
        }
        guard let (feed, handler, response, handlers, observers) = taken, let progress = try feed.append(chunk), let response else { return }
        let total = progress.completed
        let expected = progress.expected ?? Self.expectedLength(of: response)
        if !observers.isEmpty {
            let progress = TransferProgress(completedBytes: total, expectedBytes: expected < 0 ? nil : expected)
            for observer in observers { observer.continuation.yield(progress) }
        }
        guard let handler else { return }
        let written = Int64(chunk.count)
        handlers.enqueue { handler(self, written, total, expected) }
    }

    func transportDidCollect(_ metrics: HTTPTransferMetrics, attempt: Int) {
        let monitors = locked.withLock { s -> [any HTTPEventMonitor] in
            guard s.machine.isCurrent(attempt) else { return [] }
            s.response.metrics = metrics
            return s.monitors
        }
        for monitor in monitors { monitor.cycle(self, didCollect: metrics) }
    }

    func transportDidSend(bytes: Int64, total: Int64, expected: Int64, attempt: Int) {
        let taken = locked.withLock { s -> (DidSendBodyDataHandler?, HandlerDelivery, [ProgressObserver])? in
            guard s.machine.isCurrent(attempt) else { return nil }
            let observers = s.progressObservers.isEmpty ? [] : s.progressObservers.filter { $0.direction == .sent }
            return (s.settings.didSendBodyData, s.handlers, observers)
        }
        guard let (handler, handlers, observers) = taken else { return }
        if !observers.isEmpty {
            let progress = TransferProgress(completedBytes: total, expectedBytes: expected > 0 ? expected : nil)
            for observer in observers { observer.continuation.yield(progress) }
        }
        handler.map { handler in handlers.enqueue { handler(self, bytes, total, expected) } }
    }

    /// The content handler failed: stop the transfer and end the attempt with `error` at once,
    /// without waiting for the transport to report the cancel (URLSession on Linux may take seconds,
    /// or deliver the rest of the body first). Its late callbacks are then ignored.
    func transportDidFail(_ error: any Error, attempt: Int) {
        let transfer = locked.withLock { $0.machine.consumerFailed(attempt: attempt, error: error) }
        guard let transfer else { return }
        transfer.cancel()
        transportDidComplete(error: error, attempt: attempt)
    }

    /// What a finished transfer left, with what the judgement needs, taken out under the lock.
    private struct Finished {
        var response: HTTPResponse
        var sent: HTTPRequest
        var feed: ContentFeed
        var error: (any Error)?
        var responseProcessors: [HTTPProcessor]?
        var authentications: [any HTTPAuthenticator]?
        var interceptors: [any HTTPInterceptor]?
        var continuation: (any DownloadContinuation)?
        var counters: StateMachine.Counters
        var solicited: Bool
        var retryableMethods: Set<HTTPMethod>?
        var runStart: MonotonicTime
    }

    func transportDidComplete(error transportError: (any Error)?, attempt: Int) {
        var taken = locked.withLock { s -> Finished? in
            guard let completed = s.machine.transportCompleted(attempt: attempt, error: transportError) else { return nil }
            return Finished(
                response: s.response, sent: completed.sentRequest ?? s.settings.request, feed: completed.feed,
                error: completed.error.map(Self.mapTransportError),
                responseProcessors: s.settings.responseProcessors, authentications: s.settings.authentications,
                interceptors: s.settings.interceptors, continuation: s.settings.download?.continuation, counters: s.machine.counters, solicited: s.settings.solicited,
                retryableMethods: s.settings.retryableMethods, runStart: s.runStart)
        }
        // Taken, not copied: what finished holds a response, a request and their references.
        guard var finished = taken.take() else { return }
        finished.response.data = finished.feed.bodySoFar
        judge(&finished, attempt: attempt)
    }

    private func judge(_ finished: inout Finished, attempt: Int) {
        if finished.error == nil, !finished.response.hasHead {
            // FoundationNetworking ends a 301/302/303 without a `Location` this way: no error and
            // no response.
            finished.error = HTTPError.transport(URLError(.badServerResponse, userInfo: [
                NSLocalizedDescriptionKey: "The transfer ended without an HTTP response.",
                NSURLErrorFailingURLErrorKey: finished.sent.url as Any,
            ]))
        }
        if finished.error == nil, let status = finished.response.statusCode {
            if status == 401, let request = challengeAnswer(finished) {
                finished.feed.abandon()
                resend(request, after: attempt, reason: .authentication)
                return
            }
            switch session.redirectPolicy.action(for: finished.response, request: finished.sent, redirectCount: finished.counters.redirects) {
            case .follow(let request, let keepsBody):
                finished.feed.abandon()
                resend(request, after: attempt, reason: .redirect, keepsUpload: keepsBody)
                return
            case .fail(let error):
                finished.feed.abandon()
                finish(attempt: attempt, response: finished.response, error: error)
                return
            case .deliver:
                break
            }
            if status == 401, finished.counters.authenticationFailures == 0,
               let unavailable = unavailableAuthentication(finished.response, sent: finished.sent) {
                finished.error = unavailable
            } else if session.shouldTreatStatusCodeAsFailure(status) {
                switch finished.continuation?.verdict(on: finished.response) ?? .fail {
                case .complete:
                    break
                case .restart where finished.counters.restarts == 0:
                    finished.feed.abandon()
                    resend(finished.sent, after: attempt, reason: .restart)
                    return
                case .restart, .fail:
                    finished.error = HTTPError.statusCodeSeemsToHaveErred(finished.response)
                }
            }
            if finished.error == nil, let refusal = finished.feed.refusal(for: finished.response) {
                finished.error = refusal
            }
        }
        if let error = finished.error {
            // Whatever happens next, this try's body (a partial file) is of no use.
            finished.feed.abandon()
            // A body already partly streamed can't start over: the run ends with its error.
            if finished.feed.hasPublishedBody {
                finish(attempt: attempt, response: finished.response, error: error)
                return
            }
            let failure = Failure(
                response: finished.response, sent: finished.sent, error: error,
                counters: finished.counters, solicited: finished.solicited, retryableMethods: finished.retryableMethods,
                elapsed: Double(MonotonicTime.now.nanoseconds &- finished.runStart.nanoseconds) / 1e9)
            let interceptors = finished.interceptors ?? session.interceptors
            if !interceptors.isEmpty, !Self.isCancelled(error) {
                askInterceptors(interceptors, about: failure, attempt: attempt)
            } else {
                retryOrFinish(failure, attempt: attempt)
            }
            return
        }
        let processors = finished.feed.download == nil ? finished.responseProcessors ?? session.responseProcessors : []
        if finished.feed.isImplicit && processors.isEmpty {
            conclude(finished.response, feed: finished.feed, processors: [], attempt: attempt)
        } else {
            let (response, feed) = (finished.response, finished.feed)
            session.workerQueue.addOperation { self.conclude(response, feed: feed, processors: processors, attempt: attempt) }
        }
    }

    /// Gets the content from the handler, runs the response processors and finishes the run.
    private func conclude(_ response: consuming HTTPResponse, feed: ContentFeed, processors: [HTTPProcessor], attempt: Int) {
        let parsed = feed.parse()
        response.data = parsed.data
        response.content = parsed.content
        if let error = parsed.error {
            if let download = feed.download, !feed.keepsDownload { Self.removeDownload(download) }
            finish(attempt: attempt, response: response, error: error)
            return
        }
        guard !processors.isEmpty else {
            finish(attempt: attempt, response: response, error: nil, download: feed.download, keepsDownload: feed.keepsDownload)
            return
        }
        // A processor's failure reports the response as it was before the processors.
        var processed = copy response
        do {
            for processor in processors { try processor.processResponse(&processed) }
        } catch {
            finish(attempt: attempt, response: response, error: error)
            return
        }
        finish(attempt: attempt, response: processed, error: nil, download: feed.download, keepsDownload: feed.keepsDownload)
    }

    /// The request answering a 401's challenges with an `Authorization`, once (twice for a stale
    /// Digest nonce); `nil` when no authentication answers or answers were already refused.
    private func challengeAnswer(_ finished: Finished) -> HTTPRequest? {
        let authentications = finished.authentications ?? session.authentications
        guard !authentications.isEmpty else { return nil }
        let failures = finished.counters.authenticationFailures
        guard failures == 0 || (failures == 1 && Self.isStaleChallenge(finished.response)) else { return nil }
        for authentication in authentications {
            guard let value = authentication.authorization(
                for: finished.response, request: finished.sent, previousFailureCount: failures)
            else { continue }
            var request = finished.sent
            request.setValue(value, forHTTPHeaderField: "Authorization")
            return request
        }
        return nil
    }

    private static func isStaleChallenge(_ response: HTTPResponse) -> Bool {
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return false }
        return AuthenticationChallenge.parse(header).contains {
            $0.hasScheme("Digest") && $0["stale"]?.lowercased() == "true"
        }
    }

    /// The body size to report as expected: `Content-Length`, unless the body is content-encoded
    /// (then Content-Length counts encoded bytes while decoded ones are delivered, L13).
    static func expectedLength(of response: HTTPResponse) -> Int64 {
        guard response.value(forHTTPHeaderField: "Content-Encoding") == nil else { return -1 }
        return response.expectedContentLength
    }

    static func isCancellation(_ error: (any Error)?) -> Bool {
        guard let error = error as NSError? else { return false }
        return error.domain == NSURLErrorDomain && error.code == NSURLErrorCancelled
    }

    /// A transport's error as the cycle reports it: ``HTTPError`` as it is, a cancellation as
    /// ``HTTPError/cancelled``, any other URL error as ``HTTPError/transport(_:)``.
    static func mapTransportError(_ error: any Error) -> any Error {
        if let error = error as? HTTPError { return error }
        guard let urlError = URLError(bridging: error) else { return error }
        if urlError.code == .cancelled { return HTTPError.cancelled }
        return HTTPError.transport(urlError)
    }
}
