import Foundation

/// A response for the sandbox to send, including how to misbehave while sending it.
///
/// Besides status, headers and body, a response can ask for the delivery styles that
/// client tests need: a wait before anything is sent (``delay``), chunked transfer
/// encoding (``transferEncoding``), one byte at a time (``dripInterval``), or a
/// connection dropped part-way through the body (``dropAfter``).
///
/// The sandbox adds the framing headers itself: `Content-Length` (or
/// `Transfer-Encoding: chunked`) and, when the connection will close,
/// `Connection: close`. Any such headers in ``headers`` are ignored.
/// Responses with status 1xx, 204 or 304, and responses to `HEAD`, never carry a body.
public struct SandboxResponse: Sendable {
    /// What the connection does instead of sending a well-formed response.
    enum WireFault: Sendable {
        /// Send these bytes as they are (possibly none, or a cut response), then end the
        /// connection: in order (FIN) or, when `reset`, with a TCP reset.
        case raw(Data, reset: Bool)
        /// Send nothing for this many seconds (less if the client closes its side or the
        /// sandbox stops), then close the connection.
        case stall(TimeInterval)
    }

    /// How the body is framed on the wire.
    public enum TransferEncoding: Sendable, Equatable {
        /// A `Content-Length` header and the raw bytes (the default).
        case identity
        /// `Transfer-Encoding: chunked`, with chunks of at most `chunkSize` bytes.
        case chunked(chunkSize: Int)
    }

    /// The status code, 100...599.
    ///
    /// A handler returning a status outside that range gets `500` sent instead.
    public var status: Int

    /// The reason phrase; `nil` uses the standard phrase for ``status``.
    public var reason: String?

    /// Header fields, in the order they are sent.
    public var headers: SandboxHeaders

    /// The body; its ``SandboxBody/count`` is the announced `Content-Length`.
    public var body: SandboxBody

    /// How the body is framed. Defaults to ``TransferEncoding/identity``.
    ///
    /// HTTP/1.0 clients cannot receive chunked bodies; for them the body is sent
    /// unframed and the connection closed after it.
    public var transferEncoding: TransferEncoding

    /// Seconds to wait before sending anything.
    ///
    /// The wait ends early when the sandbox stops and, on Linux, when the client closes
    /// its side of the connection (it gave up: a cancel, a timeout); the connection is then
    /// closed without a response.
    public var delay: TimeInterval

    /// When set, the body is sent one byte at a time, waiting this many seconds before
    /// each byte (ends early when the sandbox stops).
    public var dripInterval: TimeInterval?

    /// When set, the connection is shut down and closed after this many body bytes,
    /// even though the headers announced more (and, when chunked, without the final
    /// zero-length chunk).
    public var dropAfter: Int64?

    /// Whether to close the connection after this response, even if the client asked
    /// to keep it alive.
    public var closesConnection: Bool

    /// A connection-level fault played instead of a response (the `/fault/` endpoints).
    var wireFault: WireFault?

    /// Creates a response.
    ///
    /// Without arguments this is an empty `200 OK`. The delivery modes (``delay``,
    /// ``dripInterval``, ``dropAfter``, ``closesConnection``) start switched off; set
    /// them on the returned value.
    public init(
        status: Int = 200,
        headers: SandboxHeaders = [:],
        body: SandboxBody = .empty,
        transferEncoding: TransferEncoding = .identity
    ) {
        self.status = status
        self.reason = nil
        self.headers = headers
        self.body = body
        self.transferEncoding = transferEncoding
        self.delay = 0
        self.dripInterval = nil
        self.dropAfter = nil
        self.closesConnection = false
        self.wireFault = nil
    }

    /// A `text/plain; charset=utf-8` response.
    ///
    /// The body is the UTF-8 encoding of `text`, sent with `Content-Length`.
    public static func text(_ text: String, status: Int = 200) -> SandboxResponse {
        SandboxResponse(
            status: status,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: .text(text)
        )
    }

    /// A response carrying `data` with the given content type.
    public static func data(
        _ data: Data, contentType: String = "application/octet-stream", status: Int = 200
    ) -> SandboxResponse {
        SandboxResponse(status: status, headers: ["Content-Type": contentType], body: .data(data))
    }

    /// An `application/json` response carrying already-encoded JSON.
    public static func json(_ data: Data, status: Int = 200) -> SandboxResponse {
        self.data(data, contentType: "application/json", status: status)
    }

    /// A plain-text error response whose body is `message` followed by a newline.
    ///
    /// This is what the sandbox itself sends for `400`, `404`, `405` and `505`.
    public static func error(_ status: Int, _ message: String) -> SandboxResponse {
        text(message + "\n", status: status)
    }

    /// Whether a response with `status` may carry a body (not 1xx, 204 or 304).
    public static func statusAllowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    /// The standard reason phrase for `status`, or `"Status N"` for unassigned codes.
    public static func reasonPhrase(for status: Int) -> String {
        reasonPhrases[status] ?? "Status \(status)"
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information",
        204: "No Content", 205: "Reset Content", 206: "Partial Content", 207: "Multi-Status",
        208: "Already Reported", 226: "IM Used",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
        407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request",
        422: "Unprocessable Content", 423: "Locked", 424: "Failed Dependency", 425: "Too Early",
        426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        506: "Variant Also Negotiates", 507: "Insufficient Storage", 508: "Loop Detected",
        510: "Not Extended", 511: "Network Authentication Required",
    ]
}
