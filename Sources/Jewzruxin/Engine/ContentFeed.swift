import Foundation

/// Drives a cycle's ``ContentHandler`` through the responses of one attempt.
///
/// It keeps the protocol's promises whatever the transport and the cycle do: steps in order, each
/// at most once per response, never two at a time (a cancel's cleanup waits for a write in
/// progress), and a cleanup for every response that was prepared. When the handler refuses a
/// response, the feed keeps its body for the error instead.
final class ContentFeed: Sendable {
    /// The handler fed; `nil` for a cycle without one: the feed then keeps the body in memory
    /// itself, as ``HTTPResponse/data`` and its content.
    let handler: (any ContentHandler)?
    /// Whether the feed keeps the body itself: its content needs no trip to the worker queue.
    var isImplicit: Bool { handler == nil }
    /// Where the handler writes a download made with ``HTTPCycle/downloadFileHandler``.
    let download: URL?
    /// Whether ``download`` stays after a failure (a resumable download's partial file).
    let keepsDownload: Bool
    private let state = Locked(State())

    private enum Phase {
        /// No response yet.
        case waiting
        /// The handler took the response and is being fed.
        case receiving
        /// The handler refused the response; its body is kept for the error.
        case refused(ContentHandlerError)
        /// The handler failed; it has been cleaned up.
        case failed
        /// Cleaned up: nothing more reaches the handler.
        case done
    }

    private struct State {
        var phase = Phase.waiting
        var received: Int64 = 0
        var keptBody = Data()
    }

    /// What the body turned into.
    struct Parsed: Sendable {
        var content: (any Sendable)?
        var data: Data
        var error: (any Error)?
    }

    init(handler: (any ContentHandler)?, download: URL? = nil, keepsDownload: Bool = false) {
        self.handler = handler
        self.download = download
        self.keepsDownload = keepsDownload
    }

    /// A feed for a cycle without a handler of its own: keeps any body in memory.
    static func implicit() -> ContentFeed {
        ContentFeed(handler: nil)
    }

    /// A response arrived: the previous one, if any, is abandoned and the handler prepared afresh.
    ///
    /// - Throws: What the handler threw, unless it was a refusal; the transfer must then stop.
    func receive(_ response: HTTPResponse) throws {
        try state.withLock { s in
            switch s.phase {
            case .receiving, .refused: handler?.cleanup()
            case .waiting: break
            case .failed, .done: return
            }
            s.received = 0
            s.keptBody = Data()
            guard let handler else {
                if let capacity = HTTPResponse.bodyCapacityHint(expectedLength: response.expectedContentLength) { s.keptBody.reserveCapacity(capacity) }
                s.phase = .receiving
                return
            }
            do {
                try handler.prepare(for: response)
                s.phase = .receiving
            } catch let error as ContentHandlerError where error.isRefusal {
                s.phase = .refused(error)
            } catch {
                handler.cleanup()
                s.phase = .failed
                throw error
            }
        }
    }

    /// Feeds the next bytes to the handler, or keeps them for a refusal.
    ///
    /// - Returns: The bytes received so far for this response, `nil` once the feed has ended.
    /// - Throws: What the handler threw, or the refusal once the body kept passes its limit; the
    ///   transfer must then stop.
    func append(_ chunk: Data) throws -> Int64? {
        try state.withLock { s in
            switch s.phase {
            case .receiving:
                guard let handler else {
                    s.keptBody.append(chunk)
                    break
                }
                do {
                    try handler.append(chunk)
                } catch {
                    handler.cleanup()
                    s.phase = .failed
                    throw error
                }
            case .refused(var refusal):
                guard s.keptBody.count + chunk.count <= ContentHandlerError.maximumKeptBodySize else {
                    refusal.response?.data = s.keptBody
                    handler?.cleanup()
                    s.phase = .failed
                    throw refusal
                }
                s.keptBody.append(chunk)
            case .waiting, .failed, .done:
                return nil
            }
            s.received += Int64(chunk.count)
            return s.received
        }
    }

    /// The body as the cycle can show it before parsing: what was kept for a refusal or without a
    /// handler, or the bytes the handler keeps (``ContentHandler/receivedData``).
    var bodySoFar: Data {
        state.withLock { s in
            switch s.phase {
            case .refused: return s.keptBody
            case .receiving: return handler.map { $0.receivedData ?? Data() } ?? s.keptBody
            case .waiting, .failed, .done: return Data()
            }
        }
    }

    /// The refusal of the response, with the body kept, if the handler refused it.
    func refusal(for response: HTTPResponse) -> ContentHandlerError? {
        state.withLock { s in
            guard case .refused(var refusal) = s.phase else { return nil }
            var kept = response
            kept.data = s.keptBody
            refusal.response = kept
            return refusal
        }
    }

    /// The body is complete and the response a success: asks the handler for its content, then
    /// cleans it up.
    func parse() -> Parsed {
        state.withLock { s in
            guard case .receiving = s.phase else {
                return Parsed(content: nil, data: Data(), error: nil)
            }
            defer {
                handler?.cleanup()
                s.keptBody = Data()
                s.phase = .done
            }
            guard let handler else { return Parsed(content: s.keptBody, data: s.keptBody) }
            let data = handler.receivedData ?? Data()
            do {
                return Parsed(content: try handler.parseContent(), data: data)
            } catch let error as ContentHandlerError {
                return Parsed(content: error.intermediateContent, data: data, error: error)
            } catch {
                return Parsed(content: nil, data: data, error: error)
            }
        }
    }

    /// The run is ending: a handler blocked in ``ContentHandler/append(_:)`` waiting for its
    /// consumer (``BodyStream``) returns, without the feed's lock, so that the transfer can be
    /// cancelled and the feed abandoned.
    func interrupt() {
        (handler as? BodyStream)?.interrupt()
    }

    /// The response won't be used (a failure, a cancel, a retry): cleans the handler up.
    func abandon() {
        state.withLock { s in
            switch s.phase {
            case .receiving, .refused: handler?.cleanup()
            case .waiting, .failed, .done: break
            }
            s.keptBody = Data()
            s.phase = .done
        }
    }
}
