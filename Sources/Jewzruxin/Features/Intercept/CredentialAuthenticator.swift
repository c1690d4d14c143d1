import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A credential an ``AuthenticationInterceptor`` holds: a token, a key pair, a signed cookie.
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before a request uses it (it expired, or is about
    /// to).
    var requiresRefresh: Bool { get }
}

/// What an ``AuthenticationInterceptor`` needs to know of a kind of credential: how a request
/// carries it, how to get a new one, and which failures mean it was refused.
public protocol CredentialAuthenticator: Sendable {
    /// The credential this authenticator applies and refreshes.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (an `Authorization` header, usually).
    ///
    /// - Parameters:
    ///   - credential: The credential to apply.
    ///   - request: The request about to go.
    func apply(_ credential: Credential, to request: inout HTTPRequest)

    /// A new credential in place of `credential`: called once for all the requests that need it,
    /// never twice at the same time.
    ///
    /// - Parameter credential: The credential that expired or was refused.
    /// - Returns: The new credential.
    /// - Throws: Why there is none; every request waiting for it then fails with
    ///   ``AuthenticationInterceptorError/refreshFailed(_:)``.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether `failure` means the server refused the credential; the default: a 401.
    ///
    /// - Parameter failure: The failed attempt.
    /// - Returns: `true` to refresh (if the request carried the current credential) and retry.
    func isAuthenticationFailure(_ failure: HTTPAttemptFailure) -> Bool

    /// Whether `request` went with `credential`, rather than with one replaced since.
    ///
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - credential: The interceptor's current credential.
    /// - Returns: `true` when a refusal of `request` means `credential` itself is refused.
    func isRequest(_ request: HTTPRequest, authenticatedWith credential: Credential) -> Bool
}

extension CredentialAuthenticator {
    /// A 401 is an authentication failure.
    public func isAuthenticationFailure(_ failure: HTTPAttemptFailure) -> Bool {
        failure.statusCode == 401
    }
}

/// An OAuth-style bearer token: an access token, the token to refresh it with, and when it expires.
public struct BearerToken: AuthenticationCredential, Hashable {
    /// What goes in `Authorization: Bearer …`.
    public var accessToken: String
    /// What a refresh sends to get a new access token, if the server issued one.
    public var refreshToken: String?
    /// When the access token expires; `nil` if it doesn't say (then only a 401 refreshes it).
    public var expiration: Date?
    /// How long before ``expiration`` the token is refreshed already, for the clocks' difference
    /// and the time a request takes to arrive.
    public var refreshMargin: TimeInterval

    /// Creates a token.
    ///
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiration: When the access token expires, if known.
    ///   - refreshMargin: How long before the expiration it is refreshed; none by default.
    public init(accessToken: String, refreshToken: String? = nil, expiration: Date? = nil, refreshMargin: TimeInterval = 0) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiration = expiration
        self.refreshMargin = refreshMargin
    }

    /// Whether the token has expired, or will within ``refreshMargin``.
    public var requiresRefresh: Bool {
        guard let expiration else { return false }
        return Date().addingTimeInterval(refreshMargin) >= expiration
    }
}

/// Sends a ``BearerToken`` as `Authorization: Bearer …` and refreshes it with a closure of yours.
public struct BearerTokenAuthenticator: CredentialAuthenticator {
    /// Gets a new token in place of the one given (with its ``BearerToken/refreshToken``).
    public typealias Refresh = @Sendable (BearerToken) async throws -> BearerToken

    private let refresher: Refresh

    /// Creates an authenticator.
    ///
    /// - Parameter refresh: Gets a new token; called once for all the requests that need it.
    public init(refresh: @escaping Refresh) {
        self.refresher = refresh
    }

    /// Sets `Authorization: Bearer <access token>`.
    public func apply(_ credential: BearerToken, to request: inout HTTPRequest) {
        request.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
    }

    /// Runs the refresh closure.
    public func refresh(_ credential: BearerToken) async throws -> BearerToken {
        try await refresher(credential)
    }

    /// Whether the request's `Authorization` carries this token.
    public func isRequest(_ request: HTTPRequest, authenticatedWith credential: BearerToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
    }
}
