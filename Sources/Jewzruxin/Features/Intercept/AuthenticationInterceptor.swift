import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why an ``AuthenticationInterceptor`` failed a request.
public enum AuthenticationInterceptorError: Error, Sendable, CustomStringConvertible {
    /// The interceptor has no credential to send (``AuthenticationInterceptor/credential`` is `nil`).
    case missingCredential
    /// The refresh failed with this error; every request that waited for it fails with it.
    case refreshFailed(any Error)
    /// More refreshes than the interceptor allows in its window: the server refuses new
    /// credentials as fast as they come, and sending more would loop.
    case excessiveRefresh

    public var description: String {
        switch self {
        case .missingCredential: return "No credential to authenticate the request with."
        case .refreshFailed(let error): return "Refreshing the credential failed: \(error)"
        case .excessiveRefresh: return "The credential was refreshed too often in too short a time."
        }
    }
}

/// Adds a credential to every request, and refreshes it once for all the requests that need it:
/// Alamofire's `AuthenticationInterceptor`.
///
/// Before a request goes, the interceptor applies its credential, or first refreshes it when it
/// ``AuthenticationCredential/requiresRefresh`` (it expired). When an attempt fails with what the
/// authenticator calls an authentication failure (a 401 by default), the interceptor refreshes the
/// credential if the request carried the current one, then sends the request again with the new
/// one; if the request carried an older one (replaced while it was out), it sends it again at once.
///
/// A refresh is *single flight*: while it runs, every request that needs a credential or was
/// refused waits for it, however many there are, and one call of
/// ``CredentialAuthenticator/refresh(_:)`` serves them all. When it fails, each of them fails with
/// ``AuthenticationInterceptorError/refreshFailed(_:)``. A cycle cancelled while it waits ends at
/// once with one completion (``HTTPError/cancelled``), without disturbing the refresh or the others.
///
/// ```swift
/// let auth = AuthenticationInterceptor(token: BearerToken(accessToken: saved, expiration: expiry)) { old in
///     try await myAPI.refresh(old.refreshToken) // a BearerToken
/// }
/// session.interceptors = [auth]
/// ```
///
/// Send the refresh request on a session (or cycle) without this interceptor, or it would wait for
/// itself.
public final class AuthenticationInterceptor<Authenticator: CredentialAuthenticator>: HTTPInterceptor {
    /// The credential type of the authenticator.
    public typealias Credential = Authenticator.Credential

    /// How the credential is applied and refreshed.
    public let authenticator: Authenticator
    /// At most this many refreshes within ``refreshInterval``; one more fails with
    /// ``AuthenticationInterceptorError/excessiveRefresh``.
    public let maximumRefreshCount: Int
    /// The window ``maximumRefreshCount`` counts in, in seconds.
    public let refreshInterval: TimeInterval

    private let state: Locked<State>

    private struct State {
        var credential: Credential?
        /// The number of the refresh in flight, if one is.
        var flight: Int?
        var flightCount = 0
        /// The outcome of the last refresh, for a waiter that registers after it ended.
        var lastOutcome: (flight: Int, result: Result<Credential, AuthenticationInterceptorError>)?
        var waiters: [Int: CheckedContinuation<Credential, any Error>] = [:]
        var nextWaiter = 0
        var refreshTimes: [Date] = []
    }

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - authenticator: How the credential is applied and refreshed.
    ///   - credential: The credential to start with; `nil` until you set ``credential`` (requests
    ///     then fail with ``AuthenticationInterceptorError/missingCredential``).
    ///   - maximumRefreshCount: At most this many refreshes within `refreshInterval`, 5 by default.
    ///   - refreshInterval: The window of `maximumRefreshCount`, 30 seconds by default.
    public init(
        authenticator: Authenticator, credential: Credential? = nil,
        maximumRefreshCount: Int = 5, refreshInterval: TimeInterval = 30
    ) {
        self.authenticator = authenticator
        self.maximumRefreshCount = maximumRefreshCount
        self.refreshInterval = refreshInterval
        self.state = Locked(State(credential: credential))
    }

    /// The credential requests are sent with: the one given, or the latest refresh's.
    ///
    /// Setting it (after a log-in, say) applies to the requests adapted from then on.
    public var credential: Credential? {
        get { state.withLock { $0.credential } }
        set { state.withLock { $0.credential = newValue } }
    }

    /// How many refreshes have started.
    public var refreshCount: Int { state.withLock { $0.flightCount } }

    /// How many requests wait for the refresh in flight.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    // MARK: HTTPInterceptor

    /// Applies the credential, refreshed first if it requires it or a refresh is under way.
    ///
    /// - Throws: ``AuthenticationInterceptorError``, or `CancellationError` when the cycle is
    ///   cancelled while it waits.
    public func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        let credential = try await usableCredential()
        var request = request
        authenticator.apply(credential, to: &request)
        return request
    }

    /// Retries an authentication failure: at once if the request carried a replaced credential,
    /// after a refresh if it carried the current one.
    public func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision {
        guard authenticator.isAuthenticationFailure(failure) else { return .doNotRetry }
        let step = state.withLock { s -> Step in
            if let flight = s.flight { return .wait(flight) }
            guard let credential = s.credential else { return .fail(.missingCredential) }
            guard authenticator.isRequest(failure.request, authenticatedWith: credential) else {
                // Sent with a credential replaced since: again with the current one, without a
                // refresh; bounded, in case the authenticator never recognises its own requests.
                return failure.retriedCount < maximumRefreshCount ? .ready(credential) : .fail(.excessiveRefresh)
            }
            return beginRefresh(of: credential, &s)
        }
        do {
            _ = try await carryOut(step)
            return .retry
        } catch let error as AuthenticationInterceptorError {
            return .fail(error)
        } catch {
            // Cancelled while waiting: the cycle has ended already.
            return .doNotRetry
        }
    }

    // MARK: Single flight

    /// What a caller does about the credential, decided under the lock.
    private enum Step {
        case ready(Credential)
        case wait(Int)
        case refresh(Credential, flight: Int)
        case fail(AuthenticationInterceptorError)
    }

    /// The credential, once no refresh is needed or under way.
    private func usableCredential() async throws -> Credential {
        let step = state.withLock { s -> Step in
            if let flight = s.flight { return .wait(flight) }
            guard let credential = s.credential else { return .fail(.missingCredential) }
            guard credential.requiresRefresh else { return .ready(credential) }
            return beginRefresh(of: credential, &s)
        }
        return try await carryOut(step)
    }

    private func carryOut(_ step: Step) async throws -> Credential {
        switch step {
        case .ready(let credential):
            return credential
        case .fail(let error):
            throw error
        case .wait(let flight):
            return try await waitForRefresh(flight)
        case .refresh(let credential, let flight):
            // A task of its own: cancelling the cycle that started it leaves it to the others.
            Task { await self.refresh(credential, flight: flight) }
            return try await waitForRefresh(flight)
        }
    }

    /// Starts refresh number `flightCount + 1` of `credential`, unless too many ran lately.
    private func beginRefresh(of credential: Credential, _ s: inout State) -> Step {
        let now = Date()
        s.refreshTimes.removeAll { now.timeIntervalSince($0) > refreshInterval }
        guard s.refreshTimes.count < maximumRefreshCount else { return .fail(.excessiveRefresh) }
        s.refreshTimes.append(now)
        s.flightCount += 1
        s.flight = s.flightCount
        return .refresh(credential, flight: s.flightCount)
    }

    private func refresh(_ credential: Credential, flight: Int) async {
        let result: Result<Credential, AuthenticationInterceptorError>
        do {
            result = .success(try await authenticator.refresh(credential))
        } catch {
            result = .failure(.refreshFailed(error))
        }
        let waiters = state.withLock { s -> [CheckedContinuation<Credential, any Error>] in
            if case .success(let fresh) = result { s.credential = fresh }
            s.flight = nil
            s.lastOutcome = (flight, result)
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    /// Waits for refresh `flight` to end; throws `CancellationError` at once if the task is
    /// cancelled meanwhile.
    private func waitForRefresh(_ flight: Int) async throws -> Credential {
        // Resumed by the refreshing task after it let go of the state: ordered for ThreadSanitizer.
        defer { state.fence() }
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Credential, any Error>) in
                // Registered under the lock that the refresh's end and a cancel take: each finds it
                // there, or it sees what they did.
                let now = state.withLock { s -> Result<Credential, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if s.flight == flight {
                        s.waiters[id] = continuation
                        return nil
                    }
                    if let outcome = s.lastOutcome, outcome.flight == flight { return outcome.result.mapError { $0 } }
                    // A later refresh has ended too: the credential is the newest there is.
                    return s.credential.map { .success($0) } ?? .failure(AuthenticationInterceptorError.missingCredential)
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

extension AuthenticationInterceptor where Authenticator == BearerTokenAuthenticator {
    /// Creates an interceptor that sends a bearer token and refreshes it with `refresh`.
    ///
    /// - Parameters:
    ///   - token: The token to start with; `nil` until you set ``credential``.
    ///   - maximumRefreshCount: At most this many refreshes within `refreshInterval`, 5 by default.
    ///   - refreshInterval: The window of `maximumRefreshCount`, 30 seconds by default.
    ///   - refresh: Gets a new token in place of the one given; called once for all the requests
    ///     that need it.
    public convenience init(
        token: BearerToken?, maximumRefreshCount: Int = 5, refreshInterval: TimeInterval = 30,
        refresh: @escaping BearerTokenAuthenticator.Refresh
    ) {
        self.init(
            authenticator: BearerTokenAuthenticator(refresh: refresh), credential: token,
            maximumRefreshCount: maximumRefreshCount, refreshInterval: refreshInterval)
    }
}
