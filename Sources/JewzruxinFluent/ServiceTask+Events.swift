import Foundation
import Jewzruxin

// Server-sent events, as handlers and as an async sequence, over the cycle's event stream.
extension ServiceTask {
    /// Sends the request as an event stream and runs `handler` with each event as it arrives,
    /// reconnecting with `Last-Event-ID` as `HTTPCycle.events(reconnection:decoder:)` does.
    ///
    /// ```swift
    /// service.GET("/v1/stream")
    ///     .responseEvents { event in print(event.type, event.data) }
    ///     .responseError { error in print("stream failed:", error) }
    /// ```
    ///
    /// The events run on `queue` (the task's handler queue by default), in order. The task's
    /// other handlers see the outcome of the whole stream, after its last event: success once the
    /// server ends it with `204 No Content` (or the connection ends with reconnection off); the
    /// error that stopped it otherwise, a status error of the first connection included. A
    /// `handler` that throws ends the stream with its error; ``cancel()`` ends it with
    /// `HTTPError.cancelled`.
    ///
    /// Call it once, as the task's first handler: it starts the request.
    /// - Parameters:
    ///   - queue: Where `handler` runs; `nil` for the task's handler queue.
    ///   - reconnection: When and how often to reconnect.
    ///   - handler: Gets each event.
    /// - Returns: This task, to chain handlers on.
    @discardableResult
    public func responseEvents(
        _ queue: HandlerQueue? = nil, reconnection: HTTPCycle.EventStreamReconnection = HTTPCycle.EventStreamReconnection(),
        _ handler: @escaping @Sendable (ServerSentEvent) throws -> Void
    ) -> Self {
        let line = line(queue)
        // A handler's error stops the stream and becomes the task's: the first one stands.
        let failure = Locked<(any Error)?>(nil)
        start(driving: { cycle in
            do {
                for try await event in cycle.events(reconnection: reconnection) {
                    if let error = failure.withLock({ $0 }) { return error }
                    line.enqueue {
                        guard failure.withLock({ $0 == nil }) else { return }
                        do {
                            try handler(event)
                        } catch {
                            failure.withLock { if $0 == nil { $0 = error } }
                        }
                    }
                }
            } catch {
                return error
            }
            // The last events may still be on their queue: the outcome's handlers follow them
            // there, and see a handler's error through the chain.
            return nil
        })
        // An error thrown by the last event's handler, after the stream ended.
        add(Handler(kind: .always, place: .handlers(line)) { _ in
            .run { if let error = failure.withLock({ $0 }) { throw error } }
        })
        return self
    }

    /// The server-sent events of the response, as they arrive, reconnecting with `Last-Event-ID`
    /// as `HTTPCycle.events(reconnection:decoder:)` does.
    ///
    /// ```swift
    /// for try await event in service.GET("/v1/stream").events() {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// The first connection is the task's request (its options, parameters and interceptors); the
    /// reconnections run its cycle again with `Last-Event-ID`. Use it in place of handlers, on a
    /// task that hasn't started.
    /// - Parameters:
    ///   - reconnection: When and how often to reconnect.
    ///   - decoder: The decoder's limits.
    /// - Returns: The events, to iterate once.
    public func events(
        reconnection: HTTPCycle.EventStreamReconnection = HTTPCycle.EventStreamReconnection(),
        decoder: EventStreamDecoder = EventStreamDecoder()
    ) -> HTTPCycle.EventStream {
        configureCycle { cycle in
            var request = cycle.request
            HTTPCycle.EventStream.prepare(&request, lastEventID: "")
            cycle.request = request
        }
        return HTTPCycle.EventStream(cycle: cycle, reconnection: reconnection, decoder: decoder) { try await self.stream() }
    }
}
