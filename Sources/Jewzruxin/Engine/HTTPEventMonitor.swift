import Foundation

/// Hears what happens to a session's cycles: for logging, metrics and debugging.
///
/// Add monitors to ``HTTPSession/eventMonitors``; ``HTTPLogger`` is a ready one. Every method has a
/// default that does nothing, so a monitor implements only what it needs:
///
/// ```swift
/// struct SlowRequests: HTTPEventMonitor {
///     func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) {
///         if metrics.total > 1 { print("slow:", cycle.request.url?.absoluteString ?? "") }
///     }
/// }
/// session.eventMonitors.append(SlowRequests())
/// ```
///
/// For each run of a cycle (a start or a restart) a monitor hears, in this order:
/// ``cycleDidBegin(_:)``; then for each request the run sends (the first, a retry, an answer to an
/// authentication challenge, a followed redirect) ``cycle(_:willSend:)``, and, when an answer
/// comes, ``cycle(_:didReceive:)`` and ``cycle(_:didCollect:)``; ``cycle(_:willRetryAfter:delay:)``
/// before a retry's wait; and, once, ``cycle(_:didFinishWith:)`` when the run ends, however it ends
/// (a cancel, even an explicit one, ends it with ``HTTPError/cancelled``; so does a restart for
/// the run it replaces).
///
/// The methods are called on the thread where each event happens (a transport's thread, the
/// worker queue, the caller's for a start or a cancel), never while the engine holds a lock, and
/// not on the handler queue. Keep them short, thread-safe and never blocking: hand anything slow
/// to a queue of your own. A cycle's own events come one after another, never at once.
public protocol HTTPEventMonitor: Sendable {
    /// A run of `cycle` begins (a start or a restart): ``HTTPCycle/request`` is what it was given,
    /// before request processors.
    func cycleDidBegin(_ cycle: HTTPCycle)
    /// `request` goes to the transport, as the transport sends it: after processors and
    /// interceptors (an answer to a challenge has its credentials), its header fields completed by
    /// the transport (``HTTPTransport/completeHeaderFields(of:upload:)``), real values and all.
    ///
    /// On the package's transports, `request.core.allHTTPHeaderFields` are then the fields that go
    /// out: the request's own, and, for each name it lacks, the session's additional headers,
    /// `Host`, `Authorization: Basic` from the URL's user and password, the stored cookies
    /// (`Cookie`, when the request handles cookies), `Accept-Encoding` for the codings the
    /// transport decodes (curl: those its libraries decode; URLSession: gzip and deflate; native:
    /// none, so no field), `User-Agent: Jewzruxin` and `Accept: */*`; on Linux, URLSession's also
    /// `Connection: keep-alive` and `Accept-Language`, which FoundationNetworking adds; and the body's
    /// framing, `Content-Length` or `Transfer-Encoding: chunked`. The request's own `Connection`,
    /// `Keep-Alive`, `Content-Length` and `Transfer-Encoding` are dropped (one naming `chunked`
    /// asks for a chunked body). Not among them, because they belong to the connection rather than
    /// the request: a proxy's fields (`Proxy-Authorization`, `Proxy-Connection`, and the `CONNECT`
    /// request of a tunnel), the rounds of an NTLM or Negotiate handshake that libcurl runs on its
    /// connection, and, over HTTP/2, the pseudo-fields that carry the method, the URL and `Host`
    /// (`Transfer-Encoding` is then not sent: HTTP/2 frames the body itself). On Apple platforms
    /// URLSession adds fields of its own too (its cookies, `Accept-Language`, `Connection`). A
    /// transport of your own shows what its ``HTTPTransport/completeHeaderFields(of:upload:)``
    /// adds.
    ///
    /// ``HTTPCycle/request`` stays as the cycle was given it.
    func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest)
    /// The head of an answer arrived: `response` has its status and headers, no body yet.
    func cycle(_ cycle: HTTPCycle, didReceive response: HTTPResponse)
    /// What the transport measured of an exchange (see ``HTTPTransferMetrics``); not every transport
    /// measures every exchange.
    func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics)
    /// The run will send its request again, after waiting `delay` seconds, because of `error`.
    func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval)
    /// The run ended: `error` is `nil` on success; ``HTTPCycle/response`` is its outcome.
    func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?)
}

extension HTTPEventMonitor {
    /// Does nothing.
    public func cycleDidBegin(_ cycle: HTTPCycle) {}
    /// Does nothing.
    public func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest) {}
    /// Does nothing.
    public func cycle(_ cycle: HTTPCycle, didReceive response: HTTPResponse) {}
    /// Does nothing.
    public func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) {}
    /// Does nothing.
    public func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval) {}
    /// Does nothing.
    public func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {}
}
