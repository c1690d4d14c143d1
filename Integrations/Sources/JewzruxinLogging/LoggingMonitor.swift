import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import Logging
import Synchronization

/// An event monitor that logs a session's requests through a swift-log `Logger`.
///
/// ```swift
/// var logger = Logger(label: "http")
/// logger.logLevel = .debug
/// let session = HTTPSession()
/// session.eventMonitors.append(LoggingMonitor(logger: logger))
/// try await HTTPCycle.get("http://127.0.0.1:8080/hello/", session: session)
/// // 2026-12-02T13:47:55+0000 debug http: http.request.attempt=1 http.request.headers=["Host": "127.0.0.1:8080", "User-Agent": "Jewzruxin", "Accept-Encoding": "zstd, br, gzip, deflate", "Accept": "*/*"] http.request.method=GET request.id=c0febbbca89ca520 url.full=http://127.0.0.1:8080/hello/ [JewzruxinLogging] → GET http://127.0.0.1:8080/hello/
/// // 2026-12-02T13:47:55+0000 info http: http.client.request.duration=0.004655 http.request.attempt=1 http.request.method=GET http.response.body.size=11 http.response.headers=["Content-Length": "11", "Content-Type": "text/plain; charset=utf-8"] http.response.status_code=200 request.id=c0febbbca89ca520 url.full=http://127.0.0.1:8080/hello/ [JewzruxinLogging] GET http://127.0.0.1:8080/hello/ → 200
/// ```
///
/// (swift-log's default handler, on the curl transport; the headers are a dictionary, in no set
/// order.)
///
/// Each run of a cycle gets a request ID (from its `X-Request-ID` header, else a random one) that
/// every line of the run carries, with the method, the URL, the attempt, and at its end the
/// status, the body's size and the duration. A line for each request sent (`.debug`), each retry
/// (`.notice`), and the run's end: `.info` for a success, `.warning` for an error status,
/// `.error` for a failure without one, `.debug` for a cancel (see ``Configuration/Levels``).
///
/// A request's headers are logged as the transport sent them: the request's own and those the
/// transport added (the stored cookies, `Host`, `User-Agent`, `Accept`, `Accept-Encoding`, the
/// framing; see `HTTPEventMonitor.cycle(_:willSend:)`).
///
/// **Redaction**: the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
/// and a URL's password are always written `<redacted>`; so are the header fields, query items and
/// form or JSON fields the configuration names. **Bodies** are not logged unless
/// ``Configuration/bodyLimit`` is above zero.
///
/// The logger's own metadata (and its metadata provider's) comes with every line. Lines are
/// written on the thread of each event (see `HTTPEventMonitor`): give the logger a handler that
/// doesn't block.
public final class LoggingMonitor: HTTPEventMonitor {
    /// The logger every line goes to.
    public let logger: Logger
    /// What is logged, at which levels, and what is hidden.
    public let configuration: Configuration
    private let redactor: Redactor
    /// The runs in progress, by cycle.
    private let runs = Mutex<[ObjectIdentifier: Run]>([:])

    /// What the monitor keeps of a run in progress.
    private struct Run {
        let id: String
        let start: ContinuousClock.Instant
        var attempt = 0
        var requestBodySize: Int?
        var responseBodySize: Int64?
    }

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - logger: Where lines go; its level filters them as usual.
    ///   - configuration: What is logged and hidden; the defaults by default.
    public init(logger: Logger, configuration: Configuration = Configuration()) {
        self.logger = logger
        self.configuration = configuration
        self.redactor = Redactor(configuration: configuration)
    }

    public func cycleDidBegin(_ cycle: HTTPCycle) {
        let request = cycle.request
        let id = configuration.requestIDHeader.flatMap { request.value(forHTTPHeaderField: $0) } ?? Self.randomID()
        let run = Run(id: id, start: .now)
        runs.withLock { $0[ObjectIdentifier(cycle)] = run }
    }

    /// Logs `request` as the transport sends it, at ``Configuration/Levels/request``: its method,
    /// URL and attempt, its header fields as they go out (the transport's among them), redacted,
    /// and its body when configured.
    public func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest) {
        let retried = cycle.retriedCount
        let run = runs.withLock { runs -> Run? in
            runs[ObjectIdentifier(cycle)]?.attempt = retried + 1
            runs[ObjectIdentifier(cycle)]?.requestBodySize = request.data?.count
            return runs[ObjectIdentifier(cycle)]
        }
        guard let level = configuration.levels.request, logger.logLevel <= level else { return }
        var metadata = common(cycle, run: run, method: request.method, url: request.url)
        if let size = request.data?.count { metadata[MetadataKey.requestBodySize] = "\(size)" }
        if configuration.logsHeaders {
            // The request's fields are those that go out: the transport completed them with its
            // own (cookies, Host, User-Agent, Accept-Encoding, the framing) before this call.
            metadata[MetadataKey.requestHeaders] = headers(Dictionary(request.headerFields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        if configuration.bodyLimit > 0, let data = request.data, !data.isEmpty {
            let text = redactor.body(data, contentType: request.value(forHTTPHeaderField: "Content-Type"), limit: configuration.bodyLimit)
            metadata[MetadataKey.requestBody] = .string(text)
        }
        logger.log(level: level, "→ \(request.method.rawValue) \(redactor.url(request.url))", metadata: metadata)
    }

    public func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) {
        runs.withLock { $0[ObjectIdentifier(cycle)]?.responseBodySize = metrics.responseBodyBytes }
    }

    public func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval) {
        let run = runs.withLock { $0[ObjectIdentifier(cycle)] }
        guard let level = configuration.levels.retry, logger.logLevel <= level else { return }
        let request = cycle.request
        var metadata = common(cycle, run: run, method: request.method, url: request.url)
        metadata[MetadataKey.retryDelay] = .string(String(format: "%.3f", delay))
        metadata[MetadataKey.errorType] = .string(Self.errorType(error))
        metadata[MetadataKey.error] = .string(String(describing: error))
        logger.log(level: level, "\(request.method.rawValue) \(redactor.url(request.url)) retries in \(String(format: "%.3f", delay)) s", metadata: metadata)
    }

    public func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {
        let run = runs.withLock { $0.removeValue(forKey: ObjectIdentifier(cycle)) }
        let outcome = Self.outcome(of: error)
        let level: Logger.Level? = switch outcome {
        case .success: configuration.levels.success
        case .errorStatus: configuration.levels.errorStatus
        case .failure: configuration.levels.failure
        case .cancel: configuration.levels.cancel
        }
        guard let level, logger.logLevel <= level else { return }
        let request = cycle.request
        let response: HTTPResponse = if case HTTPError.statusCodeSeemsToHaveErred(let failed)? = error { failed } else { cycle.response }
        var metadata = common(cycle, run: run, method: request.method, url: response.url ?? request.url)
        var line = "\(request.method.rawValue) \(redactor.url(response.url ?? request.url)) → "
        if let status = response.statusCode {
            let size = run?.responseBodySize ?? Int64(response.data.count)
            metadata[MetadataKey.statusCode] = "\(status)"
            metadata[MetadataKey.responseBodySize] = "\(size)"
            line += "\(status)"
            if configuration.logsHeaders { metadata[MetadataKey.responseHeaders] = headers(response.headers) }
            if configuration.bodyLimit > 0, !response.data.isEmpty {
                metadata[MetadataKey.responseBody] = .string(redactor.body(
                    response.data, contentType: response.value(forHTTPHeaderField: "Content-Type"), limit: configuration.bodyLimit))
            }
        } else {
            line += "no response"
        }
        if let size = run?.requestBodySize { metadata[MetadataKey.requestBodySize] = "\(size)" }
        if let run {
            let elapsed = ContinuousClock.now - run.start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            metadata[MetadataKey.duration] = .string(String(format: "%.6f", seconds))
        }
        if let error {
            metadata[MetadataKey.errorType] = .string(Self.errorType(error))
            metadata[MetadataKey.error] = .string(String(describing: error))
            if outcome != .errorStatus { line += ": \(Self.errorType(error))" }
        }
        logger.log(level: level, "\(line)", metadata: metadata)
    }

    // MARK: Helpers

    /// The metadata every line of a run has.
    private func common(_ cycle: HTTPCycle, run: Run?, method: HTTPMethod, url: URL?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            MetadataKey.method: .string(method.rawValue),
            MetadataKey.url: .string(redactor.url(url)),
        ]
        if let run {
            metadata[MetadataKey.requestID] = .string(run.id)
            metadata[MetadataKey.attempt] = "\(max(run.attempt, 1))"
        }
        let operation = cycle.identifier
        if !operation.isEmpty { metadata[MetadataKey.operation] = .string(operation) }
        return metadata
    }

    /// Headers as metadata, their values redacted as configured.
    private func headers(_ headers: [String: String]) -> Logger.MetadataValue {
        .dictionary(Dictionary(uniqueKeysWithValues: headers.map { name, value in
            (name, Logger.MetadataValue.string(redactor.header(name, value)))
        }))
    }

    enum Outcome { case success, errorStatus, failure, cancel }

    static func outcome(of error: (any Error)?) -> Outcome {
        switch error {
        case nil: .success
        case HTTPError.statusCodeSeemsToHaveErred?: .errorStatus
        case HTTPError.cancelled?, is CancellationError: .cancel
        default: .failure
        }
    }

    /// An error's kind in a word, as OpenTelemetry's `error.type` wants it: the status code, the
    /// `URLError` code, the `HTTPError` case, else the type's name.
    static func errorType(_ error: any Error) -> String {
        switch error {
        case HTTPError.statusCodeSeemsToHaveErred(let response): "\(response.statusCode ?? 0)"
        case HTTPError.transport(let urlError): "URLError.\(urlError.code.rawValue)"
        case HTTPError.deadlineExceeded: "deadlineExceeded"
        case HTTPError.cancelled: "cancelled"
        case let urlError as URLError: "URLError.\(urlError.code.rawValue)"
        default: String(describing: type(of: error))
        }
    }

    /// 16 random hexadecimal digits.
    static func randomID() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
