import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What comes after an attempt, as functions: given how the attempt's transfer ended and what the
// run has counted, the judgement says whether to answer a challenge, follow a redirect, start a
// resumable download over after a 416, decide about a retry, end the run, or go on to the body; and
// given the interceptors' decision or the retry strategy's verdict about a failure, whether to
// retry or end the run. It asks the seams it is given (authentications, the redirect policy, the
// status rule) and calls nothing else: no lock, no transport, no feed. The cycle carries each answer
// out in one place (`HTTPCycle.carryOut(_:attempt:feed:)`), and `JudgementTests` runs the
// judgement without a socket.
extension HTTPCycle {
    /// How the transfer of an attempt ended, with what the judgement needs of the run.
    struct AttemptOutcome: Sendable {
        /// The response as it arrived (no head when none came), its body so far.
        var response: HTTPResponse
        /// The request as the attempt sent it.
        var sent: HTTPRequest
        /// The transport's or the content handler's error, as the cycle reports it.
        var error: (any Error)?
        var counters: StateMachine.Counters
        var solicited: Bool
        var retryableMethods: Set<HTTPMethod>?
        /// How long the run had taken when the attempt ended, in seconds.
        var elapsed: TimeInterval
        /// Whether part of the body already reached an async consumer: such a run can't start over.
        var hasPublishedBody = false
        /// Whether the run has interceptors to ask about a failure.
        var hasInterceptors = false
        /// What a resumable download makes of a failure status (a `416`); `nil` when the run is none.
        var downloadVerdict: (@Sendable (HTTPResponse) -> DownloadContinuationVerdict)?
        /// Why the content handler refused the response, if it did.
        var refusal: (@Sendable (HTTPResponse) -> (any Error)?)?
    }

    /// What the run does after an attempt.
    enum Next: Sendable {
        /// Send this request at once as the next attempt (the transfer's body is of no use).
        case resend(HTTPRequest, reason: StateMachine.ResendReason, keepsUpload: Bool)
        /// End the run with this response and error, without a retry.
        case finish(HTTPResponse, error: any Error)
        /// The attempt failed: ask the interceptors, then the retry strategy, whether to send again.
        case askInterceptors(Failure)
        /// The attempt failed: ask the retry strategy whether to send again.
        case askRetryStrategy(Failure)
        /// The attempt failed: send the request again after this many seconds (none if not a
        /// positive number), or end the run with the failure if the cycle can't wait any more.
        case retry(Failure, after: TimeInterval)
        /// The attempt succeeded: hand the body to the content handler and the response processors.
        case conclude(HTTPResponse)
    }

    /// What the interceptors' `decision` about `failure` leads to: a retry, the end of the run
    /// with their error, or, when none decided, the retry strategy's turn.
    static func next(after decision: HTTPRetryDecision, about failure: Failure) -> Next {
        switch decision {
        case .retry: .retry(failure, after: 0)
        case .retryAfter(let delay): .retry(failure, after: delay)
        case .fail(let error): .finish(failure.response, error: error)
        case .doNotRetry: .askRetryStrategy(failure)
        }
    }

    /// What the retry strategy's `verdict` about `failure` leads to: a retry, or the end of the run
    /// with the failure's error, which says how many attempts were made and why no other followed
    /// when that is news (more than one attempt, or a retry refused as unsafe).
    static func next(after verdict: HTTPRetryVerdict, about failure: Failure) -> Next {
        switch verdict {
        case .retry(let delay):
            return .retry(failure, after: delay)
        case .giveUp(let reason):
            var (error, response) = (failure.error, failure.response)
            if failure.counters.retried > 0 || !HTTPSession.isPlainRefusal(reason) {
                let summary = HTTPRetrySummary(attempts: failure.counters.retried + 1, reason: reason)
                error = HTTPError.summarising(error, with: summary)
                response.retrySummary = summary
            }
            return .finish(response, error: error)
        }
    }

    /// The seams a judgement asks: the cycle's own, else its session's.
    struct Judge: Sendable {
        /// What answers a `401`.
        var authentications: [any HTTPAuthenticator]
        var redirectPolicy: any HTTPRedirectPolicy
        /// Whether a status ends the run as a failure (the session delegate's rule, else ≥ 400).
        var isFailureStatus: @Sendable (Int) -> Bool
        /// Why a `401` asking for NTLM or Negotiate can't be answered here, if it can't.
        var unavailableAuthentication: @Sendable (HTTPResponse, HTTPRequest) -> HTTPError?

        /// What comes after `outcome`.
        func next(after outcome: AttemptOutcome) -> Next {
            var error = outcome.error
            let response = outcome.response
            if error == nil, !response.hasHead {
                // FoundationNetworking ends a 301/302/303 without a `Location` this way: no error and
                // no response.
                error = HTTPError.transport(URLError(.badServerResponse, userInfo: [
                    NSLocalizedDescriptionKey: "The transfer ended without an HTTP response.",
                    NSURLErrorFailingURLErrorKey: outcome.sent.url as Any,
                ]))
            }
            if error == nil, let status = response.statusCode {
                if status == 401, let answer = challengeAnswer(outcome) {
                    return .resend(answer, reason: .authentication, keepsUpload: true)
                }
                switch redirectPolicy.action(for: response, request: outcome.sent, redirectCount: outcome.counters.redirects) {
                case .follow(let request, let keepsBody):
                    return .resend(request, reason: .redirect, keepsUpload: keepsBody)
                case .fail(let failure):
                    return .finish(response, error: failure)
                case .deliver:
                    break
                }
                if status == 401, outcome.counters.authenticationFailures == 0,
                   let unavailable = unavailableAuthentication(response, outcome.sent) {
                    error = unavailable
                } else if isFailureStatus(status) {
                    switch outcome.downloadVerdict?(response) ?? .fail {
                    case .complete:
                        break
                    case .restart where outcome.counters.restarts == 0:
                        return .resend(outcome.sent, reason: .restart, keepsUpload: true)
                    case .restart, .fail:
                        error = HTTPError.statusCodeSeemsToHaveErred(response)
                    }
                }
                if error == nil, let refusal = outcome.refusal?(response) {
                    error = refusal
                }
            }
            guard let error else { return .conclude(response) }
            // A body already partly streamed can't start over: the run ends with its error.
            if outcome.hasPublishedBody { return .finish(response, error: error) }
            let failure = Failure(outcome, error: error)
            return outcome.hasInterceptors && !HTTPCycle.isCancelled(error) ? .askInterceptors(failure) : .askRetryStrategy(failure)
        }

        /// The request answering a 401's challenges with an `Authorization`, once (twice for a stale
        /// Digest nonce); `nil` when no authentication answers or answers were already refused.
        private func challengeAnswer(_ outcome: AttemptOutcome) -> HTTPRequest? {
            guard !authentications.isEmpty else { return nil }
            let failures = outcome.counters.authenticationFailures
            guard failures == 0 || (failures == 1 && HTTPCycle.isStaleChallenge(outcome.response)) else { return nil }
            for authentication in authentications {
                guard let value = authentication.authorization(
                    for: outcome.response, request: outcome.sent, previousFailureCount: failures)
                else { continue }
                var request = outcome.sent
                request.setValue(value, forHTTPHeaderField: "Authorization")
                return request
            }
            return nil
        }
    }
}
