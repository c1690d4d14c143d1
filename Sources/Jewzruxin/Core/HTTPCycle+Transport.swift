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
        try locked.withLock { s in
            guard s.machine.isCurrent(attempt) else { return }
            s.response.core = http
            try s.body.prepare(for: http)
        }
    }

    func transportDidReceive(_ chunk: Data, attempt: Int) throws {
        let progress = try locked.withLock { s -> (DidWriteBodyDataHandler, Int64, Int64)? in
            guard s.machine.isCurrent(attempt) else { return nil }
            try s.body.append(chunk)
            guard let handler = s.didWriteData, let file = s.body as? DownloadFile else { return nil }
            return (handler, file.bytesWritten, Self.expectedLength(of: s.response))
        }
        if let (handler, total, expected) = progress {
            let written = Int64(chunk.count)
            session.delegateQueue.addOperation { handler(self, written, total, expected) }
        }
    }

    func transportDidSend(bytes: Int64, total: Int64, expected: Int64, attempt: Int) {
        let handler = locked.withLock { s in s.machine.isCurrent(attempt) ? s.didSendBodyData : nil }
        guard let handler else { return }
        session.delegateQueue.addOperation { handler(self, bytes, total, expected) }
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

    /// What a finished transfer left, taken out under the lock.
    private struct Outcome {
        var response: HTTPResponse
        var sent: HTTPRequest
        var body: any ResponseBodyConsumer
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
            s.response.data = s.body.data
            let body = s.body
            s.body = DataAccumulator()
            var error = s.consumerError ?? transportError
            if s.consumerError == nil, s.declinedChallenge, s.response.core != nil, Self.isCancellation(transportError) {
                error = nil
            }
            return Outcome(
                response: s.response, sent: s.sentRequest ?? s.request, body: body, error: error.map(Self.mapTransportError),
                responseProcessors: s.responseProcessors, authentications: s.authentications,
                authenticationFailures: s.authenticationFailures, redirectCount: s.redirectCount,
                retriedCount: s.retriedCount, solicited: s.solicited)
        }
        guard let outcome = taken else { return }
        judge(outcome, attempt: attempt)
    }

    private func judge(_ outcome: Outcome, attempt: Int) {
        var outcome = outcome
        if outcome.error == nil, let status = outcome.response.statusCode {
            if status == 401, answerChallenge(outcome, attempt: attempt) {
                outcome.body.discard()
                return
            }
            if status == 307 || status == 308 {
                if followRedirect(outcome, attempt: attempt) {
                    outcome.body.discard()
                    return
                }
            } else if session.shouldTreatStatusCodeAsFailure(status) {
                outcome.error = HTTPError.statusCodeSeemsToHaveErred(outcome.response)
            }
        }
        if let error = outcome.error {
            // Whatever happens next, this try's body (a partial download file) is of no use.
            outcome.body.discard()
            if session.shouldRetry(self, error: error), let delay = session.retryPolicy.delay(
                beforeRetry: outcome.retriedCount + 1, response: outcome.response.core == nil ? nil : outcome.response),
               scheduleRetry(after: attempt, delay: delay) {
                return
            }
            finish(attempt: attempt, response: outcome.response, error: error)
            return
        }
        if var download = outcome.body as? DownloadFile {
            guard download.close() else {
                download.discard()
                finish(attempt: attempt, response: outcome.response, error: CocoaError(.fileWriteUnknown))
                return
            }
            finish(attempt: attempt, response: outcome.response, error: nil, download: download)
            return
        }
        let processors = outcome.responseProcessors ?? session.responseProcessors
        guard !processors.isEmpty else {
            finish(attempt: attempt, response: outcome.response, error: nil)
            return
        }
        let response = outcome.response
        session.workerQueue.addOperation {
            var processed = response
            do {
                for processor in processors { try processor.processResponse(&processed) }
                self.finish(attempt: attempt, response: processed, error: nil)
            } catch {
                self.finish(attempt: attempt, response: response, error: error)
            }
        }
    }

    /// Resends with an `Authorization` answering a 401's challenges, once (twice for a stale Digest
    /// nonce); `false` when no authentication answers or answers were already refused.
    private func answerChallenge(_ outcome: Outcome, attempt: Int) -> Bool {
        let authentications = outcome.authentications ?? session.authentications
        guard !authentications.isEmpty else { return false }
        let failures = outcome.authenticationFailures
        guard failures == 0 || (failures == 1 && Self.isStaleChallenge(outcome.response)) else { return false }
        for authentication in authentications {
            guard let value = authentication.authorization(
                for: outcome.response, request: outcome.sent, previousFailureCount: failures)
            else { continue }
            var request = outcome.sent
            request.setValue(value, forHTTPHeaderField: "Authorization")
            resend(request, after: attempt) { $0.authenticationFailures += 1 }
            return true
        }
        return false
    }

    /// Follows a 307/308 itself, keeping the method and body (URLSession on Linux drops the body, L9).
    private func followRedirect(_ outcome: Outcome, attempt: Int) -> Bool {
        guard let target = outcome.response.core?.resolvedLocation(base: outcome.sent.url) else { return false }
        guard outcome.redirectCount < Self.maximumRedirectCount else {
            finish(attempt: attempt, response: outcome.response, error: HTTPError.transport(URLError(.httpTooManyRedirects)))
            return true
        }
        var request = outcome.sent
        request.core.url = target
        resend(request, after: attempt) { $0.redirectCount += 1 }
        return true
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
        guard let core = response.core, core.value(forHTTPHeaderField: "Content-Encoding") == nil else { return -1 }
        return core.expectedContentLength
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
        return urlError.code == .cancelled ? HTTPError.cancelled : HTTPError.transport(urlError)
    }
}
