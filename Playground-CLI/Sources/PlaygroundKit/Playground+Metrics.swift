import Foundation
import Jewzruxin
import JewzruxinPrimitives

// How the last exchange went on the wire: `metrics`, and the line `timing on` adds after each request.
// The numbers are the response's `HTTPTransferMetrics`, which the curl and native transports fill
// (URLSession, which a native session sends https:// to, gives none).
extension Playground {
    /// `metrics`: the last response's protocol, addresses, connection, times and sizes, one a line.
    ///
    /// - Throws: ``PlaygroundError`` when there is no response, or its transport measured nothing.
    func showMetrics() throws(PlaygroundError) {
        guard let last else { throw PlaygroundError("no response yet: send a request first (GET /hello/)") }
        guard let response = last.response else { throw PlaygroundError("the last request got no response") }
        guard let metrics = response.metrics else {
            throw PlaygroundError("the last response \(Self.unmeasured(on: last.transport, url: last.request.url))")
        }
        for line in Self.metricsLines(metrics) { console.line(line) }
    }

    /// Why a response on `transport` to `url` has no metrics, after "the last response".
    static func unmeasured(on transport: TransportKind, url: URL?) -> String {
        switch transport {
        case .urlSession:
            return "came over the urlsession transport, which measures no timings (transports curl and native do)"
        case .native where url?.scheme?.lowercased() == "https":
            return "came over URLSession, where the native transport sends https://, which measures no timings (transport curl does)"
        case .native, .curl:
            return "has no timings: the \(transport.rawValue) transport measures none for a request that was cancelled, timed out "
                + "or never connected"
        }
    }

    /// `timing`: prints whether a line of timings follows each request, or turns it on or off.
    func timing(_ on: Bool?) {
        if let on { showsTiming = on }
        var state = "timing: \(showsTiming ? "on" : "off")"
        if showsTiming, transportKind == .urlSession {
            state += ", but the urlsession transport measures no timings (transports curl and native do)"
        }
        console.line(state)
    }

    /// After a status line: the one-line summary of `response`'s timings, when `timing on`.
    func printTimingIfOn(_ response: HTTPResponse) {
        guard showsTiming else { return }
        guard let metrics = response.metrics else {
            let reason = transportKind == .native && response.core?.url?.scheme?.lowercased() == "https"
                ? "https:// went to URLSession, which measures none" : "the \(transportKind.rawValue) transport measured none"
            console.line(console.paint("no timings: " + reason, .dim))
            return
        }
        console.line(console.paint(Self.timingSummary(metrics), .dim))
    }

    /// The lines of `metrics`: a label, padded, and its value.
    static func metricsLines(_ metrics: HTTPTransferMetrics) -> [String] {
        let rows: [(String, String)] = [
            ("protocol", metrics.httpVersion ?? "none"),
            ("remote", address(metrics.remoteAddress, metrics.remotePort)),
            ("local", address(metrics.localAddress, metrics.localPort)),
            ("connection", metrics.reusedConnection ? "reused" : "new"),
            ("name lookup", milliseconds(metrics.nameLookup)),
            ("connect", milliseconds(metrics.connect)),
            ("TLS handshake", metrics.tlsHandshake.map(milliseconds) ?? "none (no TLS)"),
            ("request sent", milliseconds(metrics.requestStart)),
            ("first byte", milliseconds(metrics.firstByte)),
            ("total", milliseconds(metrics.total)),
            ("sent", bytes(metrics.requestBodyBytes) + " of body"),
            ("received", bytes(metrics.responseBodyBytes) + " of body, " + bytes(Int64(metrics.responseHeaderBytes)) + " of head"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
    }

    /// The line `timing on` prints: `HTTP/1.1  127.0.0.1:8080  new connection  lookup 0.02 ms  …`.
    static func timingSummary(_ metrics: HTTPTransferMetrics) -> String {
        var parts = [
            metrics.httpVersion ?? "no protocol",
            address(metrics.remoteAddress, metrics.remotePort),
            metrics.reusedConnection ? "reused connection" : "new connection",
            "lookup " + milliseconds(metrics.nameLookup),
            "connect " + milliseconds(metrics.connect),
        ]
        if let handshake = metrics.tlsHandshake { parts.append("TLS " + milliseconds(handshake)) }
        parts += ["first byte " + milliseconds(metrics.firstByte), "total " + milliseconds(metrics.total)]
        return parts.joined(separator: "  ")
    }

    /// `host:port`, an IPv6 address in brackets; `none` without an address.
    static func address(_ host: String?, _ port: Int?) -> String {
        guard let host else { return "none" }
        let shown = HostSyntax.bracketed(host)
        return port.map { "\(shown):\($0)" } ?? shown
    }

    /// Seconds as milliseconds with two decimals: `1.25 ms`.
    static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.2f ms", seconds * 1000)
    }

    private static func bytes(_ count: Int64) -> String {
        count == 1 ? "1 byte" : "\(count) bytes"
    }
}
