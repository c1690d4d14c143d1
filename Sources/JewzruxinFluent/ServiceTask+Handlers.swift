import Foundation
import Jewzruxin

// The response handlers. Each one runs on `queue` when one is given, otherwise on the cycle's
// handler queue (the session's delegate queue, the main queue, unless changed), after the handlers
// added before it have returned. What a handler reads from the response (a JSON value, a Decodable,
// text, an image, an API's error document) is parsed or decoded first, in the handler's turn, off
// every handler queue (where the request ended for a small body, on the session's worker queue
// otherwise; see `ServiceTask.inlineReadLimit`): only the handler's closure runs on its queue.
extension ServiceTask {
    // MARK: Success handlers

    /// Adds a handler of the raw response, run when the request succeeded.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"])
    ///     .response { (response: HTTPResponse, data: Data) in
    ///         // process response data
    ///     }
    /// ```
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the response and its body. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func response(
        _ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (HTTPResponse, Data) throws -> Void
    ) -> Self {
        add(.success, queue) { outcome in
            let response = outcome.response ?? HTTPResponse()
            try handler(response, response.data)
        }
    }

    /// Adds a handler of the response as a `JSON` value, run when the request succeeded.
    ///
    /// The value is the content ``asJSON()`` parsed, or else the body parsed now, off the handler
    /// queue (see ``ServiceTask``). A body that isn't JSON fails the task with a `ContentHandlerError`
    /// of code `.unparsableContent`, the raw bytes kept as its `intermediateContent`, and the handler isn't
    /// called.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the JSON value. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON(_ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (JSON) throws -> Void) -> Self {
        responseJSON(queue) { json, _ in try handler(json) }
    }

    /// Adds a handler of the response as a `JSON` value, with the response, run when the request
    /// succeeded.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"])
    ///     .responseJSON { (json: JSON, response: HTTPResponse) in
    ///         let etag = response.value(forHTTPHeaderField: "ETag")
    ///     }
    /// ```
    ///
    /// The same as ``responseJSON(_:_:)-(_,(JSON)->Void)``, for a handler that also reads the status
    /// or headers.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the JSON value and the response it was read from. An error it throws fails
    ///     the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON(
        _ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (JSON, HTTPResponse) throws -> Void
    ) -> Self {
        addReader(.success, queue) { outcome in
            let response = outcome.response ?? HTTPResponse()
            if let json = response.content as? JSON { return .run { try handler(json, response) } }
            return .read {
                let json = try JSON(body: response.data, of: response)
                return { try handler(json, response) }
            }
        }
    }

    /// Adds a handler of the response body decoded as a `Decodable` type, run when the request
    /// succeeded.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"])
    ///     .responseJSON([StoreModel].self) { stores in
    ///         // update the UI
    ///     }
    /// ```
    ///
    /// The body is decoded off the handler queue (see ``ServiceTask``); only `handler` runs on it.
    /// A body that doesn't decode fails the task with a `ContentHandlerError` of code
    /// `.unparsableContent` whose `underlyingError` is the `DecodingError`; the handler isn't called.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded value. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON<T: Decodable & Sendable>(
        _ type: T.Type, decoder: JSONDecoder = JSONDecoder(), _ handler: @escaping @Sendable (T) throws -> Void
    ) -> Self {
        responseJSON(nil, type, decoder: decoder, handler)
    }

    /// Adds a handler, run on `queue`, of the response body decoded as a `Decodable` type.
    ///
    /// See ``responseJSON(_:decoder:_:)-(_,_,(T)->Void)``.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded value. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON<T: Decodable & Sendable>(
        _ queue: HandlerQueue?, _ type: T.Type, decoder: JSONDecoder = JSONDecoder(),
        _ handler: @escaping @Sendable (T) throws -> Void
    ) -> Self {
        responseJSON(queue, type, decoder: decoder) { value, _ in try handler(value) }
    }

    /// Adds a handler of the response body decoded as a `Decodable` type, with the response, run
    /// when the request succeeded.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"])
    ///     .responseJSON([StoreModel].self) { stores, response in
    ///         let total = response.value(forHTTPHeaderField: "X-Total-Count")
    ///     }
    /// ```
    ///
    /// The same as ``responseJSON(_:decoder:_:)-(_,_,(T)->Void)``, for a handler that also reads the
    /// status or headers.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded value and the response it was decoded from. An error it throws
    ///     fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON<T: Decodable & Sendable>(
        _ type: T.Type, decoder: JSONDecoder = JSONDecoder(), _ handler: @escaping @Sendable (T, HTTPResponse) throws -> Void
    ) -> Self {
        responseJSON(nil, type, decoder: decoder, handler)
    }

    /// Adds a handler, run on `queue`, of the response body decoded as a `Decodable` type, with the
    /// response.
    ///
    /// See ``responseJSON(_:decoder:_:)-(_,_,(T,HTTPResponse)->Void)``.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded value and the response it was decoded from. An error it throws
    ///     fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON<T: Decodable & Sendable>(
        _ queue: HandlerQueue?, _ type: T.Type, decoder: JSONDecoder = JSONDecoder(),
        _ handler: @escaping @Sendable (T, HTTPResponse) throws -> Void
    ) -> Self {
        addReader(.success, queue) { outcome in
            .read {
                let response = outcome.response ?? HTTPResponse()
                let value = try Self.decode(T.self, from: response, decoder: decoder)
                return { try handler(value, response) }
            }
        }
    }

    /// Adds a handler of the response as text, run when the request succeeded.
    ///
    /// The text is the content ``asString()`` decoded, or else the body decoded now, off the
    /// handler queue, with the charset the response names (see `HTTPResponse.text`). A
    /// body that can't be decoded fails the task with a `ContentHandlerError` of code
    /// `.unparsableContent`.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the text. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseString(_ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (String) throws -> Void) -> Self {
        responseString(queue) { text, _ in try handler(text) }
    }

    /// Adds a handler of the response as text, with the response, run when the request succeeded.
    ///
    /// ```swift
    /// service.GET("/hello")
    ///     .responseString { text, response in
    ///         let language = response.value(forHTTPHeaderField: "Content-Language")
    ///     }
    /// ```
    ///
    /// The same as ``responseString(_:_:)-(_,(String)->Void)``, for a handler that also reads the
    /// status or headers.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the text and the response it was decoded from. An error it throws fails
    ///     the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseString(
        _ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (String, HTTPResponse) throws -> Void
    ) -> Self {
        addReader(.success, queue) { outcome in
            let response = outcome.response ?? HTTPResponse()
            if let text = response.content as? String { return .run { try handler(text, response) } }
            return .read {
                let text = try Self.string(from: response)
                return { try handler(text, response) }
            }
        }
    }

    /// Adds a handler of the response as an image, run when the request succeeded.
    ///
    /// ```swift
    /// service.GET("/avatars/42.png")
    ///     .asImage()
    ///     .responseImage { image in
    ///         // image.format, image.width, image.height, image.data
    ///     }
    /// ```
    ///
    /// The image is the `ImageContent` ``asImage()`` made, or else one read now from the body's
    /// header, off the handler queue (see ``ServiceTask``): without ``asImage()`` the response's
    /// `Content-Type` and status aren't checked, only the bytes. A body that is not a PNG, JPEG or
    /// GIF image fails the task with a `ContentHandlerError` of code `.unparsableContent`, the raw
    /// bytes kept as its `intermediateContent`, and the handler isn't called.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the image: its format, size in pixels and bytes. An error it throws fails
    ///     the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseImage(_ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (ImageContent) throws -> Void) -> Self {
        responseImage(queue) { image, _ in try handler(image) }
    }

    /// Adds a handler of the response as an image, with the response, run when the request
    /// succeeded.
    ///
    /// The same as ``responseImage(_:_:)-(_,(ImageContent)->Void)``, for a handler that also reads
    /// the status or headers, or the content of an `ImageDecoder` subclass that decodes the pixels
    /// (`response.content`).
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the image and the response it was read from. An error it throws fails the
    ///     task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseImage(
        _ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (ImageContent, HTTPResponse) throws -> Void
    ) -> Self {
        addReader(.success, queue) { outcome in
            let response = outcome.response ?? HTTPResponse()
            if let image = response.content as? ImageContent { return .run { try handler(image, response) } }
            return .read {
                let image = try Self.image(from: response)
                return { try handler(image, response) }
            }
        }
    }

    // MARK: Error handlers

    /// Adds a handler of the error, run only when the task failed.
    ///
    /// ```swift
    /// service.GET("/foo")
    ///     .responseError { error in
    ///         // I am error
    ///     }
    /// ```
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the error: `HTTPError` for the request (`HTTPError.cancelled` after
    ///     ``cancel()``), or what a success handler threw.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseError(_ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (any Error) -> Void) -> Self {
        add(.failure, queue) { outcome in
            if let error = outcome.error { handler(error) }
        }
    }

    /// Adds a handler of the error and the response, run only when the task failed.
    ///
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - handler: Gets the response the request got, `nil` when none arrived (a transport
    ///     error, an invalid URL, a cancel before the response), and the error.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseError(
        _ queue: HandlerQueue? = nil, _ handler: @escaping @Sendable (HTTPResponse?, any Error) -> Void
    ) -> Self {
        add(.failure, queue) { outcome in
            if let error = outcome.error { handler(outcome.response ?? Self.errorResponse(error), error) }
        }
    }

    /// Adds a handler of the error body an API sent, decoded as a `Decodable` type, run only when
    /// the task failed with a response whose body decodes.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "bad"])
    ///     .responseError(APIError.self) { apiError in
    ///         // show apiError.message
    ///     }
    /// ```
    ///
    /// The body is that of an `HTTPError.statusCodeSeemsToHaveErred(_:)`, of a refusing
    /// `ContentHandlerError` or of a ``ResponseValidationError``, decoded off the handler queue. When the error has no body, or
    /// the body doesn't decode, the handler is skipped.
    /// - Parameters:
    ///   - type: The type of the API's error document.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded error document.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseError<E: Decodable & Sendable>(
        _ type: E.Type, decoder: JSONDecoder = JSONDecoder(), _ handler: @escaping @Sendable (E) -> Void
    ) -> Self {
        responseError(nil, type, decoder: decoder, handler)
    }

    /// Adds a handler, run on `queue`, of the error body an API sent, decoded as a `Decodable` type.
    ///
    /// See ``responseError(_:decoder:_:)``.
    /// - Parameters:
    ///   - queue: Where the handler runs; the cycle's handler queue when `nil` (see ``ServiceTask``).
    ///   - type: The type of the API's error document.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded error document.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseError<E: Decodable & Sendable>(
        _ queue: HandlerQueue?, _ type: E.Type, decoder: JSONDecoder = JSONDecoder(),
        _ handler: @escaping @Sendable (E) -> Void
    ) -> Self {
        addReader(.failure, queue) { outcome in
            guard let error = outcome.error, let body = Self.errorResponse(error)?.data, !body.isEmpty else { return .skip }
            return .read {
                guard let value = try? decoder.decode(E.self, from: body) else { return nil }
                return { handler(value) }
            }
        }
    }

    // MARK: Reading a response

    /// The JSON of a response: the content a `JSONParser` made, or the body parsed.
    static func json(from response: HTTPResponse?) throws -> JSON {
        let response = response ?? HTTPResponse()
        if let json = response.content as? JSON { return json }
        return try JSON(body: response.data, of: response)
    }

    /// The body of a response decoded as `type`.
    static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse?, decoder: JSONDecoder) throws -> T {
        let response = response ?? HTTPResponse()
        do {
            return try decoder.decode(type, from: response.data)
        } catch {
            throw unparsable(response, "the body can't be decoded as \(type)", error)
        }
    }

    /// The text of a response: the content a `StringConverter` made, or the body decoded.
    static func string(from response: HTTPResponse?) throws -> String {
        let response = response ?? HTTPResponse()
        if let text = response.content as? String { return text }
        guard let text = response.text else {
            throw unparsable(response, "the body is not valid \(response.textEncoding) text", nil)
        }
        return text
    }

    /// The image of a response: the content an `ImageDecoder` made, or the body's header read.
    static func image(from response: HTTPResponse?) throws -> ImageContent {
        let response = response ?? HTTPResponse()
        if let image = response.content as? ImageContent { return image }
        guard let image = ImageContent(data: response.data) else {
            throw unparsable(response, "the body is not a PNG, JPEG or GIF image", nil)
        }
        return image
    }

    /// The response an error carries: that of a status error, of a content handler's error or of
    /// a validation's.
    static func errorResponse(_ error: any Error) -> HTTPResponse? {
        switch error {
        case HTTPError.statusCodeSeemsToHaveErred(let response): return response
        case let error as ContentHandlerError: return error.response
        case let error as ResponseValidationError: return error.response
        default: return nil
        }
    }

    private static func unparsable(_ response: HTTPResponse, _ reason: String, _ underlying: (any Error)?) -> ContentHandlerError {
        ContentHandlerError(
            .unparsableContent, reason: reason, response: response, underlyingError: underlying,
            intermediateContent: response.data)
    }
}
