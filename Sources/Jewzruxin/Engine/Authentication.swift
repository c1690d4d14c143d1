import Foundation

/// Answers a server's authentication challenge: the seam through which the engine asks for an
/// `Authorization` value when a response is a 401 with challenges.
///
/// Conform a type of your own (a struct will do), or subclass ``Authentication``, the seed's open
/// class; ``BasicAuthentication`` answers Basic and Digest. The cycle asks each authenticator in
/// turn and resends the request with the first answer, once per run (twice when a Digest server
/// says its nonce was stale): wrong credentials end in the 401, never a loop.
public protocol HTTPAuthenticator: Sendable {
    /// The `Authorization` header value that answers `response`'s challenges, or `nil` when this
    /// authenticator can't answer them.
    ///
    /// - Parameters:
    ///   - response: The 401 response, with its `WWW-Authenticate` headers.
    ///   - request: The request that was refused (method, URL and headers as sent).
    ///   - previousFailureCount: How many answers were already refused in this run.
    /// - Returns: The value to send as `Authorization`, or `nil`.
    func authorization(for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int) -> String?
}

/// Answers a server's authentication challenge (a 401 with `WWW-Authenticate`) for a cycle.
///
/// Give a cycle (or its session) authentications in ``HTTPCycle/authentications``. When a response
/// is a 401 with challenges, the cycle asks each authentication in turn for an `Authorization`
/// value and resends the request with the first one given, once; a second 401 ends the cycle with
/// that status (unless a Digest server says its nonce was merely stale, which earns one more try).
/// This is done by the library itself, not by URLSession, because URLSession on Linux raises no
/// challenge for Digest or realm-less Basic and hangs or crashes on some answers (L4–L8).
///
/// Subclass it to support another scheme; override
/// ``authorization(for:request:previousFailureCount:)``. Authentications are shared between cycles
/// running at the same time: keep no mutable state, or guard it.
open class Authentication: HTTPAuthenticator, @unchecked Sendable {
    // @unchecked: the base class has no stored state; subclasses are documented to be immutable or
    // to guard their own state.

    /// Creates an authentication.
    public init() {}

    /// The `Authorization` header value that answers `response`'s challenges, or `nil` when this
    /// authentication can't answer them.
    ///
    /// - Parameters:
    ///   - response: The 401 response, with its `WWW-Authenticate` headers.
    ///   - request: The request that was refused (method, URL and headers as sent).
    ///   - previousFailureCount: How many answers were already refused in this run.
    /// - Returns: The value to send as `Authorization`, or `nil`.
    open func authorization(for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int) -> String? {
        nil
    }
}
