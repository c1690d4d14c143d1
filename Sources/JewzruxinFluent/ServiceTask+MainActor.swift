import Foundation
import Jewzruxin

// Handlers isolated to the main actor: `.responseJSON(.mainActor) { json in self.items = … }` in a
// `@MainActor` type, in Swift 6 mode. Each runs on the main queue, as its `.main` twin does, as a
// `@MainActor` closure.
extension ServiceTask {
    /// Adds a handler of the raw response, isolated to the main actor, run when the request succeeded.
    ///
    /// ```swift
    /// @MainActor final class Loader {
    ///     var size = 0
    ///     func load(_ service: WebService) {
    ///         service.GET("/stores").response(.mainActor) { response, data in self.size = data.count }
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - handler: Gets the response and its body, on the main actor. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func response(_ queue: MainActorQueue, _ handler: @escaping @MainActor (HTTPResponse, Data) throws -> Void) -> Self {
        response(.main) { response, data in try MainActor.assumeIsolated { try handler(response, data) } }
    }

    /// Adds a handler of the response as a `JSON` value, isolated to the main actor (see
    /// ``responseJSON(_:_:)-(_,(JSON)->Void)``).
    ///
    /// ```swift
    /// service.GET("/stores").responseJSON(.mainActor) { json in self.stores = json["stores"] }
    /// ```
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - handler: Gets the JSON value, on the main actor. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON(_ queue: MainActorQueue, _ handler: @escaping @MainActor (JSON) throws -> Void) -> Self {
        responseJSON(.main) { json in try MainActor.assumeIsolated { try handler(json) } }
    }

    /// Adds a handler of the response decoded as `T`, isolated to the main actor.
    ///
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    ///   - handler: Gets the decoded value, on the main actor. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseJSON<T: Decodable & Sendable>(
        _ queue: MainActorQueue, _ type: T.Type, decoder: JSONDecoder = JSONDecoder(), _ handler: @escaping @MainActor (T) throws -> Void
    ) -> Self {
        responseJSON(.main, type, decoder: decoder) { value in try MainActor.assumeIsolated { try handler(value) } }
    }

    /// Adds a handler of the response as text, isolated to the main actor.
    ///
    /// ```swift
    /// service.GET("/hello/").responseString(.mainActor) { text in self.greeting = text }
    /// ```
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - handler: Gets the text, on the main actor. An error it throws fails the task.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseString(_ queue: MainActorQueue, _ handler: @escaping @MainActor (String) throws -> Void) -> Self {
        responseString(.main) { text in try MainActor.assumeIsolated { try handler(text) } }
    }

    /// Adds a handler of the error, isolated to the main actor, run only when the task failed.
    ///
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - handler: Gets the error, on the main actor.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseError(_ queue: MainActorQueue, _ handler: @escaping @MainActor (any Error) -> Void) -> Self {
        responseError(.main) { error in MainActor.assumeIsolated { handler(error) } }
    }

    /// Runs `handler` with each server-sent event on the main actor (see
    /// ``responseEvents(_:reconnection:_:)-(HandlerQueue?,_,_)``).
    ///
    /// - Parameters:
    ///   - queue: `MainActorQueue.mainActor`.
    ///   - reconnection: When and how often to reconnect.
    ///   - handler: Gets each event, on the main actor. An error it throws ends the stream.
    /// - Returns: This task, to chain more handlers.
    @discardableResult
    public func responseEvents(
        _ queue: MainActorQueue, reconnection: HTTPCycle.EventStreamReconnection = HTTPCycle.EventStreamReconnection(),
        _ handler: @escaping @MainActor (ServerSentEvent) throws -> Void
    ) -> Self {
        responseEvents(.main, reconnection: reconnection) { event in try MainActor.assumeIsolated { try handler(event) } }
    }
}
