import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Jewzruxin

// Both modules declare `HTTPRequest` and `HTTPResponse`: in a file that imports both, write the
// module's name before the type (`HTTPTypes.HTTPRequest`, `Jewzruxin.HTTPRequest`).

extension Jewzruxin.HTTPRequest {
    /// Creates the library's request from swift-http-types' request and a body.
    ///
    /// The URL is the request's `scheme`, `authority` and `path`; fields of the same name are joined
    /// into one header, with `"; "` for `Cookie` and `", "` for the others (RFC 9110 §5.3), since
    /// the library's request keeps one value per name.
    ///
    /// ```swift
    /// let request = HTTPTypes.HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:8080/hello/")!)
    /// let converted = try Jewzruxin.HTTPRequest(request)
    /// ```
    ///
    /// - Parameters:
    ///   - request: swift-http-types' request.
    ///   - body: The body to send, in `HTTPRequest.data`; `nil` for none.
    /// - Throws: ``HTTPTypesConversionError/missingURL`` when the request has no scheme or authority.
    public init(_ request: HTTPTypes.HTTPRequest, body: Data? = nil) throws(HTTPTypesConversionError) {
        guard let url = request.url, url.scheme != nil, url.host != nil else { throw .missingURL }
        self.init(url: url, method: HTTPMethod(rawValue: request.method.rawValue))
        for (name, value) in Self.joined(request.headerFields) {
            setValue(value, forHTTPHeaderField: name)
        }
        data = body
    }

    /// The fields of `fields`, one per name (in the order of each name's first field), repeated
    /// names joined as RFC 9110 §5.3 allows.
    static func joined(_ fields: HTTPFields) -> [(name: String, value: String)] {
        var joined: [(name: String, value: String)] = []
        var index: [HTTPField.Name: Int] = [:]
        for field in fields {
            if let at = index[field.name] {
                let separator = field.name == .cookie ? "; " : ", "
                joined[at].value += separator + field.value
            } else {
                index[field.name] = joined.count
                joined.append((field.name.rawName, field.value))
            }
        }
        return joined
    }
}

extension HTTPTypes.HTTPRequest {
    /// Creates swift-http-types' request from the library's: its method, URL and header fields, in
    /// their order (not its body, which swift-http-types keeps apart).
    ///
    /// - Parameter request: The library's request.
    /// - Throws: ``HTTPTypesConversionError`` when the request has no URL, or a method or header
    ///   name that isn't an HTTP token.
    public init(_ request: Jewzruxin.HTTPRequest) throws(HTTPTypesConversionError) {
        guard let url = request.url else { throw .missingURL }
        guard let method = HTTPTypes.HTTPRequest.Method(request.method.rawValue) else {
            throw .invalidMethod(request.method.rawValue)
        }
        var fields = HTTPFields()
        for (name, value) in request.headerFields {
            guard let fieldName = HTTPField.Name(name) else { throw .invalidFieldName(name) }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        self.init(method: method, url: url, headerFields: fields)
    }
}

extension HTTPFields {
    /// Creates fields from a dictionary of headers (the library's requests keep theirs so), sorted
    /// by name so that the order doesn't change from one run to the next.
    ///
    /// - Parameter headers: The headers, one value per name.
    /// - Throws: ``HTTPTypesConversionError/invalidFieldName(_:)`` for a name that isn't a token.
    public init(headers: [String: String]) throws(HTTPTypesConversionError) {
        self.init()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name) else { throw .invalidFieldName(name) }
            append(HTTPField(name: fieldName, value: value))
        }
    }

    /// Creates fields from a response head's, in their order, repeated names kept apart.
    ///
    /// - Parameter fields: The fields of an ``HTTPResponseHead``.
    /// - Throws: ``HTTPTypesConversionError/invalidFieldName(_:)`` for a name that isn't a token.
    public init(_ fields: [HTTPResponseHead.Field]) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields {
            guard let name = HTTPField.Name(field.name) else { throw .invalidFieldName(field.name) }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension Array where Element == HTTPResponseHead.Field {
    /// The fields of swift-http-types' `HTTPFields`, in their order, names as they were spelled.
    ///
    /// - Parameter fields: The fields to convert.
    public init(_ fields: HTTPFields) {
        self = fields.map { HTTPResponseHead.Field(name: $0.name.rawName, value: $0.value) }
    }
}
