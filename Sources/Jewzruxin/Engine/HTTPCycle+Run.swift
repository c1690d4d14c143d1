import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The engine of a run: sending, receiving, judging the outcome, retrying, finishing.
extension HTTPCycle {
    /// A completion handler to call and what to call it with.
    struct Delivery: Sendable {
        let completion: Completion
        let error: (any Error)?
        /// A finished download: given to the download handler first, then removed.
        var download: URL?
    }

    /// Side effects decided under the lock and carried out after it is released, so no URLSession
    /// call, timer, indicator observer or handler ever runs while the cycle is locked.
    struct Effects {
        var taskToCancel: (any HTTPTransfer)?
        var feedsToAbandon: [ContentFeed] = []
        var indicatorToIncrease: NetworkActivityIndicator?
        var indicatorToDecrease: NetworkActivityIndicator?
        var delivery: Delivery?
    }

    func perform(_ effects: Effects) {
        effects.taskToCancel?.cancel()
        for feed in effects.feedsToAbandon { feed.abandon() }
        effects.indicatorToIncrease?.increase()
        effects.indicatorToDecrease?.decrease()
        if let delivery = effects.delivery { deliver(delivery) }
    }

    func deliver(_ delivery: Delivery) {
        session.delivery.enqueue {
            if let download = delivery.download {
                if let handler = self.downloadFileHandler { handler(self, download) }
                Self.removeDownload(download)
            }
            delivery.completion.handler(self, delivery.error)
        }
    }

    // MARK: Sending

    func send(attempt: Int) {
        let (request, ownProcessors) = locked.withLock { ($0.request, $0.requestProcessors) }
        let processors = ownProcessors ?? session.requestProcessors
        guard !processors.isEmpty else {
            // An object with no processor to turn it into a body would be dropped in silence.
            if let object = request.object {
                fail(attempt: attempt, error: HTTPError.unprocessedRequestObject(type: String(describing: type(of: object))))
                return
            }
            transmit(request, attempt: attempt)
            return
        }
        session.workerQueue.addOperation {
            var request = request
            do {
                for processor in processors { try processor.processRequest(&request) }
            } catch {
                self.fail(attempt: attempt, error: error)
                return
            }
            let processed = request
            let current = self.locked.withLock { s -> Bool in
                guard s.machine.isCurrent(attempt) else { return false }
                s.request = processed
                return true
            }
            if current { self.transmit(processed, attempt: attempt) }
        }
    }

    /// Puts `request` on the wire as `attempt`, as an upload when the cycle has an upload source
    /// (unless `keepsUpload` is `false`).
    func transmit(_ request: HTTPRequest, attempt: Int, keepsUpload: Bool = true) {
        if let error = Self.headerError(in: request) {
            fail(attempt: attempt, error: error)
            return
        }
        let (source, isDownload, handler) = locked.withLock {
            (keepsUpload ? $0.uploadSource : nil, $0.downloadFileHandler != nil, $0.contentHandler)
        }
        let feed: ContentFeed
        if isDownload {
            let file = session.downloadDirectory.appendingPathComponent("Jewzruxin-\(UUID().uuidString).download")
            feed = ContentFeed(handler: FileWriter(url: file, acceptableResponses: [], acceptableContentTypes: []), download: file)
        } else {
            feed = handler.map { ContentFeed(handler: $0) } ?? .implicit()
        }
        // The previous attempt's feed, if still here, is done with before this one may start: both
        // may drive the same handler.
        locked.withLock { s -> ContentFeed? in
            guard s.machine.isCurrent(attempt) else { return nil }
            defer { s.feed = nil }
            return s.feed
        }?.abandon()
        let events = session.transfers.register(self, attempt: attempt)
        let task = session.transport(for: request.url).makeTransfer(for: request, upload: source, events: events)
        let started = locked.withLock { s -> Bool in
            guard s.machine.isCurrent(attempt) else { return false }
            s.sentRequest = request
            s.task = task
            s.feed = feed
            s.consumerError = nil
            return true
        }
        // Resumed after the lock is released, as every transport call is: a transport may encode the
        // request, read cookie storage or write to a socket here. A cancel that comes in between
        // cancels the transfer before it starts; its events are then those of a stale attempt.
        if started {
            task.resume()
        } else {
            // Cancelled or restarted meanwhile: this transfer never starts. A transport needn't
            // report the end of a transfer it never ran (URLSession may not), so it leaves the
            // registry here.
            events.abandon()
            task.cancel()
        }
    }

    /// Why `request` can't be sent: a header whose name isn't an HTTP token, or whose value holds
    /// CR, LF or NUL (which would end the header early and let a caller's input add headers).
    static func headerError(in request: HTTPRequest) -> HTTPError? {
        if let (name, reason) = request.invalidHeader { return .invalidHeader(name: name, reason: reason) }
        for (name, value) in request.core.allHTTPHeaderFields ?? [:] {
            if let reason = HTTPRequest.invalidity(name: name, value: value) { return .invalidHeader(name: name, reason: reason) }
        }
        return nil
    }

    /// The run of `attempt` failed before anything was sent.
    func fail(attempt: Int, error: any Error) {
        let effects = locked.withLock { s -> Effects? in
            guard s.machine.failed(attempt: attempt) else { return nil }
            var effects = Effects()
            s.endRun(&effects)
            effects.delivery = s.completion.map { Delivery(completion: $0, error: error) }
            return effects
        }
        if let effects { perform(effects) }
    }

    // MARK: Deadline

    /// Arms the overall deadline of `run`, when one shorter than URLSession's default (7 days) is set.
    func scheduleDeadline(run: Int) {
        let interval = timeoutIntervalForResource ?? session.resourceTimeout
        guard interval > 0, interval < HTTPSession.unsetResourceTimeout else { return }
        // The timer is never cancelled: when it fires after its run has ended, the state machine
        // ignores it. It holds the cycle weakly so that it doesn't keep a finished cycle alive.
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            self?.deadlinePassed(run: run, interval: interval)
        }
    }

    private func deadlinePassed(run: Int, interval: TimeInterval) {
        let effects = locked.withLock { s -> Effects? in
            guard s.machine.deadlinePassed(run: run) else { return nil }
            var effects = Effects()
            s.endRun(&effects)
            let error = HTTPError.transport(URLError(.timedOut, userInfo: [
                NSLocalizedDescriptionKey: "The cycle did not finish within its deadline of \(interval) seconds.",
            ]))
            effects.delivery = s.completion.map { Delivery(completion: $0, error: error) }
            return effects
        }
        if let effects { perform(effects) }
    }

    // MARK: Retrying and resending

    /// Waits as the retry policy says, then sends again; `false` if the cycle moved on meanwhile.
    func scheduleRetry(after attempt: Int, delay: TimeInterval) -> Bool {
        let (scheduled, effects) = locked.withLock { s -> (Bool, Effects) in
            var effects = Effects()
            guard s.machine.waitToRetry(after: attempt) else { return (false, effects) }
            s.retriedCount += 1
            if let feed = s.feed { effects.feedsToAbandon.append(feed) }
            s.feed = nil
            return (true, effects)
        }
        perform(effects)
        // Strong: a cycle waiting to retry is kept alive by its timer, as a running one is by its
        // task. A cancel or restart during the wait makes the timer's attempt stale: it then does
        // nothing.
        if scheduled {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.retryWaitEnded(after: attempt) }
        }
        return scheduled
    }

    private func retryWaitEnded(after attempt: Int) {
        let next = locked.withLock { $0.machine.retry(after: attempt) }
        if let next { send(attempt: next) }
    }

    /// Sends `request` again at once as the next attempt (an authentication answer, a redirect).
    ///
    /// - Parameter keepsUpload: Whether an upload's body goes again (not after a redirect that
    ///   turns the request into a GET).
    func resend(_ request: HTTPRequest, after attempt: Int, keepsUpload: Bool = true, update: (inout Locked) -> Void) {
        let next = locked.withLock { s -> Int? in
            guard let next = s.machine.resend(after: attempt) else { return nil }
            update(&s)
            return next
        }
        if let next { transmit(request, attempt: next, keepsUpload: keepsUpload) }
    }

    // MARK: Finishing

    /// Ends the run of `attempt` with `response` and `error`, if the run is still current.
    func finish(attempt: Int, response: HTTPResponse, error: (any Error)?, download: URL? = nil) {
        let effects = locked.withLock { s -> Effects? in
            guard s.machine.processingCompleted(attempt: attempt) else { return nil }
            s.response.head = response.head
            s.response.data = response.data
            s.response.object = response.object
            s.response.content = response.content
            var effects = Effects()
            s.endRun(&effects)
            effects.delivery = s.completion.map { Delivery(completion: $0, error: error, download: download) }
            return effects
        }
        guard let effects else {
            if let download { Self.removeDownload(download) }
            return
        }
        if effects.delivery == nil, let download { Self.removeDownload(download) }
        perform(effects)
    }

    /// Removes a finished download once its handler has had it, or when nobody will.
    static func removeDownload(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
    }
}

extension HTTPCycle.Locked {
    /// Resets what belongs to one run, stopping whatever the previous run left going.
    mutating func beginRun(indicator: NetworkActivityIndicator?, _ effects: inout HTTPCycle.Effects) {
        effects.taskToCancel = task
        task = nil
        if let feed { effects.feedsToAbandon.append(feed) }
        feed = nil
        response = HTTPResponse()
        sentRequest = nil
        explicitlyCanceling = false
        retriedCount = 0
        authenticationFailures = 0
        redirectCount = 0
        if activeIndicator == nil, let indicator {
            activeIndicator = indicator
            effects.indicatorToIncrease = indicator
        }
    }

    /// Stops everything the run in progress has going; its completion is decided by the caller.
    mutating func endRun(_ effects: inout HTTPCycle.Effects) {
        effects.taskToCancel = task
        task = nil
        if let feed { effects.feedsToAbandon.append(feed) }
        feed = nil
        effects.indicatorToDecrease = activeIndicator
        activeIndicator = nil
    }
}
