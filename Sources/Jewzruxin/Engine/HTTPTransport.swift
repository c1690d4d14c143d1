import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a session's requests go on the wire: the point where the engine hands a request to the
/// network.
///
/// A session uses `HTTPSession.defaultTransport` (libcurl on Linux, URLSession elsewhere) unless it is
/// given another transport (Swallow's
/// `SessionDataTaskDataSource`). Everything above it — processors, content handlers, retries,
/// authentication, 307/308 redirects, the fluent layer — runs the same on any transport.
/// `MockSession`, in the `JewzruxinTesting` library, is one, for tests that need no server.
///
/// A transport reports what happens to each transfer through the ``HTTPTransferEvents`` it is given,
/// in this order: at most one ``HTTPTransferEvents/didReceive(_:)-(HTTPURLResponse)`` per response
/// (a new one starts the body over), body chunks, then exactly one
/// ``HTTPTransferEvents/didComplete(error:)``, also after a cancel.
public protocol HTTPTransport: Sendable {
    /// Adds to `request` the header fields this transport sends beside the request's own, so that
    /// the request's fields are those that go on the wire.
    ///
    /// The engine calls it before each ``makeTransfer(for:upload:events:)``, outside any lock, and
    /// gives the completed request to that call and to the event monitors
    /// (``HTTPEventMonitor/cycle(_:willSend:)``): the transfer then sends the request's fields as they
    /// are and adds none but those its connection owns (see ``HTTPEventMonitor``). A field the
    /// request has always wins over a default of the same name. The default implementation adds
    /// nothing; a transport that hands its requests to another forwards the call.
    ///
    /// - Parameters:
    ///   - request: The request to send, after processors and interceptors.
    ///   - upload: The body to stream instead of ``HTTPRequest/data``, whose length decides the
    ///     framing fields.
    func completeHeaderFields(of request: inout HTTPRequest, upload: HTTPCycle.UploadSource?)

    /// Creates the transfer of `request`, not started yet.
    ///
    /// - Parameters:
    ///   - request: The request as it goes on the wire, its header fields completed by
    ///     ``completeHeaderFields(of:upload:)``, its body in ``HTTPRequest/data`` unless `upload`
    ///     gives one.
    ///   - upload: The body to stream instead, for an upload.
    ///   - events: Where to report what happens.
    /// - Returns: The transfer, which starts when the engine resumes it.
    func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer

    /// The URL schemes this transport serves, lowercased; `nil` (the default) for every scheme.
    ///
    /// A session sends the requests of other schemes to a transport that serves them: URLSession's.
    var schemes: Set<String>? { get }

    /// The transport a session made with `configuration` uses: `self` (the default), or one made
    /// for that configuration when this transport was made to take its session's, as
    /// `HTTPSession(configuration: configuration, transport: .native)` does.
    ///
    /// - Parameter configuration: The session's configuration.
    /// - Returns: The transport to use.
    func configured(for configuration: HTTPSession.Configuration) -> any HTTPTransport

    /// Whether a transfer reads its body no faster than the content handler takes it, so that a
    /// handler that blocks in ``ContentHandler/append(_:)`` holds back its own transfer (its
    /// connection, or its stream), and neither memory nor the session's other transfers; `false`
    /// (the default) when blocking there would hold up other transfers or let bytes pile up.
    ///
    /// ``HTTPCycle/ByteStream`` blocks the transfer while its buffer is full when this is `true`,
    /// and otherwise buffers what arrives.
    var pacesBodyToHandler: Bool { get }
}

extension HTTPTransport {
    /// Adds nothing: the request's fields are those the event monitors see, whatever the transport
    /// adds as it sends them.
    public func completeHeaderFields(of request: inout HTTPRequest, upload: HTTPCycle.UploadSource?) {}

    /// Every scheme.
    public var schemes: Set<String>? { nil }

    /// This transport, unchanged.
    public func configured(for configuration: HTTPSession.Configuration) -> any HTTPTransport { self }

    /// No: a handler must not block.
    public var pacesBodyToHandler: Bool { false }
}

/// One request on its way through a transport.
public protocol HTTPTransfer: Sendable {
    /// Starts the transfer; called once, never while the engine holds a lock.
    func resume()
    /// Stops the transfer, at any time, any number of times, from any thread, even before
    /// ``resume()`` (which must then send nothing); it still reports its completion (with a
    /// cancellation error, `URLError(.cancelled)`, unless it had completed already).
    func cancel()
}

/// What a transport tells the engine about one transfer.
///
/// Calls must come one at a time, in order. Calls after ``didComplete(error:)``, or about a
/// transfer the engine has moved on from (cancelled, restarted), are ignored.
public struct HTTPTransferEvents: Sendable {
    let cycle: HTTPCycle
    let attempt: Int
    let registry: TransferRegistry
    let id: Int

    /// The status line and headers of a response arrived.
    public func didReceive(_ response: HTTPURLResponse) {
        do {
            try cycle.transportDidReceive(response, attempt: attempt)
        } catch {
            cycle.transportDidFail(error, attempt: attempt)
        }
    }

    /// The status line and headers of a response arrived, parsed by the transport: the fast path,
    /// since no `HTTPURLResponse` is made unless something reads ``HTTPResponse/core``.
    public func didReceive(_ head: HTTPResponseHead) {
        do {
            try cycle.transportDidReceive(HTTPResponse(head: head), attempt: attempt)
        } catch {
            cycle.transportDidFail(error, attempt: attempt)
        }
    }

    /// The next bytes of the response body arrived.
    public func didReceive(_ data: Data) {
        do {
            try cycle.transportDidReceive(data, attempt: attempt)
        } catch {
            cycle.transportDidFail(error, attempt: attempt)
        }
    }

    /// Body bytes of the request went out.
    ///
    /// - Parameters:
    ///   - bytes: The bytes sent since the last call.
    ///   - totalBytes: The bytes sent so far.
    ///   - expectedBytes: The bytes to send in all, `-1` when unknown.
    public func didSend(bytes: Int64, totalBytes: Int64, expectedBytes: Int64) {
        cycle.transportDidSend(bytes: bytes, total: totalBytes, expected: expectedBytes, attempt: attempt)
    }

    /// How the transfer went on the wire, measured by the transport: call it before
    /// ``didComplete(error:)``; the response of the attempt keeps it (``HTTPResponse/metrics``).
    public func didCollect(_ metrics: HTTPTransferMetrics) {
        cycle.transportDidCollect(metrics, attempt: attempt)
    }

    /// The transfer will never start: forgets it, so that the session doesn't wait for its end.
    func abandon() {
        registry.remove(id)
    }

    /// The transfer ended: `error` is `nil` when the whole response arrived.
    public func didComplete(error: (any Error)?) {
        guard registry.claimCompletion(of: id) else { return }
        cycle.transportDidComplete(error: error, attempt: attempt)
        registry.remove(id)
    }
}
