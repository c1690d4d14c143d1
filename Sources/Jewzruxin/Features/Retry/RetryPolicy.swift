import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a session resends a failed request, and how long it waits first.
///
/// By default a cycle is resent when the request timed out or the server answered 408 or 503, at
/// most ``maximumRetryCount`` times, ``retryDelay`` seconds apart, or after the time a `Retry-After`
/// header asks for, and no retry begins more than ``retryTimeLimit`` seconds after the run did. A
/// *solicited* cycle (``HTTPCycle/solicited``) is resent after any error, with no limit, until a
/// response succeeds. An ``HTTPSessionDelegate`` can override the decision per cycle.
///
/// Only a request that is safe to send twice is resent (RFC 9110 §9.2.2): one whose method is in
/// ``retryableMethods`` (the idempotent ones: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`),
/// one with an `Idempotency-Key` header, or one whose attempt failed before a byte of it went out
/// (a refused connection, a connect timeout). A `POST` that timed out waiting for its answer may have
/// been carried out: sending it again could order twice. The seeds resend every method; to do that,
/// use ``seed``, or add `POST` and `PATCH` to ``retryableMethods`` (for the session) or to a cycle's
/// ``HTTPCycle/retryableMethods``.
public struct RetryPolicy: HTTPRetryStrategy, Hashable {
    /// How the wait grows from one retry to the next.
    public enum Backoff: Sendable, Hashable {
        /// Always ``RetryPolicy/retryDelay``.
        case constant
        /// ``RetryPolicy/retryDelay`` × `multiplier`^(retry − 1), at most `maximumDelay`; with
        /// `jitter`, a random wait between half of that and all of it (so clients that failed
        /// together don't retry together).
        case exponential(multiplier: Double, maximumDelay: TimeInterval, jitter: Bool)
    }

    /// How many times a cycle that isn't solicited is resent; the seed's
    /// `RetryPolicyMaximumRetryCount`.
    public var maximumRetryCount: Int
    /// The wait before the first retry, in seconds.
    public var retryDelay: TimeInterval
    /// How the wait grows.
    public var backoff: Backoff
    /// Status codes that are worth resending.
    public var retryableStatusCodes: Set<Int>
    /// Whether a `Retry-After` header (seconds or an HTTP date) sets the wait.
    public var honorsRetryAfter: Bool
    /// The longest `Retry-After` wait honoured; a longer one ends the cycle with its error instead.
    public var maximumRetryAfter: TimeInterval
    /// The methods resent after a failure that may have reached the server.
    public var retryableMethods: Set<HTTPMethod>
    /// How long after a run began a retry may still begin, in seconds: a retry that would begin
    /// later isn't made, so that a server that never answers fails a run in bounded time (with the
    /// defaults, 60 s idle, 1 s, 60 s: about two minutes) rather than after every attempt's idle
    /// timeout. Solicited cycles have no limit. `.infinity` for none.
    public var retryTimeLimit: TimeInterval

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumRetryCount: How many times a cycle is resent, 3 by default.
    ///   - retryDelay: The wait before the first retry, 1 second by default.
    ///   - backoff: How the wait grows, constant by default.
    ///   - retryableStatusCodes: The statuses worth resending, 408 and 503 by default.
    ///   - honorsRetryAfter: Whether `Retry-After` sets the wait, `true` by default.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured, 120 seconds by default.
    ///   - retryableMethods: The methods resent after a failure that may have reached the server,
    ///     ``HTTPMethod/idempotent`` by default.
    ///   - retryTimeLimit: How long after a run began a retry may begin, 90 seconds by default.
    public init(
        maximumRetryCount: Int = 3, retryDelay: TimeInterval = 1, backoff: Backoff = .constant,
        retryableStatusCodes: Set<Int> = [408, 503], honorsRetryAfter: Bool = true,
        maximumRetryAfter: TimeInterval = 120, retryableMethods: Set<HTTPMethod> = HTTPMethod.idempotent,
        retryTimeLimit: TimeInterval = 90
    ) {
        self.maximumRetryCount = maximumRetryCount
        self.retryDelay = retryDelay
        self.backoff = backoff
        self.retryableStatusCodes = retryableStatusCodes
        self.honorsRetryAfter = honorsRetryAfter
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableMethods = retryableMethods
        self.retryTimeLimit = retryTimeLimit
    }

    /// The policy sessions start with.
    public static let `default` = RetryPolicy()

    /// The seeds' policy: every common method resent (`POST` and `PATCH` included) after a timeout,
    /// 408 or 503, with no time limit. Unsafe for a request the server may act on twice: prefer
    /// ``default`` with an `Idempotency-Key` header, or a cycle's ``HTTPCycle/retryableMethods``.
    public static let seed = RetryPolicy(
        retryableMethods: HTTPMethod.idempotent.union([.post, .patch]), retryTimeLimit: .infinity)

    /// Exponential backoff with jitter: 0.5 s, 1 s, 2 s… at most 30 s, up to 5 retries.
    public static let exponentialBackoff = RetryPolicy(
        maximumRetryCount: 5, retryDelay: 0.5, backoff: .exponential(multiplier: 2, maximumDelay: 30, jitter: true))

    /// Whether a cycle that ended with `error` after `retriedCount` retries should be resent.
    ///
    /// - Parameters:
    ///   - error: The error the try ended with.
    ///   - retriedCount: How many times the cycle has been resent in this run.
    ///   - solicited: Whether the cycle is solicited: then any error is retried, without limit.
    ///
    /// A cancellation is never retried, nor is a content handler's own failure
    /// (``ContentHandlerError``: a refused response, a body too large, a file that can't be
    /// written), nor an NTLM or Negotiate challenge that can't be answered
    /// (``HTTPError/authenticationUnavailable(scheme:reason:response:)``): sending again would end
    /// the same way.
    public func shouldRetry(error: any Error, retriedCount: Int, solicited: Bool) -> Bool {
        if case HTTPError.cancelled = error { return false }
        if error is ContentHandlerError { return false }
        // The same transport and credentials would meet the same challenge.
        if case HTTPError.authenticationUnavailable = error { return false }
        if solicited { return true }
        guard retriedCount < maximumRetryCount else { return false }
        switch error {
        case HTTPError.transport(let urlError):
            return urlError.code == .timedOut
        case HTTPError.statusCodeSeemsToHaveErred(let response):
            return response.statusCode.map(retryableStatusCodes.contains) ?? false
        default:
            return false
        }
    }

    /// Whether the failed attempt is sent again and when, or why not: ``shouldRetry(error:retriedCount:solicited:)``,
    /// the method rule, the `Retry-After` limit, then ``retryTimeLimit``.
    public func verdict(for failure: HTTPAttemptFailure) -> HTTPRetryVerdict {
        let (error, retried, solicited) = (failure.error, failure.retriedCount, failure.solicited)
        guard shouldRetry(error: error, retriedCount: retried, solicited: solicited) else {
            if retried >= maximumRetryCount, shouldRetry(error: error, retriedCount: 0, solicited: false) {
                return .giveUp("the retry limit of \(maximumRetryCount) was reached")
            }
            return .giveUp(HTTPSession.notResent)
        }
        let verdict = resendVerdict(
            for: failure, noDelay: "the server's Retry-After asks for a wait longer than \(Self.seconds(maximumRetryAfter))")
        if case .retry(let wait) = verdict, !solicited, failure.elapsed + wait > retryTimeLimit {
            return .giveUp("a retry would begin more than \(Self.seconds(retryTimeLimit)) after the first attempt (the retry time limit)")
        }
        return verdict
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }

    /// The wait before retry number `retry` (1 for the first), given the failed response if any.
    ///
    /// - Returns: The wait in seconds, or `nil` when `Retry-After` asks for longer than
    ///   ``maximumRetryAfter``.
    public func delay(beforeRetry retry: Int, response: HTTPResponse?) -> TimeInterval? {
        delay(beforeRetry: retry, response: response, now: Date())
    }

    /// The wait before retry number `retry`, with the current time given (an HTTP-date
    /// `Retry-After` is counted from `now`).
    public func delay(beforeRetry retry: Int, response: HTTPResponse?, now: Date) -> TimeInterval? {
        if honorsRetryAfter, let value = response?.value(forHTTPHeaderField: "Retry-After"),
           let wait = RetryAfter.delay(from: value, now: now) {
            return wait <= maximumRetryAfter ? wait : nil
        }
        switch backoff {
        case .constant:
            return retryDelay
        case .exponential(let multiplier, let maximumDelay, let jitter):
            let grown = retryDelay * pow(multiplier, Double(max(retry - 1, 0)))
            let capped = min(grown.isFinite ? grown : maximumDelay, maximumDelay)
            return jitter ? Double.random(in: (capped / 2)...max(capped, capped / 2)) : capped
        }
    }
}

/// Reads a `Retry-After` header (RFC 9110 §10.2.3).
enum RetryAfter {
    /// The wait a `Retry-After` value asks for: a number of seconds, or an HTTP date (IMF-fixdate,
    /// RFC 850 or asctime form) minus `now`, never negative; `nil` when the value is neither.
    static func delay(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            return TimeInterval(trimmed)
        }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }

    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate
        "EEEE, dd-MMM-yy HH:mm:ss zzz",   // RFC 850
        "EEE MMM d HH:mm:ss yyyy",        // asctime
    ]
}

extension HTTPSession {
    /// The retry policy in force: ``retryStrategy`` when it is a ``RetryPolicy`` (as it is unless
    /// changed), ``RetryPolicy/default`` otherwise. Setting it sets ``retryStrategy``.
    public var retryPolicy: RetryPolicy {
        get { retryStrategy as? RetryPolicy ?? .default }
        set { retryStrategy = newValue }
    }

    /// The wait before a retry, in seconds: the seed's name for ``RetryPolicy/retryDelay`` of
    /// ``retryPolicy``.
    public var retryDelay: TimeInterval {
        get { retryPolicy.retryDelay }
        set { retryPolicy.retryDelay = newValue }
    }
}
