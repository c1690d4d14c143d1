import Foundation

/// Drives a cycle's ``ContentHandler`` through the responses of one attempt.
///
/// It keeps the protocol's promises whatever the transport and the cycle do: steps in order, each
/// at most once per response, never two at a time (a cancel's cleanup waits for a write in
/// progress), and a cleanup for every response that was prepared. When the handler refuses a
/// response, the feed keeps its body for the error instead.
///
/// The handler is user code: it is never called with the feed's lock held. A thread takes the
/// feed's *turn* to call it, and another that needs the handler meanwhile waits for the turn on a
/// semaphore of its own. A handler that cancels its own cycle from one of its steps reaches the
/// feed again on the thread that has the turn: that abandon is done when the step returns.
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
    /// The resumable download the feed writes, if any: it says where a response's progress starts.
    private let continuation: (any DownloadContinuation)?
    /// The handler when it hands the body to an async consumer (``HTTPCycle/stream()``): the one
    /// kind whose `append` may block, which the run paces, frees and asks about through the feed.
    private let stream: BodyStream?
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
        /// Cleaned up, or being cleaned up: nothing more reaches the handler.
        case done

        /// Whether the handler holds a prepared response, which a cleanup must end.
        var isPrepared: Bool {
            switch self {
            case .receiving, .refused: true
            case .waiting, .failed, .done: false
            }
        }
    }

    private struct State {
        var phase = Phase.waiting
        var received: Int64 = 0
        /// Where the progress of the current response starts (``DownloadContinuation/progressBase(for:)``).
        var progressBase: ProgressBase?
        var keptBody = Data()
        /// The thread calling the handler (holding the turn), if any.
        var caller: pthread_t?
        /// Threads waiting for the turn.
        var waiting: [DispatchSemaphore] = []
        /// The handler's own step abandoned the feed (it cancelled its cycle): the feed is abandoned
        /// when the step returns.
        var abandonsAfterStep = false

        var progress: Progress {
            Progress(completed: (progressBase?.offset ?? 0) + received, expected: progressBase?.total)
        }
    }

    /// What a thread does once it has looked at the state.
    private enum Turn<Result> {
        /// Decided under the lock.
        case decided(Result)
        /// Another thread calls the handler: wait for the turn, then look again.
        case wait(DispatchSemaphore)
    }

    /// How far the body of the current response has come.
    struct Progress: Sendable, Equatable {
        /// Its bytes so far; for a resumed download, after the bytes the file held before it.
        var completed: Int64
        /// The length of the whole, when the feed knows it better than the response's own
        /// `Content-Length` (a resumed download's file); `nil` otherwise.
        var expected: Int64?
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
        continuation = nil
        stream = handler as? BodyStream
    }

    /// A feed that writes the file of a resumable download, with the continuation's writer.
    init(continuing continuation: any DownloadContinuation) {
        handler = continuation.makeWriter()
        download = continuation.file
        keepsDownload = true
        self.continuation = continuation
        stream = nil
    }

    /// A feed for a cycle without a handler of its own: keeps any body in memory.
    static func implicit() -> ContentFeed {
        ContentFeed(handler: nil)
    }

    /// A response arrived: the previous one, if any, is abandoned and the handler prepared afresh.
    ///
    /// - Throws: What the handler threw, unless it was a refusal; the transfer must then stop.
    func receive(_ response: HTTPResponse) throws {
        // Whether the previous response is cleaned up first; `nil` when nothing reaches the handler.
        let plan = decide(reentrant: { _ in nil }) { s -> Bool? in
            let cleansPrevious = s.phase.isPrepared
            switch s.phase {
            case .failed, .done: return nil
            case .waiting, .receiving, .refused: break
            }
            s.received = 0
            s.progressBase = continuation?.progressBase(for: response)
            s.keptBody = Data()
            guard handler != nil else {
                if let capacity = HTTPResponse.bodyCapacityHint(expectedLength: response.expectedContentLength) { s.keptBody.reserveCapacity(capacity) }
                s.phase = .receiving
                return nil
            }
            s.caller = pthread_self()
            return cleansPrevious
        }
        guard let cleansPrevious = plan, let handler else { return }
        if cleansPrevious { handler.cleanup() }
        var phase = Phase.receiving
        var failure: (any Error)?
        do {
            try handler.prepare(for: response)
        } catch let error as ContentHandlerError where error.isRefusal {
            phase = .refused(error)
        } catch {
            handler.cleanup()
            phase = .failed
            failure = error
        }
        endStep { $0.phase = phase }
        if let failure { throw failure }
    }

    /// Feeds the next bytes to the handler, or keeps them for a refusal.
    ///
    /// - Returns: How far the response has come, `nil` once the feed has ended.
    /// - Throws: What the handler threw, or the refusal once the body kept passes its limit; the
    ///   transfer must then stop.
    func append(_ chunk: Data) throws -> Progress? {
        enum Plan {
            case ended
            case kept(Progress)
            case refusalOverflowed(ContentHandlerError)
            case feed
        }
        let plan = decide(reentrant: { _ in Plan.ended }) { s -> Plan in
            switch s.phase {
            case .receiving:
                guard handler != nil else {
                    s.keptBody.append(chunk)
                    s.received += Int64(chunk.count)
                    return .kept(s.progress)
                }
                s.caller = pthread_self()
                return .feed
            case .refused(var refusal):
                guard s.keptBody.count + chunk.count <= ContentHandlerError.maximumKeptBodySize else {
                    refusal.response?.data = s.keptBody
                    s.keptBody = Data()
                    s.phase = .failed
                    return .refusalOverflowed(refusal)
                }
                s.keptBody.append(chunk)
                s.received += Int64(chunk.count)
                return .kept(s.progress)
            case .waiting, .failed, .done:
                return .ended
            }
        }
        switch plan {
        case .ended:
            return nil
        case .kept(let received):
            return received
        case .refusalOverflowed(let refusal):
            handler?.cleanup()
            throw refusal
        case .feed:
            guard let handler else { return nil }
            do {
                try handler.append(chunk)
            } catch {
                handler.cleanup()
                endStep { $0.phase = .failed }
                throw error
            }
            var progress: Progress?
            endStep { s in
                s.received += Int64(chunk.count)
                progress = s.progress
            }
            return progress
        }
    }

    /// The body as the cycle can show it before parsing: what was kept for a refusal or without a
    /// handler, or the bytes the handler keeps (``ContentHandler/receivedData``).
    var bodySoFar: Data {
        // `nil`: ask the handler.
        let plan = decide(reentrant: { _ in Data() }) { s -> Data? in
            switch s.phase {
            case .refused: return s.keptBody
            case .receiving:
                guard handler != nil else { return s.keptBody }
                s.caller = pthread_self()
                return nil
            case .waiting, .failed, .done: return Data()
            }
        }
        if let plan { return plan }
        let data = handler?.receivedData ?? Data()
        endStep { _ in }
        return data
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
        let empty = Parsed(content: nil, data: Data(), error: nil)
        // `nil`: ask the handler.
        let plan = decide(reentrant: { _ in empty }) { s -> Parsed? in
            guard case .receiving = s.phase else { return empty }
            guard handler != nil else {
                defer {
                    s.keptBody = Data()
                    s.phase = .done
                }
                return Parsed(content: s.keptBody, data: s.keptBody)
            }
            s.caller = pthread_self()
            return nil
        }
        guard plan == nil, let handler else { return plan ?? empty }
        let data = handler.receivedData ?? Data()
        let parsed: Parsed
        do {
            parsed = Parsed(content: try handler.parseContent(), data: data)
        } catch let error as ContentHandlerError {
            parsed = Parsed(content: error.intermediateContent, data: data, error: error)
        } catch {
            parsed = Parsed(content: nil, data: data, error: error)
        }
        handler.cleanup()
        endStep { $0.phase = .done }
        return parsed
    }

    /// The run is ending: a handler blocked in ``ContentHandler/append(_:)`` waiting for its
    /// consumer (``BodyStream``) returns, so that the transfer can be cancelled and the feed
    /// abandoned (which waits for that step to end).
    func interrupt() {
        stream?.interrupt()
    }

    /// Tells a handler that may block in `append` whether the transfer's transport then holds the
    /// transfer back (``HTTPTransport/pacesBodyToHandler``), before the transfer starts.
    func setPacesTransfer(_ paces: Bool) {
        stream?.setPacesTransfer(paces)
    }

    /// Whether part of a body has gone on to a consumer: the run can't start it over.
    var hasPublishedBody: Bool {
        stream?.hasPublished ?? false
    }

    /// The response won't be used (a failure, a cancel, a retry): cleans the handler up, once the
    /// step it may be in has returned.
    func abandon() {
        let cleans = decide(reentrant: { s in
            // The handler's own step got here (it cancelled its cycle): done when the step returns.
            s.abandonsAfterStep = true
            return false
        }) { s -> Bool in
            let cleans = s.phase.isPrepared
            s.keptBody = Data()
            s.phase = .done
            return cleans
        }
        if cleans { handler?.cleanup() }
    }

    // MARK: The turn

    /// Runs `decision` under the lock once no other thread calls the handler. A decision to call
    /// the handler sets ``State/caller`` to this thread, which then calls it without the lock and
    /// ends with ``endStep(_:)``. When this thread is the caller already (the handler called into its
    /// cycle), `reentrant` decides instead.
    private func decide<Result>(reentrant: (inout State) -> Result, _ decision: (inout State) -> Result) -> Result {
        let me = pthread_self()
        while true {
            let turn = state.withLock { s -> Turn<Result> in
                guard let caller = s.caller else { return .decided(decision(&s)) }
                if pthread_equal(caller, me) != 0 { return .decided(reentrant(&s)) }
                let semaphore = DispatchSemaphore(value: 0)
                s.waiting.append(semaphore)
                return .wait(semaphore)
            }
            switch turn {
            case .decided(let result): return result
            case .wait(let semaphore): semaphore.wait()
            }
        }
    }

    /// Ends this thread's step: `apply` under the lock, then the turn goes to the threads waiting.
    /// A step that abandoned the feed (``abandon()`` from within the handler) ends in its cleanup.
    private func endStep(_ apply: (inout State) -> Void) {
        let (waiting, cleans) = state.withLock { s -> ([DispatchSemaphore], Bool) in
            apply(&s)
            if s.abandonsAfterStep {
                s.abandonsAfterStep = false
                let cleans = s.phase.isPrepared
                s.keptBody = Data()
                s.phase = .done
                // The cleanup is part of the step: the others wait for it.
                if cleans { return ([], true) }
            }
            s.caller = nil
            defer { s.waiting = [] }
            return (s.waiting, false)
        }
        for semaphore in waiting { semaphore.signal() }
        guard cleans else { return }
        handler?.cleanup()
        endStep { _ in }
    }
}
