import Foundation

/// Why a value of one module can't be made from the other's.
///
/// Every case names what was missing or refused, so a caller reading the error knows which field to
/// fix without a debugger.
public enum HTTPTypesConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no URL: swift-http-types' request has no scheme, authority or path that make
    /// one, or the library's request has none.
    case missingURL
    /// The method is not an HTTP token, so swift-http-types has no `Method` for it.
    case invalidMethod(String)
    /// A header name is not an HTTP token, so swift-http-types has no `HTTPField.Name` for it.
    case invalidFieldName(String)
    /// The response has no status line yet (the library's `HTTPResponse` before its head
    /// arrived), or a status outside `100...999`.
    case invalidStatus(Int?)

    /// What couldn't be converted, in a sentence.
    public var description: String {
        switch self {
        case .missingURL: "the request has no URL (scheme, authority and path)"
        case .invalidMethod(let method): "\"\(method)\" is not an HTTP method token"
        case .invalidFieldName(let name): "\"\(name)\" is not an HTTP field name"
        case .invalidStatus(let status?): "status \(status) is outside 100...999"
        case .invalidStatus(nil): "the response has no status line"
        }
    }
}
