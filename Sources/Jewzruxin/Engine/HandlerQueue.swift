import Foundation

/// Where a cycle's handlers run: its completion handler, its progress and download handlers, and
/// the fluent layer's response handlers.
///
/// ```swift
/// session.handlerQueue = .queue(myDispatchQueue)   // every cycle of the session
/// cycle.handlerQueue = .inline                     // this cycle only
/// service.GET("/stores").responseJSON(.main) { json in }   // this handler only
/// ```
///
/// - ``delegateQueue``: the session's delegate queue, the main queue unless the session was made
///   with another. The default.
/// - `queue(_:)`: any queue, a `DispatchQueue` or an `OperationQueue`.
///   Naming the session's delegate queue this way is the same as ``delegateQueue``.
/// - ``main``: the main queue, whichever kind names it.
/// - ``inline``: no queue at all. The handler runs on the thread where the event happens: a
///   transport's thread, the worker queue after processors, or the caller's when a start is
///   rejected. It costs no thread hop, and is the fastest choice; **keep such a handler short and
///   never block in it**, since it holds up the transport's thread, and other requests with it.
///
/// Inline is fastest for a request at a time (on the native transport over http, about 1.5× the
/// requests per second of the delegate queue, measured sequentially). With many requests in flight
/// it can be slower: the curl transport runs a session's transfers on a thread per loop (one per
/// processor, at most four), and inline handlers then share those threads with the transfers, where
/// a queue spreads the handlers over another core. Measure with the benchmarks' delivery rows before
/// choosing it for a busy session.
///
/// A handler call that comes while the queue's earlier calls wait for their turn joins them in one
/// operation or block on a *serial* `OperationQueue` and on the main queue (see the session's
/// ``HTTPSession/delegateQueue``): with many requests in flight, that saves an operation and a
/// thread wake-up per call. A concurrent `OperationQueue` gets an operation per call, and a
/// `DispatchQueue` a block per call.
///
/// The calls of one cycle to one serial queue run in the order they were made: progress calls
/// before the completion handler. On a concurrent queue they may overlap; inline, they run in
/// order, one after the other, on the threads that make them.
public struct HandlerQueue: Sendable {
    /// Where the calls go; `nil` for the session's delegate queue.
    package let line: HandlerLine?

    /// The session's delegate queue (the default).
    public static let delegateQueue = HandlerQueue(line: nil)

    /// The main queue.
    public static let main = HandlerQueue(line: .main)

    /// The thread where each event happens, without a hop: keep the handler short and never block
    /// in it.
    public static let inline = HandlerQueue(line: .inline)

    /// This dispatch queue (the main queue for `DispatchQueue.main`).
    public static func queue(_ queue: DispatchQueue) -> HandlerQueue {
        HandlerLine.isMain(queue) ? .main : HandlerQueue(line: HandlerLine(queue: queue))
    }

    /// This operation queue (the main queue for `OperationQueue.main`).
    public static func queue(_ queue: OperationQueue) -> HandlerQueue {
        queue === OperationQueue.main ? .main : HandlerQueue(line: HandlerLine(queue: queue))
    }

    /// Whether the handlers run without a hop, where each event happens.
    public var isInline: Bool { line?.isInline ?? false }
}

extension HTTPSession {
    /// How calls reach `queue` for this session: the session's own line for its delegate queue,
    /// whichever way it is named, so that they keep their order with the engine's calls there.
    package func handlerLine(for queue: HandlerQueue) -> HandlerLine {
        guard let line = queue.line, !line.runs(on: handlerLine) else { return handlerLine }
        return line
    }
}
