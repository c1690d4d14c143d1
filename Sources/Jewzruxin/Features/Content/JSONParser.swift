import Foundation

/// Parses a JSON body into a ``JSON`` value, read with key paths: `json["store.address.zip"]`.
///
/// Takes `application/json` and the `+json` types (`application/problem+json`…) unless
/// ``SelectiveDiscarder/acceptableContentTypes`` says otherwise. A body that isn't JSON ends the
/// cycle with ``ContentHandlerError/Code/unparsableContent``, and the raw bytes stay available as
/// the error's ``ContentHandlerError/intermediateContent`` and as ``HTTPResponse/content``.
///
/// To turn the JSON into your own model, subclass it and override ``content(from:)-(JSON)``.
open class JSONParser: Accumulator, @unchecked Sendable {
    /// `application/json` and any `+json` type.
    open override class var initialAcceptableContentTypes: [String] { ["application/json", "*/*+json"] }

    /// Parses the bytes, then hands the value to ``content(from:)-(JSON)``.
    open override func content(from data: Data) throws -> (any Sendable)? {
        try content(from: JSON(body: data, of: response))
    }

    /// Makes the content from the parsed value: the value itself here.
    ///
    /// Override it to build a model; a thrown error ends the cycle with the bytes kept.
    open func content(from json: JSON) throws -> (any Sendable)? {
        json
    }
}

extension JSON {
    /// The reason every reader of a JSON body gives when the body isn't JSON.
    package static let invalidBodyReason = "the body is not valid JSON"

    /// Parses a response body: the one way from body bytes to a ``JSON`` value, behind
    /// ``JSONParser``, ``HTTPJSONProcessor`` and the fluent layer's `responseJSON`.
    ///
    /// - Parameters:
    ///   - body: The body's bytes (see ``init(data:)`` for what is read as JSON).
    ///   - response: The response the body belongs to, kept in the error.
    /// - Throws: A ``ContentHandlerError`` of code ``ContentHandlerError/Code/unparsableContent`` with
    ///   the reason ``invalidBodyReason``, the `DecodingError` of ``init(data:)`` as its
    ///   ``ContentHandlerError/underlyingError`` and the raw bytes as its
    ///   ``ContentHandlerError/intermediateContent``.
    package init(body: Data, of response: HTTPResponse?) throws(ContentHandlerError) {
        do {
            self = try JSON(data: body)
        } catch {
            throw ContentHandlerError(
                .unparsableContent, reason: Self.invalidBodyReason, response: response, underlyingError: error,
                intermediateContent: body)
        }
    }
}
