import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Jewzruxin
import JewzruxinHTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests through an
/// `HTTPSession`.
///
/// ```swift
/// let client = Client(serverURL: sandbox.baseURL, transport: JewzruxinClientTransport())
/// switch try await client.listStores(query: .init(zip: "15217")) {
/// case .ok(let ok): print(try ok.body.json.map(\.name)) // ["Squirrel Hill", "Greenfield"]
/// case .badRequest(let refused): print(try refused.body.json.message)
/// case .undocumented(let status, _): print("status", status)
/// }
/// ```
///
/// - **Statuses are returned, never thrown**: a `404` or a `503` reaches the generated client as a
///   response with its body, and it picks the documented case (or `.undocumented`).
/// - **Response bodies stream**: the `HTTPBody` is the session's byte stream of a 2xx body, read as
///   it arrives with the library's backpressure; dropping it unread cancels the request. The body
///   of another status arrives whole first (of a status ≥ 400, up to 1 MiB of it).
/// - **Request bodies stream**: the `HTTPBody` goes out as it is read (an
///   `UploadStream`), with its `Content-Length` when its length is known, chunked
///   otherwise; a body that can be iterated again (`iterationBehavior` `.multiple`) is sent again
///   from its start on a retry or a 307/308 redirect, and one that can't fails such a resend with
///   the runtime's error. On a session whose transport is URLSession, which can't stream a body on
///   Linux, the body is collected first, up to ``Configuration/maximumRequestBodySize`` (a larger
///   one throws ``JewzruxinClientTransportError/requestBodyTooLarge(limit:)`` before anything is
///   sent).
/// - **Cancelling the task** that calls the client cancels the request, at any point, and the call
///   throws `CancellationError` (which the runtime wraps in its `ClientError`).
/// - **Retries** are the session's: its `RetryPolicy` resends a timed-out or `503`
///   `GET`, but a `POST` only when its `retryableMethods` (or the cycle's, set in
///   ``Configuration/configureCycle``) allows it or the request has an `Idempotency-Key`. So are
///   redirects, authentication, interceptors and event monitors.
///
/// Each operation's cycle has the operation's ID as its `HTTPCycle.identifier`, which
/// event monitors can read.
public struct JewzruxinClientTransport: ClientTransport {
    /// What the transport does beyond what its session does.
    public struct Configuration: Sendable {
        /// The largest request body collected before it is sent, in bytes, where it can't stream
        /// (a session on URLSession); 16 MiB by default.
        public var maximumRequestBodySize: Int
        /// Changes each operation's cycle before it starts: its own `retryableMethods`,
        /// interceptors, deadline (`timeoutIntervalForResource`) or handler queue. Given the cycle
        /// and the operation's ID.
        public var configureCycle: (@Sendable (HTTPCycle, _ operationID: String) -> Void)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maximumRequestBodySize: The largest request body collected, in bytes; 16 MiB by default.
        ///   - configureCycle: Changes each operation's cycle before it starts; `nil` by default.
        public init(
            maximumRequestBodySize: Int = 16 << 20,
            configureCycle: (@Sendable (HTTPCycle, _ operationID: String) -> Void)? = nil
        ) {
            self.maximumRequestBodySize = maximumRequestBodySize
            self.configureCycle = configureCycle
        }
    }

    /// The session the requests go through.
    public let session: HTTPSession
    /// What the transport does beyond what its session does.
    public let configuration: Configuration

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - session: The session to send through; `HTTPSession.default` by default.
    ///   - configuration: The transport's own settings.
    public init(session: HTTPSession = .default, configuration: Configuration = .init()) {
        self.session = session
        self.configuration = configuration
    }

    /// Sends a generated client's request and returns the response, whatever its status.
    ///
    /// - Parameters:
    ///   - request: The request; its `path` holds the operation's path and query.
    ///   - body: The request body, if any.
    ///   - baseURL: The server URL the client was made with; the request's path is appended to its
    ///     path.
    ///   - operationID: The operation's ID in the OpenAPI document.
    /// - Returns: The response head and, but for `HEAD`, `204`, `304` and `1xx`, its body.
    /// - Throws: ``JewzruxinClientTransportError`` for a request that can't be sent as given, the
    ///   library's `HTTPError` for a failure that isn't a status, `CancellationError`.
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        var request = request
        let url = try Self.url(of: request, baseURL: baseURL)
        request.url = url
        // URLSession on Linux can't stream a request body: there it is collected.
        let streamed = body.flatMap { body in
            session.transport is URLSessionTransport ? nil : Self.uploadStream(of: body)
        }
        let data = streamed == nil ? try await collect(body) : nil
        let configureCycle = configuration.configureCycle
        let (response, bytes) = try await session.stream(request, body: data) { cycle in
            if let streamed { cycle.uploadSource = .stream(streamed) }
            cycle.identifier = operationID
            configureCycle?(cycle, operationID)
        }
        guard Self.hasBody(response, method: request.method) else { return (response, nil) }
        let length = bytes.expectedLength.map(HTTPBody.Length.known) ?? .unknown
        return (response, HTTPBody(bytes, length: length, iterationBehavior: .single))
    }

    /// `body` as the library streams a request body: read as it is sent, again from its start for
    /// each attempt (which a body iterable once refuses with the runtime's error).
    static func uploadStream(of body: HTTPBody) -> UploadStream {
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        return UploadStream(length: length, sequence: { body.map { Data($0) } })
    }

    /// `body` in memory, refused past the configured limit before a byte more is read.
    private func collect(_ body: HTTPBody?) async throws -> Data? {
        guard let body else { return nil }
        let limit = configuration.maximumRequestBodySize
        if case .known(let length) = body.length, length > limit {
            throw JewzruxinClientTransportError.requestBodyTooLarge(limit: limit)
        }
        var data = Data()
        if case .known(let length) = body.length { data.reserveCapacity(Int(length)) }
        for try await chunk in body {
            guard chunk.count <= limit - data.count else {
                throw JewzruxinClientTransportError.requestBodyTooLarge(limit: limit)
            }
            data.append(contentsOf: chunk)
        }
        return data
    }

    /// The request's URL: the base URL's, its path followed by the request's path, with the
    /// request's query.
    static func url(of request: HTTPTypes.HTTPRequest, baseURL: URL) throws(JewzruxinClientTransportError) -> URL {
        let path = request.path ?? ""
        guard var base = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
              let target = URLComponents(string: path) else {
            throw .invalidURL(baseURL: baseURL.absoluteString, path: path)
        }
        var basePath = base.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }
        base.percentEncodedPath = basePath + target.percentEncodedPath
        base.percentEncodedQuery = target.percentEncodedQuery
        guard let url = base.url, url.scheme != nil, url.host != nil else {
            throw .invalidURL(baseURL: baseURL.absoluteString, path: path)
        }
        return url
    }

    /// Whether a response to `method` has a body to give: not for `HEAD`, `1xx`, `204`, `304`.
    static func hasBody(_ response: HTTPTypes.HTTPResponse, method: HTTPTypes.HTTPRequest.Method) -> Bool {
        let code = response.status.code
        return method != .head && code >= 200 && code != 204 && code != 304
    }
}

/// Why ``JewzruxinClientTransport`` didn't send a request.
public enum JewzruxinClientTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request body is larger than ``JewzruxinClientTransport/Configuration/maximumRequestBodySize``.
    case requestBodyTooLarge(limit: Int)
    /// The server URL and the operation's path don't make a URL.
    case invalidURL(baseURL: String, path: String)

    /// Why the request wasn't sent, in a sentence.
    public var description: String {
        switch self {
        case .requestBodyTooLarge(let limit):
            "the request body is larger than the transport's maximumRequestBodySize, \(limit) bytes"
        case .invalidURL(let baseURL, let path):
            "the server URL \"\(baseURL)\" and the path \"\(path)\" don't make a URL"
        }
    }
}
