import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import JewzruxinOpenTelemetryNames
import Synchronization

/// An event monitor that records a session's requests through swift-metrics, named as
/// OpenTelemetry's semantic conventions for HTTP clients name them.
///
/// ```swift
/// MetricsSystem.bootstrap(myBackend)          // swift-otel, swift-prometheus, …: once per process
/// let session = HTTPSession()
/// session.eventMonitors.append(MetricsMonitor())
/// ```
///
/// | metric (``Label``) | swift-metrics type | dimensions |
/// |---|---|---|
/// | `http.client.request.duration` | `Timer` (seconds preferred) | method, status, host, port, scheme, `error.type` on failure |
/// | `http.client.active_requests` | `Meter`, up when a run begins, down when it ends | method, host, port, scheme |
/// | `http.client.request.body.size` | `Recorder` (a histogram), bytes | as the duration's |
/// | `http.client.response.body.size` | `Recorder` (a histogram), bytes | as the duration's |
///
/// Dimensions are `http.request.method` (`_OTHER` for a method HTTP doesn't define),
/// `http.response.status_code`, `server.address`, `server.port` (the scheme's when the URL has
/// none), `url.scheme`, and `error.type`: the status code for a status the session treats as a
/// failure, else the error's kind (`URLError.-1001`, `deadlineExceeded`, `cancelled`, a type name).
///
/// A *request* here is a run of a cycle, as its caller sees it: from the start to the end, its
/// retries, redirects and authentication answers included; its status is the last response's.
/// OpenTelemetry counts each resend as a request of its own: the spans of `JewzruxinTracing` do,
/// one per attempt. The body sizes are what the transport measured of the last exchange
/// (`HTTPTransferMetrics`), else the bytes of the request's `data` and of the body kept in memory;
/// a size nobody knows is not recorded.
public final class MetricsMonitor: HTTPEventMonitor {
    /// The metric names, as OpenTelemetry's HTTP client conventions name them.
    public enum Label {
        /// How long requests take, in seconds.
        public static let duration = "http.client.request.duration"
        /// How many requests are in flight.
        public static let activeRequests = "http.client.active_requests"
        /// The size of request bodies, in bytes.
        public static let requestBodySize = "http.client.request.body.size"
        /// The size of response bodies, in bytes.
        public static let responseBodySize = "http.client.response.body.size"
    }

    /// The dimension names, as OpenTelemetry's attributes.
    public enum Dimension {
        /// The request method: `GET`, `POST`…, `_OTHER` for one HTTP doesn't define.
        public static let method = "http.request.method"
        /// The status code of the last response.
        public static let statusCode = "http.response.status_code"
        /// The host of the URL.
        public static let serverAddress = "server.address"
        /// The port of the URL, or its scheme's.
        public static let serverPort = "server.port"
        /// `http` or `https`.
        public static let scheme = "url.scheme"
        /// What kind of error ended the request.
        public static let errorType = "error.type"
    }

    /// The methods HTTP defines (RFC 9110, RFC 5789), named as they are; others are `_OTHER`.
    static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]

    private let factory: any MetricsFactory
    private let runs = Mutex<[ObjectIdentifier: Run]>([:])

    private struct Run {
        let start: ContinuousClock.Instant
        let active: Meter
        var metrics: HTTPTransferMetrics?
    }

    /// Creates a monitor.
    ///
    /// - Parameter factory: Where the metrics go; the one `MetricsSystem` was bootstrapped with by
    ///   default.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    public func cycleDidBegin(_ cycle: HTTPCycle) {
        let request = cycle.request
        let active = Meter(label: Label.activeRequests, dimensions: Self.target(request.method, request.url), factory: factory)
        active.increment()
        let replaced = runs.withLock { $0.updateValue(Run(start: .now, active: active), forKey: ObjectIdentifier(cycle)) }
        // A run whose end the monitor didn't hear (it can't happen as the engine reports runs);
        // its request counted as ended, so the gauge comes back to zero.
        replaced?.active.decrement()
    }

    public func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) {
        runs.withLock { $0[ObjectIdentifier(cycle)]?.metrics = metrics }
    }

    public func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {
        guard let run = runs.withLock({ $0.removeValue(forKey: ObjectIdentifier(cycle)) }) else { return }
        let elapsed = ContinuousClock.now - run.start
        run.active.decrement()

        let request = cycle.request
        let response: HTTPResponse = if case HTTPError.statusCodeSeemsToHaveErred(let failed)? = error { failed } else { cycle.response }
        var dimensions = Self.target(request.method, request.url)
        if let status = response.statusCode { dimensions.insert((Dimension.statusCode, "\(status)"), at: 1) }
        if let error { dimensions.append((Dimension.errorType, Self.errorType(error))) }

        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        Timer(label: Label.duration, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(nanoseconds)
        let requestBytes = run.metrics?.requestBodyBytes ?? request.data.map { Int64($0.count) }
        if let requestBytes {
            Recorder(label: Label.requestBodySize, dimensions: dimensions, factory: factory).record(requestBytes)
        }
        let responseBytes = run.metrics?.responseBodyBytes ?? (response.statusCode == nil ? nil : Int64(response.data.count))
        if let responseBytes {
            Recorder(label: Label.responseBodySize, dimensions: dimensions, factory: factory).record(responseBytes)
        }
    }

    /// The dimensions that say where a request went: method, host, port, scheme.
    static func target(_ method: HTTPMethod, _ url: URL?) -> [(String, String)] {
        let scheme = url?.scheme?.lowercased() ?? "http"
        let port = url?.port ?? (scheme == "https" ? 443 : 80)
        return [
            (Dimension.method, knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"),
            (Dimension.serverAddress, url?.host ?? ""),
            (Dimension.serverPort, "\(port)"),
            (Dimension.scheme, scheme),
        ]
    }

    /// An error's kind, as OpenTelemetry's `error.type` wants it (shared with the other bridge).
    static func errorType(_ error: any Error) -> String { OpenTelemetryNames.errorType(error) }
}
