import Foundation
import Jewzruxin

/// Why a validation of the chain (``ServiceTask/validate()`` and its siblings) refused a response.
///
/// Switch on ``reason``; the ``response`` is kept whole, with its status, headers and body, so an
/// API's error document can be read (``ServiceTask/responseError(_:decoder:_:)`` decodes it):
///
/// ```swift
/// service.GET("/report").validate()
///     .responseJSON { json in }
///     .responseError { error in
///         guard let error = error as? ResponseValidationError else { return }
///         switch error.reason {
///         case .unacceptableStatusCode(let status): print("status", status)
///         case .unacceptableContentType(let type, let acceptable): print(type, "is not", acceptable)
///         case .missingContentType(let acceptable): print("no Content-Type; wanted", acceptable)
///         case .customValidationFailed(let underlying): print(underlying)
///         }
///     }
/// ```
///
/// A status the session fails by itself (400 or more by default) never gets here: the task has
/// failed with `HTTPError.statusCodeSeemsToHaveErred(_:)` before any validation runs.
public struct ResponseValidationError: Error, Sendable, CustomStringConvertible {
    /// What was wrong with the response.
    public enum Reason: Sendable {
        /// The status is not among the acceptable ones (`0` for a response without a status).
        case unacceptableStatusCode(Int)
        /// The media type of the response's `Content-Type` (its essence, such as `text/html`, or
        /// the header as sent when it isn't a valid media type) matches none of `acceptable`.
        case unacceptableContentType(String, acceptable: [String])
        /// The response has a body and no `Content-Type`, while `acceptable` types were asked for.
        case missingContentType(acceptable: [String])
        /// A custom validation (`validate { response in … }`) threw this error or returned it as
        /// a failure.
        case customValidationFailed(any Error)
    }

    /// What was wrong with the response.
    public let reason: Reason
    /// The response refused, with its headers and body.
    public let response: HTTPResponse

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: What was wrong with the response.
    ///   - response: The response refused.
    public init(_ reason: Reason, response: HTTPResponse) {
        self.reason = reason
        self.response = response
    }

    /// The status code of the response refused.
    public var statusCode: Int? { response.statusCode }

    /// A sentence saying what was refused, with the URL where known.
    public var description: String {
        var text: String
        switch reason {
        case .unacceptableStatusCode(let status):
            text = "response validation failed: status \(status) is not acceptable"
        case .unacceptableContentType(let type, let acceptable):
            text = "response validation failed: Content-Type \(type) is not among "
                + acceptable.joined(separator: ", ")
        case .missingContentType(let acceptable):
            text = "response validation failed: the response has no Content-Type; acceptable: "
                + acceptable.joined(separator: ", ")
        case .customValidationFailed(let error):
            text = "response validation failed: \(error)"
        }
        if let url = response.url { text += " (\(url.absoluteString))" }
        return text
    }
}
