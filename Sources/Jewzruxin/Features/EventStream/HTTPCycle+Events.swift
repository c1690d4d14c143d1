import Foundation

// Server-sent events as an async sequence, reconnecting as the WHATWG standard's EventSource does.
extension HTTPCycle {
    /// How an event stream reconnects when its connection ends or fails.
    ///
    /// The wait before a reconnection is the `retry:` time the server last sent, or ``delay``; it
    /// doubles with each attempt in a row that brings no event, up to ``maximumDelay``. After
    /// ``maximumAttempts`` such attempts the stream throws ``EventStreamError/Code/reconnectionFailed``.
    public struct EventStreamReconnection: Sendable {
        /// How many reconnections in a row may bring no event; 0 never reconnects. 5 by default.
        public var maximumAttempts: Int
        /// The wait before reconnecting, in seconds, until the server sends `retry:`; 3 by default.
        public var delay: TimeInterval
        /// The longest wait, in seconds, whatever the server asks or the backoff reaches; 60 by
        /// default.
        public var maximumDelay: TimeInterval

        /// Creates reconnection settings.
        public init(maximumAttempts: Int = 5, delay: TimeInterval = 3, maximumDelay: TimeInterval = 60) {
            self.maximumAttempts = maximumAttempts
            self.delay = delay
            self.maximumDelay = maximumDelay
        }

        /// No reconnection: the stream ends with its connection.
        public static let never = EventStreamReconnection(maximumAttempts: 0)

        /// The wait before the `attempt`th reconnection in a row (1 for the first), given the
        /// server's `retry:` in milliseconds.
        func wait(attempt: Int, serverRetry: Int?) -> TimeInterval {
            let base = serverRetry.map { TimeInterval($0) / 1000 } ?? delay
            let doubled = base * pow(2, Double(min(max(attempt - 1, 0), 30)))
            return max(0, min(doubled, maximumDelay))
        }
    }

    /// The server-sent events of the response, as they arrive, reconnecting with `Last-Event-ID`
    /// when the connection ends or fails.
    ///
    /// ```swift
    /// let cycle = HTTPCycle(requestURL: URL(string: "https://api.example.com/v1/stream")!)
    /// for try await event in cycle.events() {
    ///     if event.type == "done" { break }
    ///     print(try event.json()["delta"]?.stringValue ?? "")
    /// }
    /// ```
    ///
    /// Each connection is a run of the cycle (``stream()``), with `Accept: text/event-stream`
    /// (unless the request sets an `Accept`), `Cache-Control: no-cache`, and, once the stream has
    /// set an event ID, `Last-Event-ID`. As the standard's `EventSource`:
    ///
    /// - A connection that ends, or fails on the network (a reset, a timeout, a refused
    ///   connection), is made again after the server's `retry:` time (``EventStreamReconnection``).
    /// - A `204 No Content` ends the sequence: the server asks for no more.
    /// - Any other status than 2xx throws (the session's retry policy has had its say first, as for
    ///   any GET), and so does a response whose `Content-Type` isn't `text/event-stream`
    ///   (``EventStreamError/Code/notAnEventStream``).
    ///
    /// Leaving the loop or cancelling the task cancels the request. The decoder's limits (line length,
    /// event size) bound what the server can make the client hold.
    ///
    /// - Parameters:
    ///   - reconnection: When and how often to reconnect.
    ///   - decoder: The decoder's limits.
    /// - Returns: The events, an `AsyncSequence` to iterate once.
    public func events(
        reconnection: EventStreamReconnection = EventStreamReconnection(), decoder: EventStreamDecoder = EventStreamDecoder()
    ) -> EventStream {
        EventStream(cycle: self, reconnection: reconnection, decoder: decoder)
    }

    /// The server-sent events of a cycle's response, reconnecting (``events(reconnection:decoder:)``).
    public struct EventStream: AsyncSequence, Sendable {
        /// Opens a connection: a response head and its body.
        package typealias Opening = @Sendable () async throws -> (response: HTTPResponse, bytes: ByteStream)

        /// `nil` for a stream whose first connection (``Opening``) is all it has.
        let cycle: HTTPCycle?
        let reconnection: EventStreamReconnection
        let decoder: EventStreamDecoder
        let opening: Opening?

        /// The events of `cycle`'s response; the first connection made by `opening` when given (a
        /// layer above the engine that starts the cycle its own way), the cycle's ``stream()``
        /// otherwise and for every reconnection.
        package init(cycle: HTTPCycle?, reconnection: EventStreamReconnection, decoder: EventStreamDecoder, opening: Opening? = nil) {
            self.cycle = cycle
            self.reconnection = reconnection
            self.decoder = decoder
            self.opening = opening
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(cycle: cycle, reconnection: reconnection, decoder: decoder, opening: opening)
        }

        /// Sets the event-stream header fields on `request`: `Accept` (unless it has one),
        /// `Cache-Control: no-cache`, and `Last-Event-ID` when `lastEventID` isn't empty.
        package static func prepare(_ request: inout HTTPRequest, lastEventID: String) {
            if request.value(forHTTPHeaderField: "Accept") == nil {
                request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            }
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            request.setValue(lastEventID.isEmpty ? nil : lastEventID, forHTTPHeaderField: "Last-Event-ID")
        }

        /// Gives the events of an ``EventStream``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private let cycle: HTTPCycle?
            private let reconnection: EventStreamReconnection
            private var decoder: EventStreamDecoder
            private var opening: Opening?
            private var bytes: ByteStream.AsyncIterator?
            private var ready: [ServerSentEvent] = []
            private var readyIndex = 0
            /// Reconnections in a row that brought no event.
            private var attempts = 0
            private var ended = false

            init(cycle: HTTPCycle?, reconnection: EventStreamReconnection, decoder: EventStreamDecoder, opening: Opening?) {
                self.cycle = cycle
                self.reconnection = reconnection
                self.decoder = decoder
                self.opening = opening
            }

            /// The next event.
            ///
            /// - Returns: The next event, or `nil` once the server answered `204` (or the
            ///   connection ended with reconnection off).
            /// - Throws: The error of a response that isn't an event stream, an ``EventStreamError``,
            ///   ``EventStreamError/Code/reconnectionFailed`` once the reconnections are spent, or
            ///   `CancellationError`.
            public mutating func next() async throws -> ServerSentEvent? {
                while true {
                    if readyIndex < ready.count {
                        defer { readyIndex += 1 }
                        return ready[readyIndex]
                    }
                    ready.removeAll(keepingCapacity: true)
                    readyIndex = 0
                    if ended { return nil }
                    do {
                        if bytes == nil {
                            try await connect()
                            continue
                        }
                        guard let chunk = try await bytes?.next() else {
                            try await reconnect(after: nil)
                            continue
                        }
                        var events: [ServerSentEvent] = []
                        try decoder.feed(chunk) { events.append($0) }
                        if !events.isEmpty {
                            attempts = 0
                            ready = events
                        }
                    } catch where Self.isReconnectable(error) {
                        try await reconnect(after: error)
                    } catch {
                        end()
                        throw error
                    }
                }
            }

            private mutating func connect() async throws {
                decoder.reset()
                let response: HTTPResponse
                let stream: ByteStream
                if let opening {
                    self.opening = nil
                    (response, stream) = try await opening()
                } else {
                    guard let cycle else {
                        end()
                        return
                    }
                    var request = cycle.request
                    EventStream.prepare(&request, lastEventID: decoder.lastEventID)
                    cycle.request = request
                    (response, stream) = try await cycle.stream()
                }
                if response.statusCode == 204 {
                    end()
                    return
                }
                let type = response.value(forHTTPHeaderField: "Content-Type").flatMap { MediaType(contentTypeHeader: $0) }
                guard type?.essence == "text/event-stream" else {
                    throw EventStreamError(
                        .notAnEventStream, reason: "The response is not an event stream (Content-Type \(type?.essence ?? "none")).",
                        response: response)
                }
                bytes = stream.makeAsyncIterator()
            }

            /// The connection ended (`error` `nil`) or failed: waits, then lets the next round connect.
            private mutating func reconnect(after error: (any Error)?) async throws {
                // Dropping the iterator cancels a run still going.
                bytes = nil
                decoder.finish()
                attempts += 1
                guard attempts <= reconnection.maximumAttempts else {
                    end()
                    if reconnection.maximumAttempts == 0 {
                        // No reconnection asked for: the stream ends as its connection did.
                        if let error { throw error }
                        return
                    }
                    throw EventStreamError(
                        .reconnectionFailed,
                        reason: "The event stream ended and \(reconnection.maximumAttempts) reconnections in a row brought no event.",
                        response: cycle?.response, underlyingError: error)
                }
                let wait = reconnection.wait(attempt: attempts, serverRetry: decoder.reconnectionTime)
                if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) }
            }

            private mutating func end() {
                ended = true
                bytes = nil
            }

            /// Whether `error` ends the connection but not the stream: the network failed.
            static func isReconnectable(_ error: any Error) -> Bool {
                let urlError: URLError? = switch error {
                case let error as URLError: error
                case HTTPError.transport(let error): error
                default: nil
                }
                guard let urlError else { return false }
                switch urlError.code {
                case .networkConnectionLost, .timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
                     .notConnectedToInternet:
                    return true
                default:
                    return false
                }
            }
        }
    }
}
