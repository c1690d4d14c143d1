import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession, with the workarounds its Linux implementation needs: the default transport on Apple
/// platforms, and on Linux when libcurl can't be loaded; `transport: .urlSession` asks for it.
///
/// - Warning: On Linux, FoundationNetworking (swift-corelibs-foundation) **ends the process** on
///   some responses that are valid or merely unusual — a chunked body with a trailer field, a
///   connection closed inside the head — in code the library can't reach to guard. A server you
///   don't control can then crash your program. Where libcurl loads, the library never picks
///   URLSession on Linux itself (not as the default, nor for the `https` requests of a native
///   session); ask for it only to talk to servers you trust, and prefer `.curl` or `.native`.
///   The README's transport table says what else it does differently.
///
/// Each request goes out with the fields ``completeHeaderFields(of:upload:)`` gives it, so that
/// URLSession has no default of its own left to add: `User-Agent: Jewzruxin`, `Accept: */*`,
/// `Accept-Encoding: gzip, deflate` (what FoundationNetworking's libcurl decodes, rather than its
/// list, which depends on its build), the session's cookies and additional headers. On Linux,
/// FoundationNetworking adds `Connection: keep-alive` and `Accept-Language` (the process's
/// language) to a request without them and can't be told not to: the completion adds them, so
/// that an event monitor sees them. A body in memory goes as an upload task's, not in `httpBody`,
/// where FoundationNetworking would add a form's `Content-Type` to a `POST`.
///
/// A session's transport owns its URLSession, whose callbacks arrive on a private serial queue, so a
/// busy delegate queue never slows the transfer down. ``urlSession`` itself holds none: it only asks
/// a session for one made with the session's configuration.
public final class URLSessionTransport: HTTPTransport {
    /// The URLSession and its delegate, and the fields a request goes out with; `nil` for
    /// ``urlSession``, which only names the transport.
    private let core: (session: URLSession, router: SessionRouter, headers: HeaderCompletion)?
    /// Whether the session's configuration has TLS settings, which URLSession can't apply (L12): its
    /// https requests then fail rather than go out without them.
    private let refusesHTTPS: Bool
    /// Whether the session's configuration names a proxy, which URLSession on Linux can't be told
    /// to use: its requests then fail rather than go out directly.
    private let refusesProxy: Bool

    /// The URLSession transfers run on; `nil` for ``urlSession``.
    var session: URLSession? { core?.session }

    /// A transport on a new URLSession made with `configuration`.
    init(configuration: HTTPSession.Configuration) {
        refusesHTTPS = configuration.tls.isCustomized
        refusesProxy = configuration.proxy != nil
        let queue = OperationQueue()
        queue.name = "Jewzruxin.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        let sessionConfiguration = configuration.urlSessionConfiguration
        // Every request has them already (``completeHeaderFields(of:upload:)``): URLSession has
        // none of its own to add, even of a name the transport leaves out (`Content-Length`).
        sessionConfiguration.httpAdditionalHeaders = nil
        #if canImport(FoundationNetworking)
        // FoundationNetworking puts the storage's cookies in place of a request's own `Cookie`
        // header. The transport sends and stores the session's cookies itself, as the curl and
        // native transports do; FoundationNetworking is given no storage to do it with.
        let cookies = TransportCookieJar(configuration)
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        // What FoundationNetworking adds to a request without them, and can't be told not to
        // (`_HTTPURLProtocol.curlHeadersToSet`): shown, then, and sent as given. Its libcurl
        // decodes gzip and deflate whatever was asked; `Accept-Encoding` names them rather than
        // libcurl's list, which depends on how it was built.
        var libraryFields = [("Connection", "keep-alive")]
        if let language = NSLocale.current.languageCode { libraryFields.append(("Accept-Language", language)) }
        let headers = HeaderCompletion(
            configuration, cookies: cookies, acceptEncoding: "gzip, deflate", libraryFields: libraryFields, emptyBody: .allButGetAndHead)
        #else
        // URLSession keeps the cookies, and adds `Accept-Language` and `Connection` of its own.
        let cookies: TransportCookieJar? = nil
        let headers = HeaderCompletion(configuration, cookies: nil, acceptEncoding: "br, gzip, deflate")
        #endif
        let router = SessionRouter(cookies: cookies)
        core = (URLSession(configuration: sessionConfiguration, delegate: router, delegateQueue: queue), router, headers)
    }

    private init() {
        core = nil
        refusesHTTPS = false
        refusesProxy = false
    }

    deinit {
        core?.session.finishTasksAndInvalidate()
    }

    /// The queue URLSession calls the router on: for tests.
    var delegateQueue: OperationQueue? { core?.session.delegateQueue }

    /// URLSession, made with the configuration of the session it is given to:
    /// `HTTPSession(configuration: configuration, transport: .urlSession)`.
    public static var urlSession: URLSessionTransport { URLSessionTransport() }

    /// A transport on a new URLSession made with `configuration`, or this one if it has its own.
    public func configured(for configuration: HTTPSession.Configuration) -> any HTTPTransport {
        core == nil ? URLSessionTransport(configuration: configuration) : self
    }

    /// Adds the session's additional headers, `Host`, `Authorization` from the URL's user, the
    /// stored cookies, `Accept-Encoding: gzip, deflate`, `User-Agent: Jewzruxin`, `Accept: */*`,
    /// on Linux FoundationNetworking's `Connection: keep-alive` and `Accept-Language` (each where
    /// the request has none), and the body's framing, as URLSession sends them: on Linux,
    /// `Content-Length: 0` for a request without a body but a `GET` or `HEAD`, and a form
    /// larger than ``inMemoryFormLimit`` chunked.
    public func completeHeaderFields(of request: inout HTTPRequest, upload: HTTPCycle.UploadSource?) {
        guard let headers = core?.headers else { return }
        headers.complete(&request, body: Self.bodyLength(of: request, upload: upload))
    }

    /// The length of the body URLSession sends: a form longer than ``inMemoryFormLimit`` (or of
    /// unknown length) is streamed, of unknown length to FoundationNetworking, and an empty body
    /// is none.
    private static func bodyLength(of request: HTTPRequest, upload: HTTPCycle.UploadSource?) -> HeaderCompletion.BodyLength {
        switch HeaderCompletion.bodyLength(of: request, upload: upload) {
        case .known(let length) where length > inMemoryFormLimit:
            if case .multipart? = upload { return .unknown }
            return .known(length)
        case .known(0) where upload == nil:
            return .none
        case let length:
            return length
        }
    }

    public func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer {
        var request = request
        if !request.headerFieldsCompleted { completeHeaderFields(of: &request, upload: upload) }
        guard let (session, router, _) = core else {
            return FailedTransfer(error: URLError(.cannotLoadFromNetwork, userInfo: [
                NSLocalizedDescriptionKey: "`.urlSession` is only a name for a session to make its URLSession transport with; give it to an HTTPSession.",
            ]), events: events)
        }
        if refusesProxy {
            return FailedTransfer(error: URLError(.cannotConnectToHost, userInfo: [
                NSLocalizedDescriptionKey: "The session names a proxy, which URLSession can't be told to use; use the curl "
                    + "transport (transport: .curl), or the proxy environment variables.",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]), events: events)
        }
        if refusesHTTPS, let scheme = request.url?.scheme, HTTPHeaderSyntax.equalIgnoringASCIICase(scheme, "https") {
            return FailedTransfer(error: URLError(.secureConnectionFailed, userInfo: [
                NSLocalizedDescriptionKey: "The session has TLS settings (trusted certificates, pins, a client certificate or a "
                    + "minimum version), which URLSession can't apply; use the curl transport (transport: .curl).",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]), events: events)
        }
        var core = request.showingCompletedFields.core
        // FoundationNetworking writes the length of the body it sends, which the field says too:
        // its own is right even for a file that changed since.
        if core.value(forHTTPHeaderField: "Content-Length") != nil { core.setValue(nil, forHTTPHeaderField: "Content-Length") }
        // The task is made when the transfer is resumed, off the cooperative pool (``Transfer``):
        // making and resuming one waits for FoundationNetworking's work queue, for seconds while it
        // is busy.
        let makeTask: @Sendable (URLSession) -> URLSessionTask
        var streamed: SessionRouter.StreamedBody?
        switch upload {
        case .data(let data)?: makeTask = { [core] in $0.uploadTask(with: core, from: data) }
        case .file(let url)?: makeTask = { [core] in $0.uploadTask(with: core, fromFile: url) }
        case .multipart(let multipart)?:
            do {
                let plan = try multipart.plan()
                if let length = plan.length, length <= Self.inMemoryFormLimit {
                    let data = try multipart.encodedData()
                    makeTask = { [core] in $0.uploadTask(with: core, from: data) }
                } else {
                    let body = SessionRouter.StreamedBody(source: .form(plan))
                    makeTask = { [core] in Self.streamingTask(core, body, in: $0) }
                    streamed = body
                }
            } catch {
                return FailedTransfer(error: error, events: events)
            }
        case .stream(let stream)?:
            #if canImport(FoundationNetworking)
            // FoundationNetworking reads a body stream on its work queue, which its task calls wait
            // for: a read waiting for the app's sequence, whose task may itself wait there, can
            // stall every task of the session.
            _ = stream
            return FailedTransfer(error: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "URLSession on Linux can't send a streamed body (UploadSource.stream) without blocking "
                    + "its own queue; use the curl or native transport.",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]), events: events)
            #else
            let body = SessionRouter.StreamedBody(source: .stream(stream))
            makeTask = { [core] in Self.streamingTask(core, body, in: $0) }
            streamed = body
            #endif
        case nil:
            // Sent as an upload's: FoundationNetworking adds a form's `Content-Type` to a `POST`
            // whose body is in `httpBody`, which the request doesn't have.
            if let data = request.data ?? core.httpBody, !data.isEmpty {
                if core.httpBody != nil { core.httpBody = nil }
                makeTask = { [core] in $0.uploadTask(with: core, from: data) }
            } else {
                makeTask = { [core] in $0.dataTask(with: core) }
            }
        }
        return Transfer(
            session: session, router: router, events: events, body: streamed, makeTask: makeTask)
    }

    /// A task sending `body` from its stream.
    private static func streamingTask(_ core: URLRequest, _ body: SessionRouter.StreamedBody, in session: URLSession) -> URLSessionTask {
        var withBody = core
        withBody.httpBodyStream = body.makeStream()
        #if !canImport(FoundationNetworking)
        // Apple's URLSession sends a stream body with the length it is given.
        if let length = body.length { withBody.setValue(String(length), forHTTPHeaderField: "Content-Length") }
        #endif
        return session.dataTask(with: withBody)
    }

    /// The largest form of known length sent from memory, with a `Content-Length`; a larger one,
    /// or one with a stream of unknown length, is streamed from its files as it is sent.
    ///
    /// On Linux, FoundationNetworking hands libcurl every stream body as one of unknown length,
    /// so a streamed form goes chunked whatever its length (a `Content-Length` of ours would go
    /// out beside `Transfer-Encoding: chunked`); a whole copy on disk would cost a second write
    /// and read of every file. A small form is read into memory to keep its `Content-Length`;
    /// a large one keeps memory flat and goes chunked. The curl and native transports stream
    /// every form with its `Content-Length`.
    static let inMemoryFormLimit: Int64 = 1 << 20

    /// A transfer whose task is made and resumed when it is resumed, on ``startQueue`` when a Swift
    /// task resumes it.
    private final class Transfer: HTTPTransfer {
        private enum State {
            case idle
            /// Resumed: the task is being made.
            case starting
            case started(URLSessionTask)
            case cancelled
        }

        private let session: URLSession
        /// What routes the task's callbacks and cancels it (``SessionRouter/cancel(_:)``).
        private let router: SessionRouter
        private let events: HTTPTransferEvents
        /// The body streamed, if any: a cancel stops its reads first.
        private let body: SessionRouter.StreamedBody?
        private let makeTask: @Sendable (URLSession) -> URLSessionTask
        private let state = Locked(State.idle)

        init(
            session: URLSession, router: SessionRouter, events: HTTPTransferEvents, body: SessionRouter.StreamedBody?,
            makeTask: @escaping @Sendable (URLSession) -> URLSessionTask
        ) {
            (self.session, self.router, self.events, self.body, self.makeTask) = (session, router, events, body, makeTask)
        }

        func resume() {
            let starts = state.withLock { state -> Bool in
                guard case .idle = state else { return false }
                state = .starting
                return true
            }
            guard starts else { return }
            // Called by a Swift task (an awaited start), on a thread of the cooperative pool, which
            // the whole process shares: the task is made on the start queue. From any other thread
            // (a transport's, after a redirect or a retry; a caller's own), here.
            if withUnsafeCurrentTask(body: { $0 != nil }) {
                URLSessionTransport.startQueue.async { self.start() }
            } else {
                start()
            }
        }

        /// Makes the task and resumes it, unless the transfer was cancelled meanwhile.
        private func start() {
            let task = makeTask(session)
            router.register(task, events, streamed: body)
            let starts = state.withLock { state -> Bool in
                guard case .starting = state else { return false }
                state = .started(task)
                return true
            }
            guard starts else {
                // Cancelled while the task was made: it never goes, and leaves the session's tasks.
                router.forget(task)
                task.cancel()
                events.didComplete(error: URLError(.cancelled))
                return
            }
            task.resume()
        }

        func cancel() {
            let (task, reports) = state.withLock { state -> (URLSessionTask?, Bool) in
                switch state {
                case .idle:
                    state = .cancelled
                    return (nil, true)
                case .starting:
                    // `start()` finds it cancelled and reports it.
                    state = .cancelled
                    return (nil, false)
                case .started(let task):
                    return (task, false)
                case .cancelled:
                    return (nil, false)
                }
            }
            body?.interrupted.withLock { $0 = true }
            if let task { router.cancel(task) }
            if reports { events.didComplete(error: URLError(.cancelled)) }
        }
    }

    /// Where the tasks that Swift tasks resume are made and resumed, one after another. One for the
    /// process, as FoundationNetworking's work queue, which those calls wait for, is one: a queue per
    /// transport would block a thread of the dispatch pool each while that queue is busy, and with
    /// enough sessions (the test suite's hundreds) leave no thread to run it (a deadlock, seen).
    private static let startQueue = DispatchQueue(label: "Jewzruxin.URLSessionTransport.start")
}

extension HTTPTransport where Self == URLSessionTransport {
    /// URLSession, made with the configuration of its session:
    /// `HTTPSession(configuration: configuration, transport: .urlSession)`.
    public static var urlSession: URLSessionTransport { URLSessionTransport.urlSession }
}

/// The one URLSession delegate of a ``URLSessionTransport``: routes each task's callbacks to the
/// events of its transfer.
///
/// Challenges and redirects are handled here, at session level, because task-level delegates never
/// see them on Linux (L7). Every challenge gets an explicit answer: default handling without a
/// credential hangs the task (L4) and a nil credential crashes (L5).
final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    /// A body streamed as a task's (a form, or an ``UploadStream``): what makes its stream again,
    /// its length, and the error the stream failed with.
    struct StreamedBody: Sendable {
        /// What the body is read from.
        enum Source: Sendable {
            case form(MultipartFormData.Plan)
            case stream(UploadStream)
        }

        let source: Source
        let failure = BodyInputStream.Failure()
        /// Set when the task is cancelled: a read waiting for an ``UploadStream`` ends then, rather
        /// than holding URLSession's thread (and the cancel that waits for it) until the stream
        /// gives more.
        let interrupted = Locked(false)

        /// The body's length, `nil` when unknown.
        var length: Int64? {
            switch source {
            case .form(let plan): plan.length
            case .stream(let stream): stream.length
            }
        }

        /// A stream of the body from its start.
        func makeStream() -> InputStream {
            switch source {
            case .form(let plan): BodyInputStream(MultipartBodyReader(plan), failure: failure)
            case .stream(let stream):
                BodyInputStream(UploadPipeReader(stream.open()) { [interrupted] in interrupted.withLock { $0 } }, failure: failure)
            }
        }
    }

    private struct Entry {
        let events: HTTPTransferEvents
        /// The body streamed, if it is one (a form, an upload stream).
        var streamed: StreamedBody?
        var receivedResponse = false
        /// A challenge was declined: FoundationNetworking then cancels the task, but the 401/407
        /// response and its body have already arrived and are the outcome.
        var declinedChallenge = false
        /// Why the response was refused (its head breaks ``ResponseRules``): the task was cancelled,
        /// and this is its outcome.
        var rejection: URLError?
        /// The transfer was cancelled: a response or a redirect FoundationNetworking asks about
        /// afterwards gets no answer, since it has stopped the task and traps on one
        /// (`NativeProtocol`: "Received response disposition, but we're not waiting for it";
        /// `HTTPURLProtocol`: "Received callback for HTTP redirection, but we're not waiting for it").
        var cancelled = false
        /// A question of FoundationNetworking's is being answered now: a cancel meanwhile waits
        /// until the answer is given, so that FoundationNetworking takes the answer before it stops
        /// the task.
        var answering = false
    }

    private let entries = Locked([Int: Entry]())
    /// The session's cookies, which the transport sends and stores itself (on Linux); `nil` when
    /// URLSession does, or the session has none.
    let cookies: TransportCookieJar?

    init(cookies: TransportCookieJar?) {
        self.cookies = cookies
    }

    func register(_ task: URLSessionTask, _ events: HTTPTransferEvents, streamed: StreamedBody?) {
        entries.withLock { $0[task.taskIdentifier] = Entry(events: events, streamed: streamed) }
    }

    /// Drops the entry of `task`, which never started: its callbacks are ignored from now on.
    func forget(_ task: URLSessionTask) {
        _ = entries.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func events(for task: URLSessionTask, update: (inout Entry) -> Void = { _ in }) -> HTTPTransferEvents? {
        withEntry(of: task) { entry in
            update(&entry)
            return entry.events
        }
    }

    /// Runs `body` on the entry of `task` under the lock and keeps what it changed; `nil` when the
    /// task has no entry.
    private func withEntry<Result>(of task: URLSessionTask, _ body: (inout Entry) -> Result) -> Result? {
        entries.withLock { entries in
            guard var entry = entries[task.taskIdentifier] else { return nil }
            let result = body(&entry)
            entries[task.taskIdentifier] = entry
            return result
        }
    }

    /// Answers a question FoundationNetworking waits on for `task` (a response's disposition, a
    /// redirect) with `answer`, unless the transfer was cancelled (``Entry/cancelled``); a cancel
    /// that comes meanwhile is carried out after the answer.
    private func answer(_ task: URLSessionTask, _ answer: () -> Void) {
        let answers = withEntry(of: task) { entry -> Bool in
            guard !entry.cancelled else { return false }
            entry.answering = true
            return true
        }
        guard answers == true else { return }
        answer()
        // Cancelled now, not before the answer (it would not have been given): the cancel came
        // while answering, and left the task to this thread (`cancel(_:)`).
        let cancels = withEntry(of: task) { entry -> Bool in
            entry.answering = false
            return entry.cancelled
        }
        // After the answer, which FoundationNetworking's queue takes first.
        if cancels == true { Self.cancelQueue.async { task.cancel() } }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        answer(dataTask) { dispose(of: response, for: dataTask, completionHandler) }
    }

    private func dispose(
        of response: URLResponse, for dataTask: URLSessionDataTask, _ completionHandler: (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse, let request = dataTask.originalRequest,
           let fault = URLSessionTransport.fault(in: http, for: request) {
            // Never handed on: the task is cancelled, and ends with the reason.
            _ = events(for: dataTask) { $0.rejection = fault.urlError(for: http.url ?? request.url) }
            completionHandler(.cancel)
            return
        }
        if let http = response as? HTTPURLResponse, let events = events(for: dataTask, update: { $0.receivedResponse = true }) {
            // Stored before the engine hears of the response: a redirect it follows sends them.
            // FoundationNetworking joins the field lines with ", ", which the jar splits again.
            if let cookies, let request = dataTask.originalRequest, let setCookie = http.value(forHTTPHeaderField: "Set-Cookie") {
                cookies.store([setCookie], for: request)
            }
            events.didReceive(http)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        events(for: dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let rejection = entry.rejection {
            entry.events.didComplete(error: rejection)
            return
        }
        var error = error
        if entry.declinedChallenge, entry.receivedResponse, HTTPCycle.isCancellation(error) {
            error = nil
        }
        // A streamed body that failed (a form's file, an upload stream): URLSession says only that the body did.
        if error != nil, let failure = entry.streamed?.failure.error.withLock({ $0 }) {
            entry.events.didComplete(error: failure)
            return
        }
        entry.events.didComplete(error: error.map { URLSessionTransport.reportedError($0, for: task.originalRequest?.url) })
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Every redirect is refused: the task ends with the 3xx response, and the cycle follows it
        // (or not) as the session's redirect policy says, as on the other transports.
        // FoundationNetworking would follow a 301–303 before the policy is asked, and drops the
        // method and body of a 307 or 308 (L9).
        // Not once the transfer was cancelled: FoundationNetworking has stopped the task then
        // (or will first), and an answer would crash the process (``Entry/cancelled``).
        answer(task) { completionHandler(nil) }
    }

    /// Cancels `task`, off the caller's thread: on Linux `cancel()` waits for the session's busy
    /// work queue, for seconds during a fast transfer, and callbacks would pile up behind it (L1,
    /// L2). Not on a global queue either: with 2 cores, two blocked workers stall every timer and
    /// handler queue of the process; a serial queue of its own gets a thread of its own.
    ///
    /// The transfer is marked cancelled first (``Entry/cancelled``); while a question of
    /// FoundationNetworking's is being answered, the cancel waits for the answer (``answer(_:_:)``).
    func cancel(_ task: URLSessionTask) {
        Self.cancelQueue.async { [self] in
            let now = withEntry(of: task) { entry -> Bool in
                entry.cancelled = true
                return !entry.answering
            }
            if now ?? true { task.cancel() }
        }
    }

    private static let cancelQueue = DispatchQueue(label: "Jewzruxin.URLSessionTransport.cancel")

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        var streamed: StreamedBody?
        guard let events = events(for: task, update: { streamed = $0.streamed }) else { return }
        // A streamed body's length is unknown to URLSession (it says 0); ours may be known.
        let expected = streamed.map { $0.length ?? -1 } ?? totalBytesExpectedToSend
        events.didSend(bytes: bytesSent, totalBytes: totalBytesSent, expectedBytes: expected)
    }

    /// URLSession asks for the body again from its start: a new stream of it.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        var streamed: StreamedBody?
        _ = events(for: task) { streamed = $0.streamed }
        completionHandler(streamed?.makeStream())
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // No credentials to offer: decline. FoundationNetworking then cancels the task, but the
        // 401/407 response and its body have already been delivered (L3), so the cycle is told to
        // end with that response rather than with a cancellation.
        _ = events(for: task) { $0.declinedChallenge = true }
        completionHandler(.rejectProtectionSpace, nil)
    }
}

extension URLSessionTransport: ConnectionAuthenticatingTransport {
    /// Always a reason: FoundationNetworking answers no NTLM or Negotiate challenge, and on Apple
    /// platforms the transport declines every challenge, leaving them to the engine.
    func unavailability(of scheme: ConnectionAuthenticationScheme) -> String? {
        #if canImport(FoundationNetworking)
        "URLSession on Linux (FoundationNetworking) doesn't answer \(scheme.rawValue) challenges; "
            + "the curl transport does, with a libcurl built for \(scheme.rawValue)"
        #else
        "the URLSession transport declines URLSession's challenges, \(scheme.rawValue) included, and the engine can't run "
            + "that handshake, which must go on one connection; the curl transport does, with a libcurl built for it"
        #endif
    }
}
