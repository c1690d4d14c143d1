import Foundation
import Jewzruxin

// The async twins of the response handlers. Each awaits its turn in the chain like a handler
// added at that point, and starts the task if it isn't started. As for the handlers, the body is
// parsed or decoded off the handler queues (where the request ended, or on the worker queue).
//
// Cancelling the calling Swift task cancels the request (as ``ServiceTask/cancel()`` does: the
// error handlers get `HTTPError.cancelled`). A cancelled request, however it was cancelled, throws
// `CancellationError` here, as `HTTPCycle.start()` does.
extension ServiceTask {
    /// Waits for the response.
    ///
    /// - Returns: The response, once the handlers added before have run.
    /// - Throws: The task's error (see ``responseError(_:_:)-(_,(Error)->Void)``), or
    ///   `CancellationError` when the request was cancelled.
    public func response() async throws -> HTTPResponse {
        try await outcome(reads: { _ in false }) { $0 ?? HTTPResponse() }
    }

    /// Waits for the response body.
    ///
    /// - Returns: The body, once the handlers added before have run.
    /// - Throws: The task's error, or `CancellationError` when the request was cancelled.
    public func data() async throws -> Data {
        try await outcome(reads: { _ in false }) { ($0 ?? HTTPResponse()).data }
    }

    /// Waits for the response and reads it as JSON, as ``responseJSON(_:_:)-(_,(JSON)->Void)`` does.
    ///
    /// - Returns: The JSON value.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body isn't JSON (the task then fails with it).
    public func json() async throws -> JSON {
        try await outcome(reads: { !($0?.content is JSON) }) { try Self.json(from: $0) }
    }

    /// Waits for the response and reads it as text, as ``responseString(_:_:)-(_,(String)->Void)`` does.
    ///
    /// - Returns: The text.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body can't be decoded (the task then fails with it).
    public func string() async throws -> String {
        try await outcome(reads: { !($0?.content is String) }) { try Self.string(from: $0) }
    }

    /// Waits for the response and decodes its body, as ``responseJSON(_:decoder:_:)-(_,_,(T)->Void)`` does.
    ///
    /// ```swift
    /// let stores = try await service.searchStores(zipCode: "15217").decode([StoreModel].self)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body doesn't decode (the task then fails with it).
    public func decode<T: Decodable & Sendable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) async throws -> T {
        try await outcome(reads: { _ in true }) { try Self.decode(T.self, from: $0, decoder: decoder) }
    }

    /// Waits for the response and reads it as JSON, returning the response too, as
    /// ``responseJSON(_:_:)-(_,(JSON,HTTPResponse)->Void)`` does.
    ///
    /// ```swift
    /// let (json, response) = try await service.GET("/stores").jsonWithResponse()
    /// ```
    /// - Returns: The JSON value and the response it was read from.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body isn't JSON (the task then fails with it).
    public func jsonWithResponse() async throws -> (value: JSON, response: HTTPResponse) {
        try await outcome(reads: { !($0?.content is JSON) }) { (try Self.json(from: $0), $0 ?? HTTPResponse()) }
    }

    /// Waits for the response and reads it as text, returning the response too, as
    /// ``responseString(_:_:)-(_,(String,HTTPResponse)->Void)`` does.
    ///
    /// - Returns: The text and the response it was decoded from.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body can't be decoded (the task then fails with it).
    public func stringWithResponse() async throws -> (value: String, response: HTTPResponse) {
        try await outcome(reads: { !($0?.content is String) }) { (try Self.string(from: $0), $0 ?? HTTPResponse()) }
    }

    /// Waits for the response and decodes its body, returning the response too, as
    /// ``responseJSON(_:decoder:_:)-(_,_,(T,HTTPResponse)->Void)`` does.
    ///
    /// ```swift
    /// let (stores, response) = try await service.GET("/stores").decodeWithResponse([StoreModel].self)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value and the response it was decoded from.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body doesn't decode (the task then fails with it).
    public func decodeWithResponse<T: Decodable & Sendable>(
        _ type: T.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (value: T, response: HTTPResponse) {
        try await outcome(reads: { _ in true }) { (try Self.decode(T.self, from: $0, decoder: decoder), $0 ?? HTTPResponse()) }
    }

    /// Waits for the response and reads it as an image, as
    /// ``responseImage(_:_:)-(_,(ImageContent)->Void)`` does.
    ///
    /// ```swift
    /// let image = try await service.GET("/avatars/42.png").asImage().image()
    /// ```
    /// - Returns: The image: its format, size in pixels and bytes.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body is not a PNG, JPEG or GIF image (the task then fails
    ///   with it).
    public func image() async throws -> ImageContent {
        try await outcome(reads: { !($0?.content is ImageContent) }) { try Self.image(from: $0) }
    }

    /// Waits for the response and reads it as an image, returning the response too, as
    /// ``responseImage(_:_:)-(_,(ImageContent,HTTPResponse)->Void)`` does.
    ///
    /// - Returns: The image and the response it was read from.
    /// - Throws: The task's error, `CancellationError` when the request was cancelled, or a
    ///   `ContentHandlerError` when the body is not a PNG, JPEG or GIF image (the task then fails
    ///   with it).
    public func imageWithResponse() async throws -> (value: ImageContent, response: HTTPResponse) {
        try await outcome(reads: { !($0?.content is ImageContent) }) { (try Self.image(from: $0), $0 ?? HTTPResponse()) }
    }

    /// Waits for the turn of a handler added now and returns what `read` makes of the response:
    /// off the handler queues when `reads` says the response needs reading (parsing, decoding),
    /// at once otherwise.
    private func outcome<T: Sendable>(
        reads: @escaping @Sendable (HTTPResponse?) -> Bool, _ read: @escaping @Sendable (HTTPResponse?) throws -> T
    ) async throws -> T {
        // Resumed from a handler's thread: ordered, for ThreadSanitizer, with this task.
        defer { fence() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let resume: @Sendable (Result<T, any Error>) -> Void = { [self] result in
                    fence()
                    continuation.resume(with: result)
                }
                add(Handler(kind: .always, place: .handlers(.inline)) { outcome in
                    if let error = outcome.error {
                        let thrown: any Error
                        if case HTTPError.cancelled = error { thrown = CancellationError() } else { thrown = error }
                        return .run { resume(.failure(thrown)) }
                    }
                    let give: @Sendable () throws -> Void = {
                        let result = Result { try read(outcome.response) }
                        resume(result)
                        _ = try result.get()
                    }
                    guard reads(outcome.response) else { return .run(give) }
                    return .read {
                        try give()
                        return nil
                    }
                }, awaited: true)
            }
        } onCancel: {
            cancel()
        }
    }
}
