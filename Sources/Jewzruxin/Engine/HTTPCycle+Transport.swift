import Foundation
import JewzruxinAuth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What the session's URLSession delegate reports, and how a finished transfer is judged.
extension HTTPCycle {
    /// Redirects followed by the cycle itself (307/308) in one run before it gives up.
    static let maximumRedirectCount = 16

    func transportDidReceive(_ response: URLResponse, attempt: Int) throws {
        guard let http = response as? HTTPURLResponse else { return }
        try transportDidReceive(HTTPResponse(core: http), attempt: attempt)
    }

    /// A response head arrived: `response` has it and no body.
    func transportDidReceive(_ response: HTTPResponse, attempt: Int) throws {
        let feed = locked.withLock { s -> ContentFeed? in
            guard s.machine.isCurrent(attempt) else { return nil }
            s.response.head = response.head
            return s.feed
        }
        try feed?.receive(response)
    }

    func transportDidReceive(_ chunk: Data, attempt: Int) throws {
        let taken = locked.withLock { s -> (ContentFeed, DidWriteBodyDataHandler?, HTTPResponse)? in
            guard s.machine.isCurrent(attempt), let feed = s.feed else { return nil }
            return (feed, s.didWriteData, s.response)
        }
        guard let (feed, handler, response) = taken, let total = try feed.append(chunk), let handler else { return }
        let written = Int64(chunk.count)
        let expected = Self.expectedLength(of: response)
        session.delivery.enqueue { handler(self, written, total, expected) }
    }

    func transportDidSend(bytes: Int64, total: Int64, expected: Int64, attempt: Int) {
        let handler = locked.withLock { s in s.machine.isCurrent(attempt) ? s.didSendBodyData : nil }
        guard let handler else { return }
        session.delivery.enqueue { handler(self, bytes, total, expected) }
    }

    /// The content handler failed: stop the transfer and end the attempt with `error` at once,
    /// without waiting for the transport to report the cancel (URLSession on Linux may take seconds,
    /// or deliver the rest of the body first). Its late callbacks are then ignored.
    func transportDidFail(_ error: any Error, attempt: Int) {
        let task = locked.withLock { s -> (any HTTPTransfer)? in
            guard s.machine.isCurrent(attempt), s.consumerError == nil else { return nil }
            s.consumerError = error
            return s.task
        }
        guard let task else { return }
        task.cancel()
        transportDidComplete(error: error, attempt: attempt)
    }

    /// What a finished transfer left, taken out under the lock.
    private struct Outcome {
        var response: HTTPResponse
        var sent: HTTPRequest
        var feed: ContentFeed
        var error: (any Error)?
        var responseProcessors: [HTTPProcessor]?
        var authentications: [Authentication]?
        var authenticationFailures: Int
        var redirectCount: Int
        var retriedCount: Int
        var solicited: Bool
    }

    func transportDidComplete(error transportError: (any Error)?, attempt: Int) {
        let taken = locked.withLock { s -> Outcome? in
            guard s.machine.transportCompleted(attempt: attempt) else { return nil }
            s.task = nil
            // The feed stays with the cycle until the run moves on: a cancel or restart during the
            // parse then waits for it, so the handler never serves two responses at once.
            let feed = s.feed ?? .implicit()
            let error = s.consumerError ?? transportError
            return Outcome(
                response: s.response, sent: s.sentRequest ?? s.request, feed: feed, error: error.map(Self.mapTransportError),
                responseProcessors: s.responseProcessors, authentications: s.authentications,
                authenticationFailures: s.authenticationFailures, redirectCount: s.redirectCount,
                retriedCount: s.retriedCount, solicited: s.solicited)
        }
        guard var outcome = taken else { return }
        outcome.response.data = outcome.feed.bodySoFar
        judge(outcome, attempt: attempt)
    }

    private func judge(_ outcome: Outcome, attempt: Int) {
        var outcome = outcome
        if outcome.error == nil, !outcome.response.hasHead {
            // FoundationNetworking ends a 301/302/303 without a `Location` this way: no error and
            // no response.
            outcome.error = HTTPError.transport(URLError(.badServerResponse, userInfo: [
                NSLocalizedDescriptionKey: "The transfer ended without an HTTP response.",
                NSURLErrorFailingURLErrorKey: outcome.sent.url as Any,
            ]))
        }
        if outcome.error == nil, let status = outcome.response.statusCode {
            if status == 401, let (request, update) = challengeAnswer(outcome) {
                outcome.feed.abandon()
                resend(request, after: attempt, update: update)
                return
            }
            if Self.redirectStatuses.contains(status) {
                switch redirect(outcome) {
                case .follow(let request, let keepsBody):
                    outcome.feed.abandon()
                    resend(request, after: attempt, keepsUpload: keepsBody) { $0.redirectCount += 1 }
                    return
                case .tooMany:
                    outcome.feed.abandon()
                    finish(attempt: attempt, response: outcome.response, error: HTTPError.transport(URLError(.httpTooManyRedirects)))
                    return
                case .none:
                    break
                }
            }
            if outcome.error == nil, session.shouldTreatStatusCodeAsFailure(status) {
                outcome.error = HTTPError.statusCodeSeemsToHaveErred(outcome.response)
            }
            if outcome.error == nil, let refusal = outcome.feed.refusal(for: outcome.response) {
                outcome.error = refusal
            }
        }
        if let error = outcome.error {
            // Whatever happens next, this try's body (a partial file) is of no use.
            outcome.feed.abandon()
            if session.shouldRetry(self, error: error), let delay = session.retryPolicy.delay(
                beforeRetry: outcome.retriedCount + 1, response: outcome.response.hasHead ? outcome.response : nil),
               scheduleRetry(after: attempt, delay: delay) {
                return
            }
            finish(attempt: attempt, response: outcome.response, error: error)
            return
        }
        let processors = outcome.feed.download == nil ? outcome.responseProcessors ?? session.responseProcessors : []
        if outcome.feed.isImplicit && processors.isEmpty {
            conclude(outcome.response, feed: outcome.feed, processors: [], attempt: attempt)
        } else {
            let (response, feed) = (outcome.response, outcome.feed)
            session.workerQueue.addOperation { self.conclude(response, feed: feed, processors: processors, attempt: attempt) }
        }
    }

    /// Gets the content from the handler, runs the response processors and finishes the run.
    private func conclude(_ response: HTTPResponse, feed: ContentFeed, processors: [HTTPProcessor], attempt: Int) {
        var response = response
        let parsed = feed.parse()
        response.data = parsed.data
        response.content = parsed.content
        if let error = parsed.error {
            if let download = feed.download { Self.removeDownload(download) }
            finish(attempt: attempt, response: response, error: error)
            return
        }
        var processed = response
        do {
            for processor in processors { try processor.processResponse(&processed) }
        } catch {
            finish(attempt: attempt, response: response, error: error)
            return
        }
        finish(attempt: attempt, response: processed, error: nil, download: feed.download)
    }

    /// The request answering a 401's challenges with an `Authorization`, once (twice for a stale
    /// Digest nonce), and how to count it; `nil` when no authentication answers or answers were
    /// already refused.
    private func challengeAnswer(_ outcome: Outcome) -> (HTTPRequest, (inout Locked) -> Void)? {
        let authentications = outcome.authentications ?? session.authentications
        guard !authentications.isEmpty else { return nil }
        let failures = outcome.authenticationFailures
        guard failures == 0 || (failures == 1 && Self.isStaleChallenge(outcome.response)) else { return nil }
        for authentication in authentications {
            guard let value = authentication.authorization(
                for: outcome.response, request: outcome.sent, previousFailureCount: failures)
            else { continue }
            var request = outcome.sent
            request.setValue(value, forHTTPHeaderField: "Authorization")
            return (request, { $0.authenticationFailures += 1 })
        }
        return nil
    }

    private enum Redirect {
        case follow(HTTPRequest, keepsBody: Bool)
        case tooMany
        case none
    }

    /// The statuses the cycle follows when its transport hands them over: URLSession follows
    /// 301/302/303 itself (so only 307/308, whose body it drops, L9, reach the cycle); other
    /// transports leave them all to the cycle.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request that follows a redirect, as browsers and curl do: 307/308 keep the method and
    /// body; 303 (and 301/302 after a POST) become a GET without a body.
    private func redirect(_ outcome: Outcome) -> Redirect {
        guard let status = outcome.response.statusCode,
              let target = outcome.response.core?.resolvedLocation(base: outcome.sent.url),
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return .none }
        guard outcome.redirectCount < Self.maximumRedirectCount else { return .tooMany }
        var request = outcome.sent
        let keepsBody = Self.redirectedMethod(request.method, status: status) == request.method
        request.method = Self.redirectedMethod(request.method, status: status)
        if !keepsBody {
            request.data = nil
            request.core.httpBody = nil
            request.setValue(nil, forHTTPHeaderField: "Content-Type")
            request.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        Self.redirect(&request.core, to: target)
        return .follow(request, keepsBody: keepsBody)
    }

    /// The method a request is sent again with after a redirect with `status`.
    static func redirectedMethod(_ method: HTTPMethod, status: Int) -> HTTPMethod {
        switch status {
        case 303 where method != .head: return .get
        case 301 where method == .post, 302 where method == .post: return .get
        default: return method
        }
    }

    /// Aims `request` at `target`; when the origin changes (scheme, host or port) the caller's
    /// `Authorization` and `Cookie` headers are not sent there (curl's rule).
    static func redirect(_ request: inout URLRequest, to target: URL) {
        if let source = request.url, !isSameOrigin(source, target) {
            request.setValue(nil, forHTTPHeaderField: "Authorization")
            request.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        request.url = target
    }

    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
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
        if urlError.code == .cancelled { return HTTPError.cancelled }
        return HTTPError.transport(untrustedCertificateError(urlError) ?? urlError)
    }

    /// The beginnings of libcurl's messages for a server certificate it could not verify (OpenSSL
    /// and GnuTLS back ends): an unknown or self-signed issuer, an expired certificate, another
    /// host's name.
    static let certificateProblemMessages = [
        "SSL certificate problem",
        "SSL: no alternative certificate subject name matches",
        "SSL: certificate subject name",
        "SSL: unable to obtain common name",
        "server certificate verification failed",
    ]

    /// `error` as `serverCertificateUntrusted`, when it is FoundationNetworking's report of a
    /// certificate that failed verification: code `unknown` (-1, not -1202) with libcurl's message,
    /// such as "SSL certificate problem: self-signed certificate" (L12); `nil` for anything else,
    /// such as a body cut short, which is reported as -1 too.
    static func untrustedCertificateError(_ error: URLError) -> URLError? {
        guard error.code == .unknown else { return nil }
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let messages = [error.userInfo[NSLocalizedDescriptionKey] as? String, underlying?.userInfo[NSLocalizedDescriptionKey] as? String]
        guard let message = messages.compactMap({ $0 }).first(where: { message in
            certificateProblemMessages.contains { message.hasPrefix($0) }
        }) else { return nil }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "The server's TLS certificate is not trusted (on Linux, trust comes from the system CA "
                + "bundle, and URLSession can't be told to trust another certificate): \(message)",
            NSUnderlyingErrorKey: error as NSError,
        ]
        if let url = error.failingURL { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.serverCertificateUntrusted, userInfo: userInfo)
    }
}
