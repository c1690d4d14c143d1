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
            guard let feed = s.feed(of: attempt) else { return nil }
            s.response.head = response.head
            return (feed, s.plan.monitors)
        }
        guard let (feed, monitors) = taken else { return }
        for monitor in monitors { monitor.cycle(self, didReceive: response) }
        try feed.receive(response)
    }

    func transportDidReceive(_ chunk: Data, attempt: Int) throws {
        let taken = locked.withLock { s -> (ContentFeed, DidWriteBodyDataHandler?, HTTPResponse?, HandlerLine, [ProgressObserver])? in
            guard let feed = s.feed(of: attempt) else { return nil }
            // The response (for its expected length) only for progress: a chunk of a response
            // without a handler or a sequence for it needn't copy it.
            let handler = s.plan.settings.didWriteData
            let observers = s.progressObservers.isEmpty ? [] : s.progressObservers.filter { $0.direction == .received }
            return (feed, handler, handler == nil && observers.isEmpty ? nil : s.response, s.plan.handlers, observers)
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
            guard s.isCurrent(attempt) else { return [] }
            s.response.metrics = metrics
            return s.plan.monitors
        }
        for monitor in monitors { monitor.cycle(self, didCollect: metrics) }
    }

    func transportDidSend(bytes: Int64, total: Int64, expected: Int64, attempt: Int) {
        let taken = locked.withLock { s -> (DidSendBodyDataHandler?, HandlerLine, [ProgressObserver])? in
            guard s.isCurrent(attempt) else { return nil }
            let observers = s.progressObservers.isEmpty ? [] : s.progressObservers.filter { $0.direction == .sent }
            return (s.plan.settings.didSendBodyData, s.plan.handlers, observers)
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
        let transfer = locked.withLock { $0.consumerFailed(attempt: attempt, error: error) }
        guard let transfer else { return }
        transfer.cancel()
        transportDidComplete(error: error, attempt: attempt)
    }

    func transportDidComplete(error transportError: (any Error)?, attempt: Int) {
        let taken = locked.withLock { s in s.transportCompleted(attempt: attempt, error: transportError).map { ($0, $1, s.plan) } }
        guard let (feed, ended, plan) = taken else { return }
        var outcome = ended
        let judge = Judge(
            authentications: plan.settings.authentications ?? session.authentications,
            redirectPolicy: session.redirectPolicy,
            isFailureStatus: { [session] in session.shouldTreatStatusCodeAsFailure($0) },
            unavailableAuthentication: { self.unavailableAuthentication($0, sent: $1) })
        let interceptors = plan.settings.interceptors ?? session.interceptors
        outcome.response.data = feed.bodySoFar
        outcome.hasPublishedBody = feed.hasPublishedBody
        outcome.hasInterceptors = !interceptors.isEmpty
        if let continuation = plan.settings.download?.continuation {
            outcome.downloadVerdict = { response in continuation.verdict(on: response) }
        }
        outcome.refusal = { response in feed.refusal(for: response) }
        carryOut(judge.next(after: outcome), attempt: attempt, feed: feed,
                 responseProcessors: plan.settings.responseProcessors, interceptors: interceptors)
    }

    /// Carries out what comes after `attempt`: the one place a judgement's answer is acted on.
    ///
    /// - Parameters:
    ///   - feed: The attempt's feed, abandoned unless the body goes on to the content handler.
    ///   - responseProcessors: The cycle's own, for a success; `nil` for the session's.
    ///   - interceptors: Those to ask about a failure.
    func carryOut(
        _ next: Next, attempt: Int, feed: ContentFeed?,
        responseProcessors: [HTTPProcessor]? = nil, interceptors: [any HTTPInterceptor] = []
    ) {
        if case .conclude(let response) = next, let feed {
            let processors = feed.download == nil ? responseProcessors ?? session.responseProcessors : []
            if feed.isImplicit && processors.isEmpty {
                conclude(response, feed: feed, processors: [], attempt: attempt)
            } else {
                session.workerQueue.addOperation { self.conclude(response, feed: feed, processors: processors, attempt: attempt) }
            }
            return
        }
        // Whatever happens next, this try's body (a partial file) is of no use.
        feed?.abandon()
        switch next {
        case .resend(let request, let reason, let keepsUpload):
            resend(request, after: attempt, reason: reason, keepsUpload: keepsUpload)
        case .finish(let response, let error):
            finish(attempt: attempt, response: response, error: error)
        case .askInterceptors(let failure):
            askInterceptors(interceptors, about: failure, attempt: attempt)
        case .askRetryStrategy(let failure):
            carryOut(Self.next(after: session.retryVerdict(for: self, failure: failure.attemptFailure), about: failure), attempt: attempt, feed: nil)
        case .retry(let failure, let delay):
            if scheduleRetry(after: attempt, error: failure.error, delay: delay.isFinite && delay > 0 ? delay : 0) { return }
            finish(attempt: attempt, response: failure.response, error: failure.error)
        case .conclude(let response):
            // No feed: nothing to read the body from (not a judgement's answer).
            finish(attempt: attempt, response: response, error: nil)
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

    /// Whether a 401 says the Digest nonce it answered was stale: one more answer is then due.
    static func isStaleChallenge(_ response: HTTPResponse) -> Bool {
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
