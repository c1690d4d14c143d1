import Foundation

/// Prepares a request before it is sent, or turns a response's bytes into a model after it arrives.
///
/// Subclass it and override ``processRequest(_:)``, ``processResponse(_:)`` or both; the base
/// implementations change nothing. A cycle runs its request processors in order on the session's
/// worker queue before sending, and its response processors in order after a successful transfer.
/// A processor that throws ends the cycle with its error: a throwing request processor stops the
/// request before anything is sent; a throwing response processor leaves ``HTTPResponse/data`` intact.
///
/// Processors are shared between cycles running at the same time, so a subclass must keep no
/// mutable state, or guard it itself.
open class HTTPProcessor: @unchecked Sendable {
    // @unchecked: the base class has no stored state; subclasses are documented to be immutable or
    // to guard their own state.

    /// Creates a processor.
    public init() {}

    /// Prepares `request`: typically turns ``HTTPRequest/object`` into ``HTTPRequest/data`` and sets
    /// headers.
    /// - Throws: An error that stops the request.
    open func processRequest(_ request: inout HTTPRequest) throws {}

    /// Processes `response`: typically turns ``HTTPResponse/data`` into ``HTTPResponse/object``.
    /// - Throws: An error that ends the cycle; the response's data is kept.
    open func processResponse(_ response: inout HTTPResponse) throws {}
}

/// Sends `Data` as it is and keeps the response's bytes as its object.
///
/// Request: ``HTTPRequest/object`` must be `Data` (or `nil`, leaving ``HTTPRequest/data`` alone).
/// Response: ``HTTPResponse/object`` becomes ``HTTPResponse/data``.
public final class HTTPDataProcessor: HTTPProcessor, @unchecked Sendable {
    /// Moves a `Data` object into the request body.
    public override func processRequest(_ request: inout HTTPRequest) throws {
        guard let object = request.object else { return }
        guard let data = object as? Data else {
            throw HTTPProcessorError(processor: "HTTPDataProcessor", reason: "request object is \(type(of: object)), not Data")
        }
        request.data = data
    }

    /// Makes the response's bytes its object.
    public override func processResponse(_ response: inout HTTPResponse) throws {
        response.object = response.data
    }
}

/// Sends a string as UTF-8 text and reads a response as text.
///
/// Request: a `String` object becomes the body, with `Content-Type: text/plain; charset=utf-8`
/// unless a Content-Type is set. Response: ``HTTPResponse/object`` becomes ``HTTPResponse/text``.
public final class HTTPTextProcessor: HTTPProcessor, @unchecked Sendable {
    /// Encodes a `String` object as the UTF-8 body.
    public override func processRequest(_ request: inout HTTPRequest) throws {
        guard let object = request.object else { return }
        guard let text = object as? String else {
            throw HTTPProcessorError(processor: "HTTPTextProcessor", reason: "request object is \(type(of: object)), not String")
        }
        request.data = Data(text.utf8)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
        }
    }

    /// Decodes the body as text with the response's charset.
    public override func processResponse(_ response: inout HTTPResponse) throws {
        guard let text = response.text else {
            throw HTTPProcessorError(processor: "HTTPTextProcessor", reason: "the body can't be decoded as \(response.textEncoding)")
        }
        response.object = text
    }
}
