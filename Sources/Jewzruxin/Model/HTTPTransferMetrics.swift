import Foundation

/// How one attempt of a request went on the wire, as its transport measured it: the curl and native
/// transports report them (``HTTPResponse/metrics``); URLSession on Linux gives none (L14).
///
/// The times are seconds from the start of the attempt to each milestone, on the monotonic clock, as
/// libcurl counts them: a connection that was reused has its lookup, connect and handshake times near
/// zero (the native transport gives 0). A milestone the attempt didn't reach is 0. An attempt that
/// was cancelled, or timed out after it connected, reports none; the native transport reports none
/// either for one that never connected.
public struct HTTPTransferMetrics: Sendable, Hashable {
    /// The host's name resolved.
    public var nameLookup: TimeInterval
    /// Connected to the host (or the proxy).
    public var connect: TimeInterval
    /// The TLS handshake done; `nil` over plain http.
    public var tlsHandshake: TimeInterval?
    /// About to send the request.
    public var requestStart: TimeInterval
    /// The first byte of the response received.
    public var firstByte: TimeInterval
    /// The attempt ended.
    public var total: TimeInterval
    /// The protocol spoken: `HTTP/1.1`, `HTTP/2`, `HTTP/3`; `nil` when none was.
    public var httpVersion: String?
    /// The server's address (or the proxy's, through a proxy), `nil` when no connection was made.
    public var remoteAddress: String?
    /// The port of ``remoteAddress``, `nil` when no connection was made.
    public var remotePort: Int?
    /// The client's address on the connection.
    public var localAddress: String?
    /// The client's port on the connection.
    public var localPort: Int?
    /// Bytes of the request body sent, without the framing of a chunked one.
    public var requestBodyBytes: Int64
    /// Bytes of the response body received, as libcurl counts them: before decoding, when the body
    /// has a content coding, and without the framing of a chunked one.
    public var responseBodyBytes: Int64
    /// Bytes of the response head received: status line and fields, those of interim (1xx) responses
    /// included.
    public var responseHeaderBytes: Int
    /// Whether the attempt went over a connection an earlier request had opened.
    public var reusedConnection: Bool

    /// Metrics with every value given.
    public init(
        nameLookup: TimeInterval, connect: TimeInterval, tlsHandshake: TimeInterval?, requestStart: TimeInterval,
        firstByte: TimeInterval, total: TimeInterval, httpVersion: String?, remoteAddress: String?, remotePort: Int?,
        localAddress: String?, localPort: Int?, requestBodyBytes: Int64, responseBodyBytes: Int64,
        responseHeaderBytes: Int, reusedConnection: Bool
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.requestStart = requestStart
        self.firstByte = firstByte
        self.total = total
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localAddress = localAddress
        self.localPort = localPort
        self.requestBodyBytes = requestBodyBytes
        self.responseBodyBytes = responseBodyBytes
        self.responseHeaderBytes = responseHeaderBytes
        self.reusedConnection = reusedConnection
    }
}
