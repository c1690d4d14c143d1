import Foundation

/// Collects the body in memory and makes it the content, as `Data`.
///
/// The handler every cycle uses unless told otherwise (the cycle's own one takes any status and
/// type, leaving status failures to the session). Subclass it to convert the bytes once they have
/// all arrived: override ``content(from:)``, as ``StringConverter`` and ``JSONParser`` do.
///
/// Set ``maximumSize`` to bound the memory a response may take: a body that announces or reaches
/// more stops the transfer, and the cycle ends with ``ContentHandlerError/Code/contentTooLarge``.
open class Accumulator: SelectiveDiscarder, @unchecked Sendable {
    /// The most bytes a body may have; `nil` (the default) for no limit.
    public var maximumSize: Int?
    /// The body received so far for the current response.
    public private(set) var data = Data()

    /// Creates an accumulator.
    ///
    /// - Parameters:
    ///   - maximumSize: The most bytes a body may have; `nil` for no limit.
    ///   - acceptableResponses: The statuses taken; `nil` uses the class default.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class default.
    public init(maximumSize: Int? = nil, acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil) {
        self.maximumSize = maximumSize
        super.init(acceptableResponses: acceptableResponses, acceptableContentTypes: acceptableContentTypes)
    }

    /// Applies the acceptance rules, then starts an empty buffer.
    ///
    /// - Throws: A refusal, or ``ContentHandlerError/Code/contentTooLarge`` when `Content-Length`
    ///   already exceeds ``maximumSize``.
    open override func prepare(for response: HTTPResponse) throws {
        try super.prepare(for: response)
        data = Data()
        let expected = response.expectedContentLength
        if let maximumSize, expected > maximumSize, response.value(forHTTPHeaderField: "Content-Encoding") == nil {
            throw tooLarge(response, announced: expected)
        }
        if let capacity = HTTPResponse.bodyCapacityHint(expectedLength: expected) { data.reserveCapacity(capacity) }
    }

    /// ``data``: the bytes received so far.
    open override var receivedData: Data? { data }

    /// Appends the bytes.
    ///
    /// - Throws: ``ContentHandlerError/Code/contentTooLarge`` when they take the body past
    ///   ``maximumSize``.
    open override func append(_ chunk: Data) throws {
        if let maximumSize, data.count + chunk.count > maximumSize {
            throw tooLarge(response, announced: nil)
        }
        data.append(chunk)
    }

    /// The content made by ``content(from:)``.
    ///
    /// - Throws: ``ContentHandlerError/Code/unparsableContent`` when the conversion fails, with the
    ///   raw bytes as ``ContentHandlerError/intermediateContent``.
    open override func parseContent() throws -> (any Sendable)? {
        do {
            return try content(from: data)
        } catch var error as ContentHandlerError {
            if error.intermediateContent == nil { error.intermediateContent = data }
            if error.response == nil { error.response = response }
            throw error
        } catch {
            throw ContentHandlerError(
                .unparsableContent, reason: "\(type(of: self)) could not convert the body", response: response,
                underlyingError: error, intermediateContent: data)
        }
    }

    /// Makes the content from the whole body: the bytes themselves here.
    ///
    /// Override it to convert them; a thrown error ends the cycle and the bytes stay available as
    /// the error's ``ContentHandlerError/intermediateContent``.
    open func content(from data: Data) throws -> (any Sendable)? {
        data
    }

    /// Releases the buffer.
    open override func cleanup() {
        data = Data()
        super.cleanup()
    }

    private func tooLarge(_ response: HTTPResponse?, announced: Int64?) -> ContentHandlerError {
        let limit = maximumSize ?? 0
        let what = announced.map { "a Content-Length of \($0) bytes" } ?? "more than \(limit) bytes"
        return ContentHandlerError(
            .contentTooLarge, reason: "the body has \(what), over the maximum of \(limit)", response: response)
    }
}

/// Makes the body text: with the encoding you give, or the one the response names (see
/// ``HTTPResponse/textEncoding``: the `Content-Type` charset, ISO-8859-1 for `text/*` without one,
/// else a byte order mark or UTF-8).
///
/// The content is a `String`. Bytes that are invalid in the encoding become U+FFFD, as browsers
/// decode them; only an encoding that can't be decoded at all fails, with
/// ``ContentHandlerError/Code/unparsableContent``, keeping the bytes.
open class StringConverter: Accumulator, @unchecked Sendable {
    /// The encoding to decode with; `nil` follows the response.
    public var encoding: String.Encoding?

    /// Creates a converter.
    ///
    /// - Parameters:
    ///   - encoding: The encoding to decode with; `nil` follows the response.
    ///   - maximumSize: The most bytes a body may have; `nil` for no limit.
    ///   - acceptableResponses: The statuses taken; `nil` uses the class default.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class default.
    public init(
        encoding: String.Encoding? = nil, maximumSize: Int? = nil,
        acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil
    ) {
        self.encoding = encoding
        super.init(maximumSize: maximumSize, acceptableResponses: acceptableResponses, acceptableContentTypes: acceptableContentTypes)
    }

    /// Decodes the body.
    open override func content(from data: Data) throws -> (any Sendable)? {
        let encoding = encoding ?? ResponseTextEncoding.encoding(
            contentType: response?.value(forHTTPHeaderField: "Content-Type"), body: data)
        guard let text = ResponseTextEncoding.decode(data, encoding: encoding) else {
            throw ContentHandlerError(
                .unparsableContent, reason: "the body is not valid \(encoding) text", response: response)
        }
        return text
    }
}
