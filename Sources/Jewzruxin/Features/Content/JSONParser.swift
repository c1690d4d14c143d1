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
        let json: JSON
        do {
            json = try JSON(data: data)
        } catch {
            throw ContentHandlerError(
                .unparsableContent, reason: "the body is not valid JSON", response: response, underlyingError: error)
        }
        return try content(from: json)
    }

    /// Makes the content from the parsed value: the value itself here.
    ///
    /// Override it to build a model; a thrown error ends the cycle with the bytes kept.
    open func content(from json: JSON) throws -> (any Sendable)? {
        json
    }
}
