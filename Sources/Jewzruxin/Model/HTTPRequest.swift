import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request half of a cycle: a `URLRequest` plus the body and the model it is made from.
///
/// Request processors turn ``object`` into ``data`` and headers before the request is sent; ``data``
/// is the body that goes on the wire.
public struct HTTPRequest: Sendable {
    /// The underlying Foundation request: URL, method, headers, cache policy, timeout.
    public var core: URLRequest
    /// The body to send, or `nil` for none.
    public var data: Data?
    /// The model the request processors turn into ``data`` (a dictionary for JSON, a string for text…).
    ///
    /// A cycle with an object and no request processor at all (its own or its session's) ends with
    /// ``HTTPError/unprocessedRequestObject(type:)`` before sending anything.
    public var object: (any Sendable)?

    /// Creates a request for a URL and method.
    ///
    /// - Parameters:
    ///   - url: The URL to send the request to.
    ///   - method: The request method, `GET` by default.
    public init(url: URL, method: HTTPMethod = .get) {
        var core = URLRequest(url: url)
        // GET is URLRequest's own; setting it anyway costs a normalisation on every request.
        if method != .get { core.httpMethod = method.rawValue }
        self.core = core
    }

    /// The request URL.
    public var url: URL? { core.url }

    /// The request method.
    public var method: HTTPMethod {
        get { HTTPMethod(rawValue: core.httpMethod ?? "GET") }
        set { core.httpMethod = newValue.rawValue }
    }

    /// The value of a request header; the name is matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        core.value(forHTTPHeaderField: field)
    }

    /// Sets (or, with `nil`, removes) a request header, replacing any value it had.
    ///
    /// A name that is not an HTTP token, or a value with CR, LF or NUL (which could smuggle in
    /// other headers), is not set: the cycle then fails with ``HTTPError/invalidHeader(name:reason:)``
    /// before anything is sent.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        if let value, let reason = Self.invalidity(name: field, value: value) {
            invalidHeader = (field, reason)
            return
        }
        core.setValue(value, forHTTPHeaderField: field)
    }

    /// The first header refused by ``setValue(_:forHTTPHeaderField:)``, and why.
    var invalidHeader: (name: String, reason: String)?

    /// The credentials of the connection-based schemes (NTLM, Negotiate) the cycle has, first
    /// authentication first: the engine sets them on every request it sends, for a transport
    /// that runs those handshakes itself; the others ignore them.
    var connectionCredentials: [ConnectionCredential] = []

    /// The header fields the request goes out with, in name order, once a transport has completed
    /// them (`HTTPTransport.completeHeaderFields(of:upload:)`): its own and those the transport adds.
    /// Kept beside ``core`` rather than written into it, which costs a Foundation dictionary per
    /// request: the curl and native transports send them from here, and a request is given them in
    /// its `URLRequest` only where one is read (``showingCompletedFields``).
    var completedFields: [(name: String, value: String)]?

    /// Whether a transport has completed the header fields: a transport given a request that isn't
    /// completes it itself before sending it.
    var headerFieldsCompleted: Bool { completedFields != nil }

    /// The request with its completed fields in its `URLRequest`, as the event monitors and the
    /// URLSession transport read it; the request itself when it wasn't completed.
    var showingCompletedFields: HTTPRequest {
        guard let completedFields else { return self }
        var shown = self
        shown.core.allHTTPHeaderFields = Dictionary(completedFields.lazy.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        return shown
    }

    /// Why a header can't be sent as given, or `nil` when it can.
    static func invalidity(name: String, value: String) -> String? {
        if name.isEmpty || !name.withUTF8Bytes({ $0.allSatisfy(HTTPHeaderSyntax.isTokenByte) }) { return "the name is not an HTTP token" }
        if value.withUTF8Bytes({ $0.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }) { return "the value contains CR, LF or NUL" }
        return nil
    }
}
