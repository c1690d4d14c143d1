import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Jewzruxin

extension HTTPTypes.HTTPResponse {
    /// Creates swift-http-types' response from the library's: its status, reason phrase and headers
    /// (not its body).
    ///
    /// The fields are the response's `HTTPResponse.headerFields`: in the order they
    /// arrived, a repeated `Set-Cookie` kept apart, on the curl and native transports (URLSession
    /// joins repeats before the library sees them).
    ///
    /// - Parameter response: The library's response, once its head has arrived.
    /// - Throws: ``HTTPTypesConversionError/invalidStatus(_:)`` before the head arrived (or for a
    ///   status outside `100...999`), ``HTTPTypesConversionError/invalidFieldName(_:)`` for a header
    ///   name that isn't a token.
    public init(_ response: Jewzruxin.HTTPResponse) throws(HTTPTypesConversionError) {
        guard let code = response.statusCode, (100...999).contains(code) else {
            throw .invalidStatus(response.statusCode)
        }
        self.init(status: .init(code: code), headerFields: try HTTPFields(response.headerFields))
    }
}

extension Jewzruxin.HTTPResponse {
    /// Creates the library's response from swift-http-types' response, for a test double or a
    /// content handler test: a head with its status, reason phrase and fields, and a body.
    ///
    /// - Parameters:
    ///   - response: swift-http-types' response.
    ///   - url: The URL it answers (swift-http-types' responses carry none).
    ///   - body: The body, in `HTTPResponse.data`.
    public init(_ response: HTTPTypes.HTTPResponse, url: URL, body: Data = Data()) {
        let head = HTTPResponseHead(
            url: url, statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase,
            fields: [HTTPResponseHead.Field](response.headerFields))
        self.init(head: head, data: body)
    }
}
