import Foundation
import Testing
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An authentication that answers any challenge with a fixed value, counting the failures it saw.
private struct FixedAnswer: HTTPAuthenticator {
    let value: String?
    func authorization(for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int) -> String? { value }
}

/// A redirect policy that answers the same whatever it is asked.
private struct FixedRedirect: HTTPRedirectPolicy {
    let action: HTTPRedirectAction
    func action(for response: HTTPResponse, request: HTTPRequest, redirectCount: Int) -> HTTPRedirectAction { action }
}

/// What comes after an attempt, decided without a socket, a lock or a feed: the judgement's answer
/// for each kind of outcome, in the order the engine asks.
@Suite("Judgement after an attempt")
struct JudgementTests {
    typealias Outcome = HTTPCycle.AttemptOutcome
    static let url = URL(fileURLWithPath: "/judged")
    static let sent = HTTPRequest(url: url, method: .get)

    static func response(_ status: Int, _ fields: [HTTPResponseHead.Field] = []) -> HTTPResponse {
        HTTPResponse(head: HTTPResponseHead(url: url, statusCode: status, fields: fields))
    }

    static func outcome(_ response: HTTPResponse, error: (any Error)? = nil, counters: HTTPCycle.StateMachine.Counters = .init()) -> Outcome {
        Outcome(response: response, sent: sent, error: error, counters: counters, solicited: false, retryableMethods: nil, elapsed: 0)
    }

    static func judge(
        authentications: [any HTTPAuthenticator] = [], redirect: HTTPRedirectAction = .deliver,
        unavailable: HTTPError? = nil
    ) -> HTTPCycle.Judge {
        HTTPCycle.Judge(
            authentications: authentications, redirectPolicy: FixedRedirect(action: redirect),
            isFailureStatus: { $0 >= 400 }, unavailableAuthentication: { _, _ in unavailable })
    }

    /// The label of an answer and what it carries that the tests look at.
    static func describe(_ next: HTTPCycle.Next) -> String {
        switch next {
        case .resend(let request, let reason, let keepsUpload):
            "resend \(reason) keepsUpload=\(keepsUpload) auth=\(request.value(forHTTPHeaderField: "Authorization") ?? "-")"
        case .finish(let response, let error): "finish \(response.statusCode ?? 0) \(type(of: error))"
        case .askInterceptors(let failure): "interceptors \(failure.response.statusCode ?? 0)"
        case .askRetryStrategy(let failure): "strategy \(failure.response.statusCode ?? 0)"
        case .retry(let failure, let delay): "retry \(failure.response.statusCode ?? 0) after \(delay)"
        case .conclude(let response): "conclude \(response.statusCode ?? 0)"
        }
    }

    @Test("a success status goes on to the body")
    func success() {
        #expect(Self.describe(Self.judge().next(after: Self.outcome(Self.response(200)))) == "conclude 200")
    }

    @Test("a transfer that ended with neither an error nor a head is a bad server response, asked about as a failure")
    func noHead() {
        let next = Self.judge().next(after: Self.outcome(HTTPResponse()))
        guard case .askRetryStrategy(let failure) = next, case HTTPError.transport(let error) = failure.error else {
            Issue.record("got \(Self.describe(next))")
            return
        }
        #expect(error.code == .badServerResponse)
    }

    @Test("a 401 is answered once by the first authentication with an answer; a second 401 is the outcome")
    func challenge() {
        let judge = Self.judge(authentications: [FixedAnswer(value: nil), FixedAnswer(value: "Basic dGVzdA==")])
        #expect(Self.describe(judge.next(after: Self.outcome(Self.response(401)))) == "resend authentication keepsUpload=true auth=Basic dGVzdA==")
        var counters = HTTPCycle.StateMachine.Counters()
        counters.authenticationFailures = 1
        #expect(Self.describe(judge.next(after: Self.outcome(Self.response(401), counters: counters))) == "strategy 401")
    }

    @Test("a stale Digest nonce earns one more answer")
    func staleNonce() {
        let judge = Self.judge(authentications: [FixedAnswer(value: "Digest x")])
        var counters = HTTPCycle.StateMachine.Counters()
        counters.authenticationFailures = 1
        let stale = Self.response(401, [.init(name: "WWW-Authenticate", value: #"Digest realm="r", nonce="n", stale=true"#)])
        #expect(Self.describe(judge.next(after: Self.outcome(stale, counters: counters))) == "resend authentication keepsUpload=true auth=Digest x")
        counters.authenticationFailures = 2
        #expect(Self.describe(judge.next(after: Self.outcome(stale, counters: counters))) == "strategy 401")
    }

    @Test("the redirect policy is asked after the challenge: follow resends, fail ends the run without a retry")
    func redirects() {
        var target = Self.sent
        target.setValue("1", forHTTPHeaderField: "X-Target")
        let follow = Self.judge(redirect: .follow(target, keepsBody: false)).next(after: Self.outcome(Self.response(302)))
        #expect(Self.describe(follow) == "resend redirect keepsUpload=false auth=-")
        let fail = Self.judge(redirect: .fail(HTTPError.cancelled)).next(after: Self.outcome(Self.response(302)))
        #expect(Self.describe(fail) == "finish 302 HTTPError")
    }

    @Test("a 401 no authentication here can answer (NTLM on a transport without it) fails with the reason, not the status")
    func unavailableAuthentication() {
        let unavailable = HTTPError.authenticationUnavailable(scheme: "NTLM", reason: "not here", response: Self.response(401))
        let next = Self.judge(unavailable: unavailable).next(after: Self.outcome(Self.response(401)))
        guard case .askRetryStrategy(let failure) = next, case HTTPError.authenticationUnavailable = failure.error else {
            Issue.record("got \(Self.describe(next))")
            return
        }
    }

    @Test("a failure status fails; a resumable download's 416 completes it or starts it over once")
    func failureStatusAndDownloads() {
        let judge = Self.judge()
        let notFound = judge.next(after: Self.outcome(Self.response(404)))
        guard case .askRetryStrategy(let failure) = notFound, case HTTPError.statusCodeSeemsToHaveErred = failure.error else {
            Issue.record("got \(Self.describe(notFound))")
            return
        }
        var complete = Self.outcome(Self.response(416))
        complete.downloadVerdict = { _ in .complete }
        #expect(Self.describe(judge.next(after: complete)) == "conclude 416")
        var restart = Self.outcome(Self.response(416))
        restart.downloadVerdict = { _ in .restart }
        #expect(Self.describe(judge.next(after: restart)) == "resend restart keepsUpload=true auth=-")
        restart.counters.restarts = 1
        #expect(Self.describe(judge.next(after: restart)) == "strategy 416")
    }

    @Test("a content handler's refusal of a success is the failure")
    func refusal() {
        var outcome = Self.outcome(Self.response(200))
        outcome.refusal = { _ in HTTPError.cancelled }
        #expect(Self.describe(Self.judge().next(after: outcome)) == "strategy 200")
    }

    @Test("a transport error is asked about: the interceptors first when there are any, never for a cancel")
    func transportErrors() {
        let timeout = HTTPError.transport(URLError(.timedOut))
        var outcome = Self.outcome(HTTPResponse(), error: timeout)
        #expect(Self.describe(Self.judge().next(after: outcome)) == "strategy 0")
        outcome.hasInterceptors = true
        #expect(Self.describe(Self.judge().next(after: outcome)) == "interceptors 0")
        outcome.error = HTTPError.cancelled
        #expect(Self.describe(Self.judge().next(after: outcome)) == "strategy 0")
    }

    @Test("a body already partly streamed ends the run with the error: it can't start over")
    func publishedBody() {
        var outcome = Self.outcome(Self.response(200), error: HTTPError.transport(URLError(.networkConnectionLost)))
        outcome.hasPublishedBody = true
        outcome.hasInterceptors = true
        #expect(Self.describe(Self.judge().next(after: outcome)) == "finish 200 HTTPError")
    }

    static func failure(retried: Int = 0) -> HTTPCycle.Failure {
        var counters = HTTPCycle.StateMachine.Counters()
        counters.retried = retried
        return HTTPCycle.Failure(
            response: response(503), sent: sent, error: HTTPError.statusCodeSeemsToHaveErred(response(503)), counters: counters,
            solicited: false, retryableMethods: nil, elapsed: 0)
    }

    @Test("the interceptors' decision: a retry now or later, their error, or the retry strategy's turn")
    func interceptorDecisions() {
        let failure = Self.failure()
        #expect(Self.describe(HTTPCycle.next(after: HTTPRetryDecision.retry, about: failure)) == "retry 503 after 0.0")
        #expect(Self.describe(HTTPCycle.next(after: HTTPRetryDecision.retryAfter(2.5), about: failure)) == "retry 503 after 2.5")
        #expect(Self.describe(HTTPCycle.next(after: HTTPRetryDecision.fail(CancellationError()), about: failure)) == "finish 503 CancellationError")
        #expect(Self.describe(HTTPCycle.next(after: HTTPRetryDecision.doNotRetry, about: failure)) == "strategy 503")
    }

    @Test("the retry strategy's verdict: a retry, or the end of the run, summarised when that is news")
    func strategyVerdicts() {
        #expect(Self.describe(HTTPCycle.next(after: HTTPRetryVerdict.retry(after: 1), about: Self.failure())) == "retry 503 after 1.0")
        // A first attempt refused as plainly not resent: the error as it was, no summary.
        guard case .finish(let plain, let plainError) = HTTPCycle.next(after: .giveUp(HTTPSession.notResent), about: Self.failure()) else {
            Issue.record("not a finish")
            return
        }
        #expect(plain.retrySummary == nil)
        #expect((plainError as? HTTPError)?.retrySummary == nil)
        // After retries: how many attempts and why no other followed, in the response and the error.
        guard case .finish(let summarised, let error) = HTTPCycle.next(after: .giveUp("the retry limit of 3 was reached"), about: Self.failure(retried: 3)) else {
            Issue.record("not a finish")
            return
        }
        #expect(summarised.retrySummary?.attempts == 4)
        #expect(String(describing: error).contains("gave up after 4 attempts: the retry limit of 3 was reached"))
    }
}
