import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The engine of a run: sending, retrying, resending, finishing. The state machine decides under the
// cycle's lock; what it decides is carried out here, after the lock is released.
extension HTTPCycle {
    /// How a run ended: what its completion handler is given.
    struct Outcome: Sendable {
        /// `nil` for a success.
        var error: (any Error)?
        /// A finished download: given to the download handler first, then removed.
        var download: URL?
    }

    /// Carries out what a transition decided: no transport call, timer, activity observer or handler
    /// runs while the cycle is locked.
    func perform(_ actions: StateMachine.Actions) {
        // A body stream's writer may be blocked on a transport's thread, in its step of the feed
        // (which the abandon below waits for): freed first, it lets the transfer stop.
        if actions.ended != nil { actions.feedToAbandon?.interrupt() }
        actions.transferToCancel?.cancel()
        actions.interceptionToCancel?.cancel()
        actions.feedToAbandon?.abandon()
        actions.activityToBegin?.runBegan()
        actions.activityToEnd?.runEnded()
        guard let (outcome, plan) = actions.ended else { return }
        for monitor in plan.monitors { monitor.cycle(self, didFinishWith: outcome.error) }
        for observer in actions.observersToFinish { observer.continuation.finish() }
        if let completion = actions.completion {
            deliver(outcome, to: completion, plan: plan, waits: outcome.download != nil || plan.settings.reportsProgress)
        }
    }

    /// Runs `completion` with `outcome` where its delivery says (``Delivery``), after the calls the
    /// run made to its handler queue (its progress handlers: `waits`) and after the download handler,
    /// which is given the finished download, if any, on that queue.
    ///
    /// Each delivery has one place: ``Delivery/queue``, the run's handler queue;
    /// ``Delivery/mainActor``, the main queue; ``Delivery/inline`` and ``Delivery/awaited``, where
    /// the run ends, which is the handler queue itself when the run has calls to wait for there.
    func deliver(_ outcome: Outcome, to completion: Completion, plan: Plan, waits: Bool) {
        let handlers = plan.handlers
        // Where the download is handed over: after the run's calls on its handler queue, if it made
        // any there; else here, where the run ends.
        let first: HandlerLine = waits && !handlers.isInline ? handlers : .inline
        let place: HandlerLine = switch completion.delivery {
        case .queue: handlers
        case .mainActor: .main
        case .inline, .awaited: first
        }
        if first.isInline {
            complete(outcome, completion, plan: plan, from: first, at: place)
        } else {
            first.enqueue { self.complete(outcome, completion, plan: plan, from: first, at: place) }
        }
    }

    /// Hands the download over, on `first`, then runs the completion at `place`: at once when it
    /// is the same queue.
    private func complete(_ outcome: Outcome, _ completion: Completion, plan: Plan, from first: HandlerLine, at place: HandlerLine) {
        handOver(outcome.download, plan: plan)
        if place === first || place.runs(on: first) {
            completion.handler(self, outcome.error)
        } else {
            place.enqueue { completion.handler(self, outcome.error) }
        }
    }

    /// Gives a finished download, if any, to the download handler of the run's `plan`, then
    /// removes it.
    private func handOver(_ file: URL?, plan: Plan) {
        guard let file else { return }
        plan.settings.download?.handler(self, file)
        Self.removeDownload(file)
    }

    // MARK: Sending

    /// Sends the run's request as `attempt`, if it is still the attempt in progress: through the
    /// request processors (on the worker queue), the interceptors, then the transport.
    func send(attempt: Int) {
        guard let plan = locked.withLock({ $0.isCurrent(attempt) ? $0.plan : nil }) else { return }
        let request = plan.settings.request
        let processors: [HTTPProcessor]
        let interceptors: [any HTTPInterceptor]
        if let ownProcessors = plan.settings.requestProcessors, let ownInterceptors = plan.settings.interceptors {
            (processors, interceptors) = (ownProcessors, ownInterceptors)
        } else {
            let defaults = session.sendDefaults
            (processors, interceptors) = (plan.settings.requestProcessors ?? defaults.requestProcessors, plan.settings.interceptors ?? defaults.interceptors)
        }
        guard !processors.isEmpty else {
            // An object with no processor to turn it into a body would be dropped in silence.
            if let object = request.object {
                fail(attempt: attempt, error: HTTPError.unprocessedRequestObject(type: String(describing: type(of: object))))
                return
            }
            adaptAndTransmit(request, attempt: attempt, plan: plan, interceptors: interceptors)
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
            guard self.locked.withLock({ $0.isCurrent(attempt) }) else { return }
            // The cycle shows the request as the processors made it (the seeds' `cycle.request`).
            let processed = request
            self.setup.withLock { $0.request = processed }
            self.adaptAndTransmit(processed, attempt: attempt, plan: plan, interceptors: interceptors)
        }
    }

    /// Puts `request` on the wire as `attempt` of the run of `plan`, as an upload when the run has
    /// an upload source (unless `keepsUpload` is `false`).
    func transmit(_ request: HTTPRequest, attempt: Int, plan: Plan, keepsUpload: Bool = true) {
        if let error = Self.headerError(in: request) {
            fail(attempt: attempt, error: error)
            return
        }
        // Read in place: the plan's settings are a large struct, not copied whole.
        let source = keepsUpload ? plan.settings.uploadSource : nil
        let download = plan.settings.download
        var request = request
        if case .multipart(let form)? = source {
            // A missing file or a bad part header ends the attempt here, before anything is sent,
            // with an error that names the part; every attempt checks again.
            do {
                _ = try form.plan()
            } catch {
                fail(attempt: attempt, error: error)
                return
            }
            request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        }
        // NTLM and Negotiate go to the transport before the request does: their handshake is its.
        // Set only when there are some to set or to clear: a write makes the request's storage its own.
        let credentials = Self.connectionCredentials(in: plan.settings.authentications ?? session.authentications)
        if !credentials.isEmpty || !request.connectionCredentials.isEmpty { request.connectionCredentials = credentials }
        let feed: ContentFeed
        if let continuation = download?.continuation {
            // Every attempt (a retry, a redirect, a restart) asks for what the file lacks now.
            continuation.prepare(&request)
            feed = ContentFeed(continuing: continuation)
        } else if let download {
            let file = session.downloadDirectory.appendingPathComponent("Jewzruxin-\(UUID().uuidString).download")
            feed = ContentFeed(handler: download.makeWriter(file), download: file)
        } else {
            feed = plan.settings.contentHandler.map { ContentFeed(handler: $0) } ?? .implicit()
        }
        let transport = session.transport(for: request.url)
        // What goes on the wire, and what the monitors hear of: the request with the fields the
        // transport adds (the session's headers, cookies, its defaults, the framing), kept beside
        // its own fields, which stay as the engine made them. A redirect, a challenge's answer or a
        // restart starts from those: its transport completes them again for its URL and body.
        transport.completeHeaderFields(of: &request, upload: source)
        let events = session.transfers.register(self, attempt: attempt)
        feed.setPacesTransfer(transport.pacesBodyToHandler)
        let transfer = transport.makeTransfer(for: request, upload: source, events: events)
        let started = locked.withLock { $0.transferCreated(attempt: attempt, transfer: transfer, feed: feed, request: request) }
        // Resumed after the lock is released, as every transport call is: a transport may encode the
        // request, read cookie storage or write to a socket here. A cancel that comes in between
        // cancels the transfer before it starts; its events are then those of a stale attempt.
        if started {
            if !plan.monitors.isEmpty {
                // The completed fields as the request's own, where a monitor reads them.
                let shown = request.showingCompletedFields
                for monitor in plan.monitors { monitor.cycle(self, willSend: shown) }
            }
            transfer.resume()
        } else {
            // Cancelled or restarted meanwhile: this transfer never starts. A transport needn't
            // report the end of a transfer it never ran (URLSession may not), so it leaves the
            // registry here.
            events.abandon()
            transfer.cancel()
            feed.abandon()
        }
    }

    /// Why `request` can't be sent: a header whose name isn't an HTTP token, or whose value holds
    /// CR, LF or NUL (which would end the header early and let a caller's input add headers),
    /// refused when it was set (``HTTPRequest/setValue(_:forHTTPHeaderField:)`` or ``HTTPRequest/core``).
    static func headerError(in request: HTTPRequest) -> HTTPError? {
        request.invalidHeader.map { .invalidHeader(name: $0.name, reason: $0.reason) }
    }

    /// The run of `attempt` failed before anything was sent.
    func fail(attempt: Int, error: any Error) {
        let actions = locked.withLock { $0.failed(attempt: attempt, error: error) }
        if let actions { perform(actions) }
    }

    // MARK: Deadline

    /// Arms the overall deadline of `run`, which goes by `plan`, when one shorter than URLSession's
    /// default (7 days) is set.
    func scheduleDeadline(run: Int, plan: Plan) {
        let interval = plan.settings.timeoutIntervalForResource ?? session.resourceTimeout
        guard interval > 0, interval < HTTPSession.unsetResourceTimeout else { return }
        // The timer is never cancelled: when it fires after its run has ended, the state machine
        // ignores it. It holds the cycle weakly so that it doesn't keep a finished cycle alive.
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            self?.deadlinePassed(run: run, interval: interval)
        }
    }

    private func deadlinePassed(run: Int, interval: TimeInterval) {
        let actions = locked.withLock { $0.deadlinePassed(run: run, error: HTTPError.deadlineExceeded(interval)) }
        if let actions { perform(actions) }
    }

    // MARK: Retrying and resending

    /// Waits `delay` seconds, then sends again after `error`; `false` if the cycle moved on meanwhile.
    func scheduleRetry(after attempt: Int, error: any Error, delay: TimeInterval) -> Bool {
        let waiting = locked.withLock { s in s.waitToRetry(after: attempt).map { ($0, s.plan.monitors) } }
        guard let (feed, monitors) = waiting else { return false }
        feed.abandon()
        for monitor in monitors { monitor.cycle(self, willRetryAfter: error, delay: delay) }
        // Strong: a cycle waiting to retry is kept alive by its timer, as a running one is by its
        // transfer. A cancel or restart during the wait makes the timer's attempt stale: it then does
        // nothing.
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.retryWaitEnded(after: attempt) }
        return true
    }

    private func retryWaitEnded(after attempt: Int) {
        let next = locked.withLock { $0.retry(after: attempt) }
        if let next { send(attempt: next) }
    }

    /// Sends `request` again at once as the next attempt (an authentication answer, a redirect).
    ///
    /// - Parameter keepsUpload: Whether an upload's body goes again (not after a redirect that
    ///   turns the request into a GET).
    func resend(_ request: HTTPRequest, after attempt: Int, reason: StateMachine.ResendReason, keepsUpload: Bool = true) {
        let next = locked.withLock { s in s.resend(after: attempt, reason: reason).map { ($0, s.plan) } }
        if let (next, plan) = next { transmit(request, attempt: next, plan: plan, keepsUpload: keepsUpload) }
    }

    // MARK: Finishing

    /// Ends the run of `attempt` with `response` and `error`, if the run is still current.
    ///
    /// A finished `download` nobody will be given is removed, unless `keepsDownload` (a resumable
    /// download's file, whole, which a resume then finds complete).
    func finish(attempt: Int, response: HTTPResponse, error: (any Error)?, download: URL? = nil, keepsDownload: Bool = false) {
        let actions = locked.withLock { s -> StateMachine.Actions? in
            guard let actions = s.processingCompleted(attempt: attempt, error: error, download: download) else { return nil }
            s.response.takeOutcome(of: response)
            return actions
        }
        guard let actions else {
            if let download, !keepsDownload { Self.removeDownload(download) }
            return
        }
        if actions.completion == nil, let download, !keepsDownload { Self.removeDownload(download) }
        perform(actions)
    }

    /// Removes a finished download once its handler has had it, or when nobody will.
    static func removeDownload(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
    }
}
