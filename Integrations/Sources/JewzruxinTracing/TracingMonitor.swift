import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import JewzruxinOpenTelemetryNames
import Tracing
import Synchronization

/// Traces a session's requests through swift-distributed-tracing: a span per request and a span
/// per attempt, with OpenTelemetry's HTTP attributes, and the attempt's context injected into the
/// request's headers.
///
/// ```swift
/// InstrumentationSystem.bootstrap(myTracer)    // swift-otel, …: once per process
/// let session = HTTPSession()
/// TracingMonitor().install(on: session)
/// try await withSpan("checkout") { _ in
///     try await HTTPCycle.get(url, session: session) // "GET" spans, children of "checkout"
/// }
/// ```
///
/// It is an event monitor and an interceptor, and needs to be both:
/// ``install(on:)`` adds it to the session's `eventMonitors` and `interceptors` (a cycle whose own
/// `interceptors` list replaces the session's needs it there too, or its requests aren't injected).
///
/// - The **request span**, named after the method (`GET`), of kind `internal`, lasts the whole run:
///   retries and their waits, redirects, authentication answers. Its parent is the caller's
///   `ServiceContext.current` when the cycle starts (none: a root span).
/// - An **attempt span**, child of the request span, named after the method, of kind `client`,
///   covers each attempt: the first and each retry. Its context is injected into the attempt's
///   request with the tracer's `inject` (a W3C tracer writes `traceparent`), so the server's spans
///   join the trace. Interceptors after this one in the list, and the retries, see the caller's
///   context as the engine carries it.
/// - Attributes: `http.request.method` (`_OTHER` for one HTTP doesn't define, with
///   `http.request.method_original`), `url.full` (without user name and password),
///   `server.address`, `server.port`, `url.scheme`; `http.response.status_code` when an answer came;
///   `http.request.resend_count` on the attempt spans of retries; `error.type` and an error status
///   on failure (a status ≥ 400, as the session judges it, or an error).
public final class TracingMonitor: HTTPEventMonitor, HTTPInterceptor {
    private let tracer: any Tracer
    private let runs = Mutex<[ObjectIdentifier: Run]>([:])

    /// The spans of a run in progress.
    private struct Run {
        let request: any Span
        var attempt: (any Span)?
        /// The attempts begun so far.
        var attempts = 0
    }

    /// Creates a monitor.
    ///
    /// - Parameter tracer: Where spans go; the one `InstrumentationSystem` was bootstrapped with by
    ///   default.
    public init(tracer: any Tracer = InstrumentationSystem.tracer) {
        self.tracer = tracer
    }

    /// Adds the monitor to `session`'s event monitors and, last, to its interceptors: what it
    /// needs to trace every request of the session.
    ///
    /// - Parameter session: The session to trace.
    public func install(on session: HTTPSession) {
        session.eventMonitors.append(self)
        session.interceptors.append(self)
    }

    // MARK: HTTPEventMonitor

    public func cycleDidBegin(_ cycle: HTTPCycle) {
        let request = cycle.request
        let context = ServiceContext.current ?? .topLevel
        let span = tracer.startSpan(request.method.rawValue, context: context, ofKind: .internal)
        Self.describe(span, method: request.method, url: request.url)
        let replaced = runs.withLock { $0.updateValue(Run(request: span), forKey: ObjectIdentifier(cycle)) }
        if let replaced { Self.end(replaced, error: HTTPError.cancelled) }
    }

    public func cycle(_ cycle: HTTPCycle, didReceive response: HTTPResponse) {
        guard let status = response.statusCode else { return }
        runs.withLock { runs in
            runs[ObjectIdentifier(cycle)]?.attempt?.attributes["http.response.status_code"] = status
        }
    }

    public func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval) {
        let attempt = runs.withLock { runs -> (any Span)? in
            defer { runs[ObjectIdentifier(cycle)]?.attempt = nil }
            return runs[ObjectIdentifier(cycle)]?.attempt
        }
        if let attempt { Self.end(attempt, error: error) }
    }

    public func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {
        guard let run = runs.withLock({ $0.removeValue(forKey: ObjectIdentifier(cycle)) }) else { return }
        let response: HTTPResponse = if case HTTPError.statusCodeSeemsToHaveErred(let failed)? = error { failed } else { cycle.response }
        if let status = response.statusCode {
            run.request.attributes["http.response.status_code"] = status
            run.attempt?.attributes["http.response.status_code"] = status
        }
        Self.end(run, error: error)
    }

    // MARK: HTTPInterceptor

    /// Begins the attempt's span and injects its context into `request`.
    ///
    /// - Parameters:
    ///   - request: The attempt's request.
    ///   - cycle: The cycle sending it.
    /// - Returns: `request` with the tracer's headers.
    public func adapt(_ request: HTTPRequest, for cycle: HTTPCycle) async throws -> HTTPRequest {
        var request = request
        let begun = runs.withLock { runs -> (parent: ServiceContext, resends: Int, previous: (any Span)?)? in
            guard var run = runs[ObjectIdentifier(cycle)] else { return nil }
            defer {
                run.attempts += 1
                run.attempt = nil
                runs[ObjectIdentifier(cycle)] = run
            }
            return (run.request.context, run.attempts, run.attempt)
        }
        guard let begun else {
            // Not installed as a monitor too, or the run already ended: no span to be a child of.
            if let context = ServiceContext.current { tracer.inject(context, into: &request, using: HeaderInjector()) }
            return request
        }
        if let previous = begun.previous { previous.end() }
        let span = tracer.startSpan(request.method.rawValue, context: begun.parent, ofKind: .client)
        Self.describe(span, method: request.method, url: request.url)
        if begun.resends > 0 { span.attributes["http.request.resend_count"] = begun.resends }
        tracer.inject(span.context, into: &request, using: HeaderInjector())
        let kept = runs.withLock { runs -> Bool in
            guard runs[ObjectIdentifier(cycle)] != nil else { return false }
            runs[ObjectIdentifier(cycle)]?.attempt = span
            return true
        }
        // The run ended (a cancel, its deadline) while the span began: it ends with it.
        if !kept { Self.end(span, error: HTTPError.cancelled) }
        return request
    }

    // MARK: Spans

    /// The methods HTTP defines (RFC 9110, RFC 5789), named as they are; others are `_OTHER`.
    static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]

    /// Sets the attributes of a request to `url`.
    private static func describe(_ span: any Span, method: HTTPMethod, url: URL?) {
        span.attributes["http.request.method"] = knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
        if !knownMethods.contains(method.rawValue) { span.attributes["http.request.method_original"] = method.rawValue }
        guard let url else { return }
        let scheme = url.scheme?.lowercased() ?? "http"
        span.attributes["url.full"] = withoutCredentials(url)
        span.attributes["url.scheme"] = scheme
        if let host = url.host { span.attributes["server.address"] = host }
        span.attributes["server.port"] = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `url` without its user name and password, as OpenTelemetry asks for `url.full`.
    static func withoutCredentials(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    private static func end(_ run: Run, error: (any Error)?) {
        if let attempt = run.attempt { end(attempt, error: error) }
        end(run.request, error: error)
    }

    /// Ends `span`, marked as failed when `error` is one (a cancel is recorded, not a failure).
    private static func end(_ span: any Span, error: (any Error)?) {
        if let error {
            span.attributes["error.type"] = errorType(error)
            switch error {
            case HTTPError.cancelled, is CancellationError: break
            default:
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
        }
        span.end()
    }

    /// An error's kind, as OpenTelemetry's `error.type` wants it (shared with the other bridge).
    static func errorType(_ error: any Error) -> String { OpenTelemetryNames.errorType(error) }
}

/// Writes a tracer's values into a request's header fields.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout HTTPRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
