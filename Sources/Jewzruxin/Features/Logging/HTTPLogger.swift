import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event monitor that writes one line per run of a cycle: method, URL, status, body bytes and
/// time; at ``Level/debug``, also each request as the transport sends it, as a `curl` command, and
/// each retry.
///
/// ```swift
/// session.eventMonitors.append(HTTPLogger())
/// // GET http://127.0.0.1:8080/hello/ → 200, 11 bytes, 3.2 ms
/// // GET http://127.0.0.1:8080/missing → 404, 9 bytes, 1.9 ms: status 404 seems to have erred
/// ```
///
/// The command has the fields the transport adds to the request's own (the stored cookies, `Host`,
/// `User-Agent`, `Accept`, `Accept-Encoding`, the framing: see
/// ``HTTPEventMonitor/cycle(_:willSend:)``), as they went out.
///
/// The values of `Authorization`, `Proxy-Authorization` and `Cookie`, and a password in the URL,
/// are written as `<redacted>` (and `redacted`) unless `revealsCredentials` is `true`; cookies the
/// server sets are never written, nor are response bodies. A request body is written, at debug
/// level only, up to ``bodyLimit`` bytes.
///
/// Each line goes to `write` in one call, from the thread of the event (see ``HTTPEventMonitor``);
/// the default writes it, with a line break, to the standard error in one `write`, so lines of
/// requests in flight together don't interleave.
public final class HTTPLogger: HTTPEventMonitor {
    /// How much the logger writes.
    public enum Level: Sendable, Comparable {
        /// One line per run, when it ends.
        case info
        /// Also each request as the transport sends it, as a `curl` command, and each retry.
        case debug
    }

    /// How much the logger writes.
    public let level: Level
    /// Whether credentials are written as they are rather than `<redacted>`.
    public let revealsCredentials: Bool
    /// The most bytes of a request body written at debug level.
    public let bodyLimit: Int
    private let write: @Sendable (String) -> Void
    /// When each run in progress began, by cycle.
    private let began = Locked([ObjectIdentifier: ContinuousClock.Instant]())

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - level: How much it writes; ``Level/info`` by default.
    ///   - revealsCredentials: Whether `Authorization`, `Proxy-Authorization`, `Cookie` and URL
    ///     passwords are written as they are; `false` by default.
    ///   - bodyLimit: The most bytes of a request body written at debug level; 1,024 by default.
    ///   - write: Where each line goes, without its line break; the standard error by default.
    public init(
        level: Level = .info, revealsCredentials: Bool = false, bodyLimit: Int = 1024,
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.level = level
        self.revealsCredentials = revealsCredentials
        self.bodyLimit = max(0, bodyLimit)
        self.write = write ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    public func cycleDidBegin(_ cycle: HTTPCycle) {
        let now = ContinuousClock.now
        began.withLock { $0[ObjectIdentifier(cycle)] = now }
    }

    /// At ``Level/debug``, writes `request`, as the transport sends it, as a `curl` command, its
    /// credentials redacted unless ``revealsCredentials``.
    public func cycle(_ cycle: HTTPCycle, willSend request: HTTPRequest) {
        guard level >= .debug else { return }
        write("→ " + request.curlCommand(redactsCredentials: !revealsCredentials, bodyLimit: bodyLimit))
    }

    public func cycle(_ cycle: HTTPCycle, willRetryAfter error: any Error, delay: TimeInterval) {
        guard level >= .debug else { return }
        let request = cycle.request
        write("\(request.method.rawValue) \(shown(request.url)) retries in \(Self.milliseconds(delay)) after \(Self.summary(of: error))")
    }

    public func cycle(_ cycle: HTTPCycle, didFinishWith error: (any Error)?) {
        let start = began.withLock { $0.removeValue(forKey: ObjectIdentifier(cycle)) }
        let request = cycle.request
        let response = cycle.response
        var line = "\(request.method.rawValue) \(shown(response.url ?? request.url)) → "
        if let status = response.statusCode {
            let bytes = response.metrics?.responseBodyBytes ?? Int64(response.data.count)
            line += "\(status), \(bytes) bytes"
        } else {
            line += "no response"
        }
        if let start {
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            line += ", " + Self.milliseconds(seconds)
        }
        if let error { line += ": " + Self.summary(of: error) }
        write(line)
    }

    /// `url` as written in a line: its password redacted unless credentials are revealed.
    private func shown(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        guard !revealsCredentials, url.password != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.password = "redacted"
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// `seconds` in milliseconds, one decimal.
    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }

    /// An error in a few words: what an ``HTTPError`` says of itself, the code of a `URLError`.
    static func summary(of error: any Error) -> String {
        switch error {
        case HTTPError.statusCodeSeemsToHaveErred(let response): "status \(response.statusCode ?? 0) seems to have erred"
        case let error as URLError: "URLError \(error.code.rawValue) (\(error.localizedDescription))"
        default: String(describing: error)
        }
    }
}
