import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPInterceptor`` made of closures: an adapter, a retrier, or both.
///
/// ```swift
/// let signing = RequestInterceptor { request, _ in
///     var request = request
///     request.setValue(try await signer.signature(for: request), forHTTPHeaderField: "X-Signature")
///     return request
/// }
/// let patience = RequestInterceptor(retry: { _, failure in
///     failure.statusCode == 429 && failure.retriedCount < 3 ? .retryAfter(0.5) : .doNotRetry
/// })
/// session.interceptors = [signing, patience]
/// ```
public struct RequestInterceptor: HTTPInterceptor {
    /// Adapts a request; see ``HTTPInterceptor/adapt(_:for:)``.
    public typealias Adapter = @Sendable (HTTPRequest, HTTPCycle) async throws -> HTTPRequest
    /// Decides about a failed attempt; see ``HTTPInterceptor/retry(_:after:)``.
    public typealias Retrier = @Sendable (HTTPCycle, HTTPAttemptFailure) async -> HTTPRetryDecision

    private let adapter: Adapter?
    private let retrier: Retrier?

    /// Creates an interceptor of an adapter, a retrier, or both.
    ///
    /// - Parameters:
    ///   - adapt: What changes every request before it goes; `nil` leaves requests as they are.
    ///   - retry: What decides after a failure; `nil` leaves the decision to the next interceptor.
    public init(adapt: Adapter? = nil, retry: Retrier? = nil) {
        self.adapter = adapt
        self.retrier = retry
    }

    /// Creates an interceptor that sets a header on every request, replacing a value it had.
    ///
    /// - Parameters:
    ///   - value: The header's value.
    ///   - name: The header's name.
    /// - Returns: The interceptor.
    public static func header(_ name: String, _ value: String) -> RequestInterceptor {
        RequestInterceptor { request, _ in
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            return request
        }
    }

    /// Runs the adapter, if any.
    public func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        guard let adapter else { return request }
        return try await adapter(request, cycle)
    }

    /// Runs the retrier, if any; ``HTTPRetryDecision/doNotRetry`` otherwise.
    public func retry(_ cycle: HTTPCycle, after failure: HTTPAttemptFailure) async -> HTTPRetryDecision {
        guard let retrier else { return .doNotRetry }
        return await retrier(cycle, failure)
    }
}
