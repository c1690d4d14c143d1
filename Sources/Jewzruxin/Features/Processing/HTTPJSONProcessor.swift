import Foundation

/// Sends a model as JSON and reads a JSON response into a ``JSON`` value.
///
/// Request: ``HTTPRequest/object`` — a ``JSON`` value, a dictionary or array of JSON-compatible values
/// (`["k1": "v1", "k2": 9]`) or any `Encodable` — becomes the body, and `Content-Type` is set to
/// `application/json`. Response: the body is parsed into a ``JSON`` value stored as
/// ``HTTPResponse/object``; a body that isn't JSON throws and leaves ``HTTPResponse/data`` as it was.
open class HTTPJSONProcessor: HTTPProcessor, @unchecked Sendable {
    /// Encodes the request object as the JSON body.
    /// - Throws: ``HTTPProcessorError`` when the object has no JSON form.
    open override func processRequest(_ request: inout HTTPRequest) throws {
        guard let object = request.object else { return }
        let data: Data
        do {
            data = try JSON(converting: object).encoded()
        } catch let error as HTTPProcessorError {
            throw HTTPProcessorError(processor: "HTTPJSONProcessor", reason: error.reason)
        } catch {
            throw HTTPProcessorError(processor: "HTTPJSONProcessor", reason: "can't encode the request object", underlying: error)
        }
        request.data = data
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }

    /// Parses the body into a ``JSON`` value, as ``JSONParser`` does.
    /// - Throws: ``HTTPProcessorError`` wrapping the decoding error when the body isn't JSON.
    open override func processResponse(_ response: inout HTTPResponse) throws {
        do throws(ContentHandlerError) {
            response.object = try JSON(body: response.data, of: response)
        } catch {
            throw HTTPProcessorError(processor: "HTTPJSONProcessor", reason: error.reason, underlying: error.underlyingError)
        }
    }
}
