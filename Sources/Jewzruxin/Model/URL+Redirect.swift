import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URL {
    /// A `Location` value resolved against `base` as RFC 3986 says.
    static func resolving(location: String?, against base: URL?) -> URL? {
        guard let location else { return nil }
        return URL(string: location, relativeTo: base)?.absoluteURL
    }

    /// Whether `other` has the same scheme, host and port (the default port of `http` and `https`
    /// when none is written), compared case-insensitively.
    func hasSameOrigin(as other: URL) -> Bool {
        func port(_ url: URL) -> Int? {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
        }
        return scheme?.lowercased() == other.scheme?.lowercased() && host?.lowercased() == other.host?.lowercased()
            && port(self) == port(other)
    }
}

extension HTTPResponse {
    /// The `Location` header resolved against the response's URL (or `base`) as RFC 3986 says, which
    /// FoundationNetworking doesn't do for a relative path followed by a query; the Foundation
    /// response is not made for it.
    func resolvedLocation(base: URL? = nil) -> URL? {
        URL.resolving(location: value(forHTTPHeaderField: "Location"), against: url ?? base)
    }
}
