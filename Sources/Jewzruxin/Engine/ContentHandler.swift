import Foundation

/// Receives a response body as it arrives and makes the response's ``HTTPResponse/content`` from it.
///
/// A cycle drives its handler through one response at a time, always in this order:
///
/// 1. ``prepare(for:)`` when the status line and headers have arrived. Throw a
///    ``ContentHandlerError`` with code ``ContentHandlerError/Code/unacceptableStatus`` or
///    ``ContentHandlerError/Code/unacceptableContentType`` to refuse the body: the cycle keeps the
///    body (up to ``ContentHandlerError/maximumKeptBodySize``) for the error it ends with. Any other
///    error stops the transfer and ends the cycle with that error.
/// 2. ``append(_:)`` for each chunk of the body, in order. Throwing stops the transfer.
/// 3. ``parseContent()`` once the whole body has arrived and the response is a success: return the
///    content, or throw. Not called after a failure.
/// 4. ``cleanup()``, after success or failure alike (a dropped connection, a cancel, a refusal).
///
/// Each step happens at most once per response, and calls never overlap. When another response
/// arrives for the same request (a 401 answered with credentials, a followed redirect, a retry)
/// the handler has been cleaned up and is prepared again, so it starts from an empty state. A
/// handler serves one cycle at a time.
///
/// Calls 1, 2 and 4 come from the session's network queue: keep them quick (URLSession on Linux
/// applies no backpressure, L2). ``parseContent()`` runs on the session's worker queue.
///
/// Write your own handler by conforming to this protocol, or subclass ``SelectiveDiscarder``,
/// ``Accumulator``, ``JSONParser`` and the others.
public protocol ContentHandler: AnyObject, Sendable {
    /// A response arrived: decide whether to take its body, and get ready for it.
    ///
    /// - Parameter response: The status and headers; its ``HTTPResponse/data`` is empty.
    /// - Throws: A ``ContentHandlerError`` refusing the response, or any error to stop the transfer.
    func prepare(for response: HTTPResponse) throws

    /// The next bytes of the body.
    ///
    /// - Throws: Any error to stop the transfer; the cycle ends with it.
    func append(_ data: Data) throws

    /// The body is complete: make the content to store as ``HTTPResponse/content``.
    ///
    /// When a conversion fails halfway, throw a ``ContentHandlerError`` whose
    /// ``ContentHandlerError/intermediateContent`` holds what was obtained before (``JSONParser``
    /// keeps the raw bytes): the cycle stores it as the content and ends with the error.
    /// - Returns: The content, or `nil` when the handler keeps none.
    func parseContent() throws -> (any Sendable)?

    /// The response is done with, successfully or not: release what it used. A handler that
    /// writes somewhere removes its partial output here unless ``parseContent()`` succeeded.
    func cleanup()

    /// The body bytes the handler keeps, which the cycle shows as ``HTTPResponse/data``; `nil` when
    /// it keeps none (a file writer, a stream writer). Read between ``append(_:)`` and
    /// ``cleanup()``, never while another step runs.
    var receivedData: Data? { get }
}

extension ContentHandler {
    /// Does nothing.
    public func cleanup() {}

    /// None: the body is not kept.
    public var receivedData: Data? { nil }
}

/// Why a content handler refused a response or couldn't turn its body into content.
///
/// Switch on ``code``. The ``response`` is kept where there is one: its status, headers and, for a
/// refused response, the body the server sent (up to ``maximumKeptBodySize``), so an API's error
/// message can be read.
public struct ContentHandlerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        /// Creates a code; prefer the static members.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The status is not among the handler's acceptable responses.
        public static let unacceptableStatus = Code(rawValue: "unacceptable status")
        /// The `Content-Type` is not among the handler's acceptable types, or is missing.
        public static let unacceptableContentType = Code(rawValue: "unacceptable content type")
        /// The body is larger than the handler's maximum size.
        public static let contentTooLarge = Code(rawValue: "content too large")
        /// The body arrived but couldn't be converted (not JSON, not text in its charset, not an image).
        public static let unparsableContent = Code(rawValue: "unparsable content")
        /// The destination can't be written: it is a directory, or can't be created or replaced.
        public static let unusableDestination = Code(rawValue: "unusable destination")
        /// Writing the body failed (disk full, stream closed…).
        public static let writeFailed = Code(rawValue: "write failed")
    }

    /// The body kept for a refused response at most; the transfer is stopped beyond it.
    public static let maximumKeptBodySize = 1 << 20

    /// What went wrong.
    public let code: Code
    /// A sentence saying what happened.
    public let reason: String
    /// The response concerned, with the body kept for a refused response; `nil` when the handler
    /// threw without one and none was known yet.
    public var response: HTTPResponse?
    /// The error that caused this one (a JSON decoding error, a file system error…).
    public var underlyingError: (any Error)?
    /// What a conversion obtained before it failed (``JSONParser`` keeps the raw `Data`).
    public var intermediateContent: (any Sendable)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - reason: A sentence saying what happened.
    ///   - response: The response concerned, if known.
    ///   - underlyingError: The error that caused this one.
    ///   - intermediateContent: What a failed conversion obtained before it failed.
    public init(
        _ code: Code, reason: String, response: HTTPResponse? = nil,
        underlyingError: (any Error)? = nil, intermediateContent: (any Sendable)? = nil
    ) {
        self.code = code
        self.reason = reason
        self.response = response
        self.underlyingError = underlyingError
        self.intermediateContent = intermediateContent
    }

    /// The status code of the response concerned, if known.
    public var statusCode: Int? { response?.statusCode }

    /// Whether the handler refused the response (status or type) rather than failed with it.
    public var isRefusal: Bool { code == .unacceptableStatus || code == .unacceptableContentType }

    public var description: String {
        var text = "\(code): \(reason)"
        if let url = response?.url { text += " (\(url.absoluteString))" }
        if let underlyingError { text += " — \(underlyingError)" }
        return text
    }
}
