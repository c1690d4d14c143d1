import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request and its response, sent over an ``HTTPSession``.
///
/// Create a cycle, configure its ``request``, then ``start(_:)`` it; or let a convenience method such
/// as ``get(_:parameters:requestProcessors:responseProcessors:solicited:session:completionHandler:)``
/// do both. The completion handler runs exactly once per start, on the session's delegate queue,
/// unless the cycle is cancelled explicitly. A finished or cancelled cycle can be started again, and
/// ``restart()`` resends the same request at any time.
public final class HTTPCycle: Sendable {
    /// Called when a run of the cycle ends: `error` is `nil` on success.
    public typealias CompletionHandler = @Sendable (HTTPCycle, (any Error)?) -> Void

    /// The session that runs this cycle.
    public let session: HTTPSession

    private let locked: Mutex<Locked>

    struct Completion: Sendable {
        /// Async callers are told about explicit cancels too, so they never wait forever.
        let notifiesExplicitCancel: Bool
        let handler: CompletionHandler
    }

    private struct Locked: Sendable {
        var machine = StateMachine()
        var request: HTTPRequest
        var response = HTTPResponse()
        var completion: Completion?
        var task: URLSessionTask?
        var body: any ResponseBodyConsumer = DataAccumulator()
        /// Why the body consumer stopped the transfer, reported instead of the cancellation it causes.
        var consumerError: (any Error)?
        /// A challenge was declined: FoundationNetworking then cancels the task, but the 401/407
        /// response and its body have already arrived and are the outcome.
        var declinedChallenge = false
        var identifier = ""
        var solicited = false
        var explicitlyCanceling = false
        var retriedCount = 0
        var requestProcessors: [HTTPProcessor]?
        var responseProcessors: [HTTPProcessor]?
    }

    /// Creates a cycle without starting it.
    ///
    /// - Parameters:
    ///   - requestURL: The URL to request.
    ///   - requestMethod: The method, `GET` by default.
    ///   - session: The session to run on, ``HTTPSession/default`` by default.
    public init(requestURL: URL, requestMethod: HTTPMethod = .get, session: HTTPSession = .default) {
        self.session = session
        self.locked = Mutex(Locked(request: HTTPRequest(url: requestURL, method: requestMethod)))
    }

    // MARK: Properties

    /// The request to send. Changes apply to the next start.
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

    /// Whether the user asked for this request directly (a pull to refresh, a button): such cycles
    /// keep trying until data arrives.
    public var solicited: Bool {
        get { locked.withLock { $0.solicited } }
        set { locked.withLock { $0.solicited = newValue } }
    }

    /// Whether the last cancel was explicit (its completion handler is then not called).
    public var explicitlyCanceling: Bool { locked.withLock { $0.explicitlyCanceling } }

    /// How many times the current run has been resent.
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

    // MARK: Start, cancel, restart

    /// Sends the request; `completionHandler` runs on the session's delegate queue when the run ends.
    ///
    /// Starting a running cycle changes nothing: the new handler gets ``HTTPError/alreadyRunning``.
    /// - Parameter completionHandler: Gets the cycle and `nil`, or the error the run ended with.
    public func start(_ completionHandler: @escaping CompletionHandler) {
        begin(Completion(notifiesExplicitCancel: false, handler: completionHandler))
    }

    /// Cancels the run in progress, if any.
    ///
    /// - Parameter explicitly: `true` when the user asked for it: the completion handler is not
    ///   called. `false`: it is called with ``HTTPError/cancelled``.
    public func cancel(explicitly: Bool) {
        let (action, task, completion) = locked.withLock { s -> (StateMachine.CancelAction, URLSessionTask?, Completion?) in
            let action = s.machine.cancel(explicitly: explicitly)
            guard action != .none else { return (action, nil, nil) }
            s.explicitlyCanceling = explicitly
            defer { s.task = nil }
            return (action, s.task, s.completion)
        }
        task?.cancel()
        guard case .cancel(let notify) = action, let completion else { return }
        if notify || completion.notifiesExplicitCancel {
            deliver(HTTPError.cancelled, to: completion)
        }
    }

    /// Cancels the run in progress silently, if any, and sends the request again.
    ///
    /// The completion handler given to the last ``start(_:)`` runs when the new run ends. A cycle
    /// that has finished can be restarted too.
    public func restart() {
        let (attempt, task) = locked.withLock { s -> (Int, URLSessionTask?) in
            defer { s.task = nil }
            s.response = HTTPResponse()
            s.explicitlyCanceling = false
            s.retriedCount = 0
            return (s.machine.restart(), s.task)
        }
        task?.cancel()
        send(attempt: attempt)
    }

    // MARK: The run

    func begin(_ completion: Completion) {
        let action = locked.withLock { s -> StateMachine.StartAction in
            let action = s.machine.start()
            if case .send = action {
                s.completion = completion
                s.response = HTTPResponse()
                s.explicitlyCanceling = false
                s.retriedCount = 0
            }
            return action
        }
        switch action {
        case .send(let attempt): send(attempt: attempt)
        case .rejectAlreadyRunning: deliver(HTTPError.alreadyRunning, to: completion)
        }
    }

    private func send(attempt: Int) {
        let (request, ownProcessors) = locked.withLock { ($0.request, $0.requestProcessors) }
        let processors = ownProcessors ?? session.requestProcessors
        guard !processors.isEmpty else {
            resume(request, attempt: attempt)
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
            self.resume(request, attempt: attempt)
        }
    }

    private func resume(_ request: HTTPRequest, attempt: Int) {
        let task = session.core.dataTask(with: request.wireRequest)
        locked.withLock { s in
            guard s.machine.isCurrent(attempt) else { return }
            s.request = request
            s.task = task
            s.body = DataAccumulator()
            s.consumerError = nil
            s.declinedChallenge = false
            session.router.register(task, for: self, attempt: attempt)
            task.resume()
        }
    }

    private func fail(attempt: Int, error: any Error) {
        let completion = locked.withLock { s -> Completion? in
            s.machine.failed(attempt: attempt) ? s.completion : nil
        }
        if let completion { deliver(error, to: completion) }
    }

    private func deliver(_ error: (any Error)?, to completion: Completion) {
        session.delegateQueue.addOperation { completion.handler(self, error) }
    }

    // MARK: Transport callbacks (the session's network queue)

    func transportDidReceive(_ response: URLResponse, attempt: Int) throws {
        guard let http = response as? HTTPURLResponse else { return }
        try locked.withLock { s in
            guard s.machine.isCurrent(attempt) else { return }
            s.response.core = http
            try s.body.prepare(for: http)
        }
    }

    func transportDidReceive(_ chunk: Data, attempt: Int) throws {
        try locked.withLock { s in
            guard s.machine.isCurrent(attempt) else { return }
            try s.body.append(chunk)
        }
    }

    /// The body consumer refused what arrived: stop the transfer and report `error` (L1: URLSession
    /// ignores a `.cancel` disposition, so the task is cancelled here).
    func transportDidFail(_ error: any Error, attempt: Int) {
        let task = locked.withLock { s -> URLSessionTask? in
            guard s.machine.isCurrent(attempt), s.consumerError == nil else { return nil }
            s.consumerError = error
            return s.task
        }
        task?.cancel()
    }

    /// The router declined an authentication challenge for `attempt`.
    func transportDidDeclineChallenge(attempt: Int) {
        locked.withLock { s in
            if s.machine.isCurrent(attempt) { s.declinedChallenge = true }
        }
    }

    func transportDidComplete(error transportError: (any Error)?, attempt: Int) {
        let outcome = locked.withLock { s -> (HTTPResponse, [HTTPProcessor]?, (any Error)?, Bool)? in
            guard s.machine.transportCompleted(attempt: attempt) else { return nil }
            s.task = nil
            s.response.data = s.body.data
            s.body = DataAccumulator()
            return (s.response, s.responseProcessors, s.consumerError, s.declinedChallenge)
        }
        guard let (response, ownProcessors, consumerError, declinedChallenge) = outcome else { return }

        var transportError = transportError
        if declinedChallenge, response.core != nil, let error = transportError as NSError?,
           error.domain == NSURLErrorDomain, error.code == NSURLErrorCancelled {
            transportError = nil
        }
        if let failure = consumerError ?? transportError.map(Self.mapTransportError) {
            complete(attempt: attempt, response: response, error: failure)
            return
        }
        if let status = response.statusCode, session.shouldTreatStatusCodeAsFailure(status) {
            complete(attempt: attempt, response: response, error: HTTPError.statusCodeSeemsToHaveErred(response))
            return
        }
        let processors = ownProcessors ?? session.responseProcessors
        guard !processors.isEmpty else {
            complete(attempt: attempt, response: response, error: nil)
            return
        }
        session.workerQueue.addOperation {
            var processed = response
            do {
                for processor in processors { try processor.processResponse(&processed) }
                self.complete(attempt: attempt, response: processed, error: nil)
            } catch {
                self.complete(attempt: attempt, response: response, error: error)
            }
        }
    }

    private func complete(attempt: Int, response: HTTPResponse, error: (any Error)?) {
        let completion = locked.withLock { s -> Completion? in
            guard s.machine.processingCompleted(attempt: attempt) else { return nil }
            s.response.core = response.core
            s.response.data = response.data
            s.response.object = response.object
            return s.completion
        }
        if let completion { deliver(error, to: completion) }
    }

    static func mapTransportError(_ error: any Error) -> any Error {
        if let error = error as? HTTPError { return error }
        let urlError: URLError
        if let error = error as? URLError {
            urlError = error
        } else {
            let ns = error as NSError
            guard ns.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: ns.code) else { return error }
            urlError = URLError(code, userInfo: ns.userInfo)
        }
        return urlError.code == .cancelled ? HTTPError.cancelled : HTTPError.transport(urlError)
    }
}
