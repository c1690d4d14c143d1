import Foundation

/// Reads a `text/event-stream` body as it arrives and hands each event over at once: server-sent
/// events as a content handler, in hotpotato's hierarchy.
///
/// ```swift
/// let cycle = HTTPCycle(requestURL: url)
/// cycle.request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
/// cycle.contentHandler = EventStreamParser { event in print(event.type, event.data) }
/// cycle.start { cycle, error in print("stream ended", error ?? "cleanly") }
/// ```
///
/// Takes `text/event-stream` responses with the statuses of ``SelectiveDiscarder`` unless told
/// otherwise. Events are handed over on the transport's thread, as the bytes are fed
/// (``ContentHandler``): keep the handler short. For reconnection with `Last-Event-ID`, use
/// ``HTTPCycle/events(reconnection:decoder:)``, which builds on the same decoder. The content is the
/// number of events the body held.
///
/// Subclass it and override ``received(_:)`` to handle events in a type of your own.
open class EventStreamParser: SelectiveDiscarder, @unchecked Sendable {
    /// `text/event-stream`.
    open override class var initialAcceptableContentTypes: [String] { ["text/event-stream"] }

    private let handler: (@Sendable (ServerSentEvent) -> Void)?
    /// The engine calls a handler one step at a time (``ContentHandler``): no lock needed.
    private var decoder: EventStreamDecoder
    /// The events handed over for the current response.
    public private(set) var eventCount = 0

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - decoder: The decoder's limits (line length, event size).
    ///   - acceptableResponses: The statuses taken; `nil` uses the class default.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class default
    ///     (`text/event-stream`).
    ///   - handler: Gets each event, on the transport's thread, as soon as it is complete.
    public init(
        decoder: EventStreamDecoder = EventStreamDecoder(),
        acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil,
        _ handler: (@Sendable (ServerSentEvent) -> Void)? = nil
    ) {
        self.handler = handler
        self.decoder = decoder
        super.init(acceptableResponses: acceptableResponses, acceptableContentTypes: acceptableContentTypes)
    }

    /// The last event ID the stream set (empty for none): what a reconnection sends as
    /// `Last-Event-ID`.
    public var lastEventID: String { decoder.lastEventID }

    /// The reconnection time the stream asked for with `retry:`, in milliseconds, if it did.
    public var reconnectionTime: Int? { decoder.reconnectionTime }

    /// Applies the acceptance rules, then starts a new stream (keeping the last event ID).
    open override func prepare(for response: HTTPResponse) throws {
        try super.prepare(for: response)
        decoder.reset()
        eventCount = 0
    }

    /// Decodes the bytes, handing over each event they complete.
    ///
    /// - Throws: ``EventStreamError`` when a line or an event passes the decoder's limits.
    open override func append(_ data: Data) throws {
        try decoder.feed(data) { event in
            eventCount += 1
            received(event)
        }
    }

    /// An event is complete: hands it to the handler given at creation. Override it to handle
    /// events yourself.
    open func received(_ event: ServerSentEvent) {
        handler?(event)
    }

    /// Drops an event the body ended in the middle of; the content is the number of events.
    open override func parseContent() throws -> (any Sendable)? {
        decoder.finish()
        return eventCount
    }
}
