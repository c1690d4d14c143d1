import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request and its response, sent over an ``HTTPSession``.
///
/// Create a cycle, configure its ``request``, then ``start(_:)`` it; or let a convenience method such
/// as ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``
/// do both. The completion handler runs exactly once per start, on the session's delegate queue,
/// unless the cycle is cancelled explicitly. In between, the cycle may send the request more than
/// once: to retry after a timeout, a 408 or a 503 (``RetryPolicy``), to answer an authentication
/// challenge (``authentications``), or to follow a 307/308 redirect with its body. A finished or
/// cancelled cycle can be started again, and ``restart()`` resends the same request at any time.
public final class HTTPCycle: Sendable {
    /// Called when a run of the cycle ends: `error` is `nil` on success.
    public typealias CompletionHandler = @Sendable (HTTPCycle, (any Error)?) -> Void

    /// The session that runs this cycle.
    public let session: HTTPSession

    let locked: Jewzruxin.Locked<Locked>

    struct Completion: Sendable {
        /// Async callers are told about explicit cancels too, so they never wait forever.
        let notifiesExplicitCancel: Bool
        let handler: CompletionHandler
    }

    struct Locked {
        var machine = StateMachine()
        /// The request as configured, after the request processors.
        var request: HTTPRequest
        /// The request of the attempt in progress, as it went on the wire.
        var sentRequest: HTTPRequest?
        var response = HTTPResponse()
        var completion: Completion?
        var task: (any HTTPTransfer)?
        /// Feeds the body of the attempt in progress to its content handler.
        var feed: ContentFeed?
        /// Why the content handler stopped the transfer, reported instead of the cancellation it causes.
        var consumerError: (any Error)?
        var contentHandler: (any ContentHandler)?

        var identifier = ""
        var solicited = false
        var explicitlyCanceling = false
        var requestProcessors: [HTTPProcessor]?
        var responseProcessors: [HTTPProcessor]?
        var authentications: [Authentication]?
        var timeoutIntervalForResource: TimeInterval?
        var uploadSource: UploadSource?
        var didSendBodyData: DidSendBodyDataHandler?
        var didWriteData: DidWriteBodyDataHandler?
        var downloadFileHandler: DownloadFileHandler?

        // Per run.
        var retriedCount = 0
        var authenticationFailures = 0
        var redirectCount = 0
        /// The indicator increased for the run in progress, decreased when it ends.
        var activeIndicator: NetworkActivityIndicator?
    }

    /// Creates a cycle without starting it.
    ///
    /// - Parameters:
    ///   - requestURL: The URL to request.
    ///   - requestMethod: The method, `GET` by default.
    ///   - session: The session to run on, ``HTTPSession/default`` by default.
    public init(requestURL: URL, requestMethod: HTTPMethod = .get, session: HTTPSession = .default) {
        self.session = session
        self.locked = Jewzruxin.Locked(Locked(request: HTTPRequest(url: requestURL, method: requestMethod)))
    }

    // MARK: Properties

    /// The request to send. Changes apply to the next start; request processors update it.
    public var request: HTTPRequest {
        get { locked.withLock { $0.request } }
        set { locked.withLock { $0.request = newValue } }
    }

    /// The response of the current or last run; empty until one arrives.
    public var response: HTTPResponse {
        get { locked.withLock { $0.response } }
        set { locked.withLock { $0.response = newValue } }
    }

    /// Where the cycle is in its life.
    public var state: State { locked.withLock { $0.machine.state } }

    /// A name for the cycle, free for the caller (a service can find its cycles by it).
    public var identifier: String {
        get { locked.withLock { $0.identifier } }
        set { locked.withLock { $0.identifier = newValue } }
    }

    /// Whether the user asked for this request directly (a pull to refresh, a button): such a cycle
    /// is resent after any error, without limit, until a response succeeds or it is cancelled.
    public var solicited: Bool {
        get { locked.withLock { $0.solicited } }
        set { locked.withLock { $0.solicited = newValue } }
    }

    /// Whether the last cancel was explicit (its completion handler is then not called).
    public var explicitlyCanceling: Bool { locked.withLock { $0.explicitlyCanceling } }

    /// How many times the current run has been resent after a failure.
    public var retriedCount: Int { locked.withLock { $0.retriedCount } }

    /// Processors that prepare the request; `nil` uses the session's.
    public var requestProcessors: [HTTPProcessor]? {
        get { locked.withLock { $0.requestProcessors } }
        set { locked.withLock { $0.requestProcessors = newValue } }
    }

    /// Processors that turn the response's data into its object; `nil` uses the session's.
    public var responseProcessors: [HTTPProcessor]? {
        get { locked.withLock { $0.responseProcessors } }
        set { locked.withLock { $0.responseProcessors = newValue } }
    }

    /// What answers authentication challenges; `nil` uses the session's.
    public var authentications: [Authentication]? {
        get { locked.withLock { $0.authentications } }
        set { locked.withLock { $0.authentications = newValue } }
    }

    /// The longest a run may take, retries included, before it ends with a `timedOut` error; `nil`
    /// uses the session configuration's `timeoutIntervalForResource` (which URLSession itself
    /// ignores on Linux, L10).
    public var timeoutIntervalForResource: TimeInterval? {
        get { locked.withLock { $0.timeoutIntervalForResource } }
        set { locked.withLock { $0.timeoutIntervalForResource = newValue } }
    }

    // MARK: Start, cancel, restart

    /// Sends the request; `completionHandler` runs on the session's delegate queue when the run ends.
    ///
    /// Starting a running cycle changes nothing: the new handler gets ``HTTPError/alreadyRunning``.
    /// - Parameter completionHandler: Gets the cycle and `nil`, or the error the run ended with.
    public func start(_ completionHandler: @escaping CompletionHandler) {
        begin(Completion(notifiesExplicitCancel: false, handler: completionHandler))
    }

    /// Cancels the run in progress, if any, retries and waits included.
    ///
    /// - Parameter explicitly: `true` when the user asked for it: the completion handler is not
    ///   called. `false`: it is called with ``HTTPError/cancelled``.
    public func cancel(explicitly: Bool) {
        let effects = locked.withLock { s -> Effects in
            var effects = Effects()
            guard case .cancel(let notify) = s.machine.cancel(explicitly: explicitly) else { return effects }
            s.explicitlyCanceling = explicitly
            s.endRun(&effects)
            if let completion = s.completion, notify || completion.notifiesExplicitCancel {
                effects.delivery = Delivery(completion: completion, error: HTTPError.cancelled)
            }
            return effects
        }
        perform(effects)
    }

    /// Cancels the run in progress silently, if any, and sends the request again.
    ///
    /// The completion handler given to the last ``start(_:)`` runs when the new run ends. A cycle
    /// that has finished can be restarted too.
    public func restart() {
        let indicator = session.networkActivityIndicator
        let (attempt, run, effects) = locked.withLock { s -> (Int, Int, Effects) in
            var effects = Effects()
            let attempt = s.machine.restart()
            s.beginRun(indicator: indicator, &effects)
            return (attempt, s.machine.run, effects)
        }
        launch(run: run, attempt: attempt, after: effects)
    }

    func begin(_ completion: Completion) {
        let indicator = session.networkActivityIndicator
        let (action, run, effects) = locked.withLock { s -> (StateMachine.StartAction, Int, Effects) in
            var effects = Effects()
            let action = s.machine.start()
            if case .send = action {
                s.completion = completion
                s.beginRun(indicator: indicator, &effects)
            }
            return (action, s.machine.run, effects)
        }
        switch action {
        case .send(let attempt):
            launch(run: run, attempt: attempt, after: effects)
        case .rejectAlreadyRunning:
            deliver(Delivery(completion: completion, error: HTTPError.alreadyRunning))
        }
    }

    /// Carries out what beginning the run left to do, arms its deadline and sends its first attempt.
    private func launch(run: Int, attempt: Int, after effects: Effects) {
        perform(effects)
        scheduleDeadline(run: run)
        send(attempt: attempt)
    }
}
