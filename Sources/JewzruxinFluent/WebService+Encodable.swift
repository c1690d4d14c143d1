import Foundation
import Jewzruxin

// The request methods with an `Encodable` value as the parameters: a struct of the query's or the
// form's fields, or of a JSON body.
extension WebService {
    /// Makes the task of a request whose parameters are an `Encodable` value.
    ///
    /// ```swift
    /// struct StoreQuery: Encodable, Sendable { let zip: String; let open: Bool? }
    /// service.GET("/stores/", parameters: StoreQuery(zip: "15217", open: nil))  // ?zip=15217
    ///
    /// struct NewStore: Encodable, Sendable { let name: String; let tags: [String] }
    /// service.POST("/stores/", parameters: NewStore(name: "Oakland", tags: ["new", "24h"]))
    /// // name=Oakland&tags=new&tags=24h
    /// service.POST("/stores/", parameters: NewStore(name: "Oakland", tags: []), options: [.parameterEncoding(.json)])
    /// // {"name":"Oakland","tags":[]}
    /// ```
    ///
    /// Where the parameters go is what it is for a dictionary: the query of a `GET` or `HEAD`, or
    /// with `.parameterEncoding(.query)`; otherwise the body, a form, or `encoder`'s JSON with
    /// `.parameterEncoding(.json)`. For a query or a form, the value is encoded with `encoder`, and
    /// must be an object: a string, number or boolean member is one parameter, a `nil` one is left
    /// out, an array of those repeats its key (`tags=new&tags=24h`), a nested object names its
    /// members in brackets (`filter[city]=Pittsburgh`), and an array of arrays or objects fails the
    /// task with a ``Request/ParameterEncodingError``, as does a value that isn't an object. A
    /// dictionary of strings, numbers and booleans encodes as the dictionary form of this method does.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: The value.
    ///   - encoder: Encodes it (its key, date and data strategies apply); a new `JSONEncoder` by
    ///     default, keys sorted.
    ///   - options: The parameter encoding, headers, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on; failed from the start when the value can't be
    ///   encoded.
    @discardableResult
    public func request<Parameters: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil,
        options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        if encoder == nil, let dictionary = parameters as? [String: any Sendable] {
            return request(method, path, parameters: dictionary, options: options)
        }
        let encoder = encoder ?? Self.parameterEncoder
        let settings = RequestBuilder.Settings(options)
        do {
            if !RequestBuilder.queryMethods.contains(method), settings.encoding == .json {
                // The encoder's own JSON, strategies and all; the caller's body or Content-Type,
                // given in the options, still win.
                let body = try encoder.encode(parameters)
                let json: [ServiceTask.Option] = [.body(body), .header(Request.Headers.contentType, "application/json")]
                return request(method, path, parameters: nil, options: json + options)
            }
            return request(method, path, parameters: try EncodableParameters.dictionary(of: parameters, encoder: encoder), options: options)
        } catch {
            return ServiceTask(failure: error, session: session)
        }
    }

    /// The encoder of parameters when none is given: keys sorted, as the dictionary forms sort them.
    private static var parameterEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Makes the task of a `GET` request; the value's members are the query's parameters.
    ///
    /// See ``request(_:_:parameters:encoder:options:)`` for how a value becomes parameters.
    @discardableResult
    public func GET<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.get, path, parameters: parameters, encoder: encoder, options: options)
    }

    /// Makes the task of a `HEAD` request; the value's members are the query's parameters.
    @discardableResult
    public func HEAD<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.head, path, parameters: parameters, encoder: encoder, options: options)
    }

    /// Makes the task of a `DELETE` request; the value is the body, as for `POST`.
    @discardableResult
    public func DELETE<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.delete, path, parameters: parameters, encoder: encoder, options: options)
    }

    /// Makes the task of a `POST` request; the value is the body, a form unless the options say
    /// `.parameterEncoding(.json)`.
    @discardableResult
    public func POST<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.post, path, parameters: parameters, encoder: encoder, options: options)
    }

    /// Makes the task of a `PUT` request; the value is the body.
    @discardableResult
    public func PUT<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.put, path, parameters: parameters, encoder: encoder, options: options)
    }

    /// Makes the task of a `PATCH` request; the value is the body.
    @discardableResult
    public func PATCH<Parameters: Encodable & Sendable>(
        _ path: String, parameters: Parameters, encoder: JSONEncoder? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.patch, path, parameters: parameters, encoder: encoder, options: options)
    }
}
