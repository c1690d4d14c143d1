import Foundation

/// One event of a `text/event-stream` body (server-sent events, the WHATWG HTML standard §9.2).
///
/// ```swift
/// for try await event in cycle.events() {
///     print(event.type, event.data)     // "message", "{\"delta\":\"Hel\"}"
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event's type: its `event:` field, `message` when it has none.
    public var type: String
    /// The event's data: its `data:` lines joined with `\n`.
    public var data: String
    /// The last event ID when the event was dispatched: its own `id:` field or one of an event
    /// before it, `nil` while the stream has set none (or set an empty one). A reconnection sends
    /// it as `Last-Event-ID`.
    public var id: String?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The type, `message` by default.
    ///   - data: The data.
    ///   - id: The last event ID.
    public init(type: String = "message", data: String, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }

    /// The data read as JSON, as many streaming APIs send it.
    ///
    /// - Throws: The `DecodingError` of ``JSON/init(data:)`` when the data isn't JSON.
    public func json() throws -> JSON {
        try JSON(data: Data(data.utf8))
    }

    public var description: String {
        "event \(type)" + (id.map { " id \($0)" } ?? "") + ": " + data
    }
}

/// Why an event stream stopped.
public struct EventStreamError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// A line was longer than the decoder's limit: the server sends no line ends, or far
        /// longer lines than an event stream has.
        case lineTooLong
        /// An event's data grew past the decoder's limit before the event ended.
        case eventTooLarge
        /// The response is not an event stream (its `Content-Type` isn't `text/event-stream`).
        case notAnEventStream
        /// The stream ended or failed, and reconnecting failed as many times in a row as allowed.
        case reconnectionFailed
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what happened.
    public let reason: String
    /// The response concerned, when there is one.
    public var response: HTTPResponse?
    /// The error of the last attempt, for ``Code/reconnectionFailed``.
    public var underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, reason: String, response: HTTPResponse? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.response = response
        self.underlyingError = underlyingError
    }

    public var description: String {
        reason + (underlyingError.map { " (\($0))" } ?? "")
    }
}
