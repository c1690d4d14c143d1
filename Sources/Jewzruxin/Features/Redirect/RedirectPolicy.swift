import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The redirects a session follows unless told otherwise: those of browsers and curl.
///
/// 301, 302, 303, 307 and 308 with a `Location` naming an `http` or `https` URL are followed, up to
/// ``maximumRedirectCount`` per run (then the run ends with `URLError(.httpTooManyRedirects)`).
/// 307/308 keep the method and body; 303 (and 301/302 after a POST) become a GET without a body.
/// When the origin changes, the caller's `Authorization` and `Cookie` headers are not sent on.
///
/// Every transport leaves every redirect to the policy: the URLSession transport refuses each one
/// FoundationNetworking would follow itself (it drops a 307/308's body, L9) and the engine follows it.
public struct RedirectPolicy: HTTPRedirectPolicy, Hashable {
    /// Redirects followed in one run before it fails.
    public var maximumRedirectCount: Int

    /// Creates a policy.
    ///
    /// - Parameter maximumRedirectCount: Redirects followed in one run before it fails; 16 by default.
    public init(maximumRedirectCount: Int = 16) {
        self.maximumRedirectCount = maximumRedirectCount
    }

    /// The policy of browsers and curl, 16 redirects at most.
    public static let standard = RedirectPolicy()

    /// The statuses followed.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Follows a redirect status with a usable `Location`; fails past the maximum count.
    public func action(for response: HTTPResponse, request: HTTPRequest, redirectCount: Int) -> HTTPRedirectAction {
        guard let status = response.statusCode, Self.redirectStatuses.contains(status),
              let target = response.resolvedLocation(base: request.url),
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return .deliver }
        guard redirectCount < maximumRedirectCount else {
            return .fail(HTTPError.transport(URLError(.httpTooManyRedirects)))
        }
        var next = request
        let method = Self.redirectedMethod(request.method, status: status)
        let keepsBody = method == request.method
        next.method = method
        if !keepsBody {
            next.data = nil
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        next.redirect(to: target)
        return .follow(next, keepsBody: keepsBody)
    }

    /// The method a request is sent again with after a redirect with `status`.
    static func redirectedMethod(_ method: HTTPMethod, status: Int) -> HTTPMethod {
        switch status {
        case 303 where method != .head: return .get
        case 301 where method == .post, 302 where method == .post: return .get
        default: return method
        }
    }
}
