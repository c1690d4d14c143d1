import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What every transport of the package needs and the engine provides beside the seam: what it reads
// of the configuration (the idle timeout of a request, the header fields it adds, the connection
// limit), the session's cookies as it reads and stores them, and a transfer that fails without the
// network.

/// What every transport reads of its session's configuration, once: the idle timeout, the header
/// fields it adds to a request (the additional headers, the cookies), the cookie jar and the
/// connection limit.
struct TransportSettings: Sendable {
    let requestTimeout: TimeInterval
    let connectTimeout: TimeInterval
    /// The fields a request goes out with beside its own.
    let headers: HeaderCompletion
    let cookies: TransportCookieJar?
    /// The most connections to one host: the transport's own limit if it has one, else the
    /// configuration's, else 6.
    let maximumConnectionsPerHost: Int

    /// - Parameters:
    ///   - configuration: The session's configuration.
    ///   - limit: The transport's own limit of connections per host, if it has one.
    ///   - acceptEncoding: The codings the transport decodes, as an `Accept-Encoding` value; `nil`
    ///     for none.
    init(_ configuration: HTTPSession.Configuration, maximumConnectionsPerHost limit: Int?, acceptEncoding: String? = nil) {
        requestTimeout = configuration.timeoutIntervalForRequest
        connectTimeout = configuration.timeoutIntervalForConnect
        let cookies = TransportCookieJar(configuration)
        self.cookies = cookies
        headers = HeaderCompletion(configuration, cookies: cookies, acceptEncoding: acceptEncoding)
        let configured = configuration.httpMaximumConnectionsPerHost
        maximumConnectionsPerHost = max(1, limit ?? (configured > 0 ? configured : 6))
    }

    /// The longest wait for progress on `request`: its own timeout, or the configuration's when the
    /// request has URLRequest's default (60 s).
    func timeout(for request: HTTPRequest) -> TimeInterval {
        let own = request.timeoutInterval
        if own == 60, requestTimeout > 0 { return requestTimeout }
        return own > 0 ? own : 60
    }

    /// The longest wait for a connection, for a request whose idle timeout is `idle`
    /// (``timeout(for:)``): the configuration's connect timeout, never longer.
    func connectTimeout(within idle: TimeInterval) -> TimeInterval {
        connectTimeout > 0 ? min(connectTimeout, idle) : idle
    }
}

/// A transfer that fails as soon as it is resumed, without touching the network.
final class FailedTransfer: HTTPTransfer {
    private let error: any Error
    private let events: HTTPTransferEvents
    private let reported = Locked(false)

    init(error: any Error, events: HTTPTransferEvents) {
        self.error = error
        self.events = events
    }

    func resume() { report(error) }
    func cancel() { report(URLError(.cancelled)) }

    private func report(_ error: any Error) {
        guard reported.withLock({ done in defer { done = true }; return !done }) else { return }
        let events = events
        Self.queue.async { events.didComplete(error: error) }
    }

    private static let queue = DispatchQueue(label: "Jewzruxin.FailedTransfer")
}
