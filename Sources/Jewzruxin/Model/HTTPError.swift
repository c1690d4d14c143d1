import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An error a cycle ends with.
///
/// Switch on it to tell what happened: a URL that could not be used, a status code the session treats
/// as a failure (the response, body included, is kept), a transport failure with the underlying
/// `URLError`, or an implicit cancellation. Errors thrown by processors reach the completion handler
/// unchanged.
public enum HTTPError: Error, Sendable, CustomStringConvertible {
    /// The string given is not a usable `http` or `https` URL; `reason` says why.
    case invalidURL(String, reason: String)
    /// The server answered with a status the session treats as a failure (by default ≥ 400).
    ///
    /// The seeds call this "status code seems to have erred". The response, with its headers and body,
    /// is kept so an API's error message can be read.
    case statusCodeSeemsToHaveErred(HTTPResponse)
    /// A request header can't be sent: its name is not an HTTP token, or its value contains CR,
    /// LF or NUL. Nothing was sent.
    case invalidHeader(name: String, reason: String)
    /// The request has an ``HTTPRequest/object`` and no request processor to turn it into a body:
    /// neither the cycle nor its session has any (``HTTPCycle/requestProcessors``,
    /// ``HTTPSession/requestProcessors``). `type` is the object's type. Nothing was sent.
    case unprocessedRequestObject(type: String)
    /// The transport failed (connection refused, timed out, dropped…); the `URLError` says how.
    ///
    /// A server certificate that can't be verified (self-signed, unknown issuer, expired, another
    /// host's) is `URLError.Code.serverCertificateUntrusted` on every platform, with the TLS
    /// library's message in its description: FoundationNetworking on Linux reports it as an
    /// `unknown` error, which the cycle translates.
    case transport(URLError)
    /// The cycle was cancelled with `cancel(explicitly: false)`.
    case cancelled
    /// `start` was called on a cycle that is already running; the running cycle is not disturbed.
    case alreadyRunning
    /// The server asks for NTLM or Negotiate, the cycle has an authentication for it
    /// (``NTLMAuthentication``, ``NegotiateAuthentication``), and it can't be used: the transport
    /// can't run that handshake (only the curl transport can, with a libcurl built for it), or
    /// libcurl could not complete it (no Kerberos ticket for Negotiate, say).
    ///
    /// `scheme` is `NTLM` or `Negotiate`, `reason` says why in a sentence, `response` is the 401,
    /// with its challenges and body. Wrong credentials are not this error: the handshake ran and
    /// the server refused it, so the cycle ends with the 401
    /// (``statusCodeSeemsToHaveErred(_:)``), as with wrong Basic credentials.
    case authenticationUnavailable(scheme: String, reason: String, response: HTTPResponse)
    /// The run did not finish within its overall deadline (``HTTPCycle/timeoutIntervalForResource``
    /// or the session configuration's), retries included: distinct from an idle timeout, which is
    /// `transport(URLError(.timedOut))`. The associated value is the deadline, in seconds.
    case deadlineExceeded(TimeInterval)

    /// Why the run stopped retrying, when it made more than one attempt or a retry was refused as
    /// unsafe: how many attempts went, and the reason (the retry limit, the method, the time limit).
    /// It is part of ``description`` too.
    public var retrySummary: HTTPRetrySummary? {
        switch self {
        case .transport(let error): return error.userInfo[HTTPRetrySummary.userInfoKey] as? HTTPRetrySummary
        case .statusCodeSeemsToHaveErred(let response): return response.retrySummary
        default: return nil
        }
    }

    /// The `userInfo` key a transport sets to `true` on the `URLError` of a failure that happened
    /// before a byte of the request went out (a connect timeout, say): the request may then be sent
    /// again whatever its method (``HTTPAttemptFailure/requestMayHaveBeenSent``).
    public static let requestNotSentKey = "JewzruxinRequestNotSent"

    /// Whether `error` certainly ended its attempt before a byte of the request went out: the host
    /// wasn't found, the connection was refused, or the transport marked it so
    /// (``requestNotSentKey``: the connect timed out, TLS failed).
    public static func requestWasNotSent(_ error: any Error) -> Bool {
        let urlError: URLError?
        if case .transport(let wrapped)? = error as? HTTPError { urlError = wrapped } else { urlError = URLError(bridging: error) }
        guard let urlError else { return false }
        if urlError.userInfo[requestNotSentKey] as? Bool == true { return true }
        switch urlError.code {
        case .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost: return true
        default: return false
        }
    }

    /// `error` with `summary` attached: in a transport error's `userInfo` and description, in a
    /// status error's response; other errors are returned as they are.
    static func summarising(_ error: any Error, with summary: HTTPRetrySummary) -> any Error {
        switch error as? HTTPError {
        case .transport(let urlError)?:
            var userInfo = urlError.userInfo
            userInfo[HTTPRetrySummary.userInfoKey] = summary
            userInfo[NSLocalizedDescriptionKey] = urlError.localizedDescription + " (\(summary))"
            return HTTPError.transport(URLError(urlError.code, userInfo: userInfo))
        case .statusCodeSeemsToHaveErred(var response)?:
            response.retrySummary = summary
            return HTTPError.statusCodeSeemsToHaveErred(response)
        default:
            return error
        }
    }

    /// The status code of the failed response, when the error is a status error.
    public var statusCode: Int? {
        if case .statusCodeSeemsToHaveErred(let response) = self { return response.statusCode }
        return nil
    }

    /// A sentence saying what happened, with the URL and status where known.
    /// Whether the error is a timeout of either kind: the idle timeout (`transport` with
    /// `URLError(.timedOut)`) or the run's deadline (``deadlineExceeded(_:)``).
    public var isTimeout: Bool {
        switch self {
        case .transport(let error): return error.code == .timedOut
        case .deadlineExceeded: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let string, let reason):
            return "invalid URL \"\(string)\": \(reason)"
        case .statusCodeSeemsToHaveErred(let response):
            let url = response.url?.absoluteString ?? "the request"
            let summary = response.retrySummary.map { "; \($0)" } ?? ""
            return "status code \(response.statusCode ?? 0) seems to have erred (\(url)\(summary))"
        case .invalidHeader(let name, let reason):
            return "invalid request header \"\(name)\": \(reason)"
        case .unprocessedRequestObject(let type):
            return "the request object (\(type)) was not sent: no request processor turns it into a body "
                + "(give the cycle or its session one, such as HTTPDataProcessor or HTTPJSONProcessor)"
        case .transport(let error):
            let url = error.failingURL?.absoluteString ?? "the request"
            return "transport error \(error.code.rawValue) for \(url): \(error.localizedDescription)"
        case .cancelled:
            return "the cycle was cancelled"
        case .alreadyRunning:
            return "the cycle is already running"
        case .deadlineExceeded(let interval):
            return "the cycle did not finish within its deadline of \(interval) seconds"
        case .authenticationUnavailable(let scheme, let reason, let response):
            let url = response.url?.absoluteString ?? "the request"
            return "\(scheme) authentication is unavailable for \(url): \(reason)"
        }
    }
}

/// How a run that failed ended its retries: how many attempts were made and why no other followed.
public struct HTTPRetrySummary: Sendable, Hashable, CustomStringConvertible {
    /// The attempts made, the first included.
    public var attempts: Int
    /// Why no attempt followed, as a phrase ("the retry limit of 3 was reached").
    public var reason: String

    /// Creates a summary.
    public init(attempts: Int, reason: String) {
        self.attempts = attempts
        self.reason = reason
    }

    /// "gave up after 4 attempts: the retry limit of 3 was reached".
    public var description: String {
        "gave up after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(reason)"
    }

    static let userInfoKey = "JewzruxinRetrySummary"
}

extension URLError {
    /// `error` as a `URLError`: itself, or an `NSError` of the URL error domain with a known code
    /// (as FoundationNetworking reports some failures); `nil` for any other error.
    init?(bridging error: any Error) {
        if let error = error as? URLError {
            self = error
            return
        }
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: ns.code) else { return nil }
        self = URLError(code, userInfo: ns.userInfo)
    }
}
