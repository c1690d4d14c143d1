import Foundation
import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Playground {
    /// What came back from a cycle that got a response.
    struct Outcome {
        /// The response, body included (empty for a download).
        var response: HTTPResponse
        /// The time from the start to the end of the cycle, measured with a monotonic clock.
        var elapsed: Duration
        /// The error the cycle ended with although a response arrived: a status ≥ 400, or a
        /// content handler's refusal.
        var error: (any Error)?
    }

    /// Sends a planned request and prints its status line.
    ///
    /// - Parameters:
    ///   - plan: The method, URL and body.
    ///   - label: What the spinner shows.
    /// - Throws: ``PlaygroundError`` for a bad URL or when no response arrived.
    func send(_ plan: RequestPlan, label: String) async throws(PlaygroundError) {
        let cycle = HTTPCycle(requestURL: try Self.checkedURL(plan.url), requestMethod: plan.method, session: session)
        cycle.request.object = plan.requestObject
        cycle.requestProcessors = plan.requestProcessors
        cycle.uploadSource = plan.uploadSource
        try await sendAndPrint(cycle, label: label)
    }

    /// Runs a cycle and prints its status line.
    func sendAndPrint(_ cycle: HTTPCycle, label: String) async throws(PlaygroundError) {
        let outcome = try await exchange(cycle, label: label)
        console.line(statusLine(outcome.response, bytes: Int64(outcome.response.data.count), elapsed: outcome.elapsed))
        printTimingIfOn(outcome.response)
    }

    /// Runs a cycle with the session headers, the spinner and Ctrl-C, and keeps it as the last
    /// exchange.
    ///
    /// A status the library treats as a failure (≥ 400) is still a response: it is returned, with
    /// the error, not thrown.
    /// - Parameters:
    ///   - cycle: The cycle, not started.
    ///   - label: What the spinner shows, or `nil` for no spinner (a download draws its progress).
    ///   - savedTo: Where a download goes, for the views of the last response.
    /// - Returns: The response and the time it took.
    /// - Throws: ``PlaygroundError`` when no response arrived (transport error, Ctrl-C…).
    func exchange(_ cycle: HTTPCycle, label: String?, savedTo: String? = nil) async throws(PlaygroundError) -> Outcome {
        for header in sessionHeaders where cycle.request.value(forHTTPHeaderField: header.name) == nil {
            cycle.request.setValue(header.value, forHTTPHeaderField: header.name)
        }
        if let label { spinner?.arm(label: label) }
        let start = clock.now
        var failure: (any Error)?
        do {
            try await interrupter.run(cycle)
        } catch {
            failure = error
        }
        let elapsed = start.duration(to: clock.now)
        spinner?.disarm()
        switch failure {
        case nil:
            last = Exchange(request: cycle.request, response: cycle.response, savedTo: savedTo, transport: transportKind)
            return Outcome(response: cycle.response, elapsed: elapsed, error: nil)
        case HTTPError.statusCodeSeemsToHaveErred(let response)?:
            last = Exchange(request: cycle.request, response: response, savedTo: nil, transport: transportKind)
            return Outcome(response: response, elapsed: elapsed, error: failure)
        case let error as ContentHandlerError where error.isRefusal && error.response?.statusCode != nil:
            let response = error.response ?? cycle.response
            last = Exchange(request: cycle.request, response: response, savedTo: nil, transport: transportKind)
            return Outcome(response: response, elapsed: elapsed, error: error)
        case let error?:
            last = Exchange(request: cycle.request, response: nil, savedTo: nil, transport: transportKind)
            throw Self.describe(error, url: cycle.request.url, method: cycle.request.method, timeout: timeout)
        }
    }

    /// The status line: `200 OK  12 ms  11 bytes`, the status coloured by its class.
    func statusLine(_ response: HTTPResponse, bytes: Int64, elapsed: Duration) -> String {
        let status = response.statusCode ?? 0
        let color: Console.Color = switch status {
        case 200..<300: .green
        case 300..<400: .yellow
        default: .red
        }
        let size = bytes == 1 ? "1 byte" : "\(bytes) bytes"
        return console.paint("\(status) \(ReasonPhrase.phrase(for: status))", color) + "  \(Self.milliseconds(elapsed)) ms  \(size)"
    }

    /// A duration in whole milliseconds, rounded.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + Int64((Double(attoseconds) / 1e15).rounded())
    }

    /// A URL string checked as the library checks it: absolute `http` or `https`, with a host.
    ///
    /// - Throws: ``PlaygroundError`` naming the URL and saying what is wrong (``BaseURL/problem(with:)``).
    static func checkedURL(_ string: String) throws(PlaygroundError) -> URL {
        guard BaseURL.problem(with: string) == nil, let url = URL(string: string) else {
            let problem = BaseURL.problem(with: string) ?? "not a valid URL"
            throw PlaygroundError("invalid URL \(CommandLexer.quoted(string)): \(problem)")
        }
        return url
    }

    /// The one line that says why a request got no response.
    ///
    /// - Parameters:
    ///   - error: What the cycle ended with.
    ///   - url: The request's URL.
    ///   - method: The request's method.
    ///   - timeout: The idle timeout the request ran with, named when it timed out.
    static func describe(_ error: any Error, url: URL?, method: HTTPMethod, timeout: TimeInterval? = nil) -> PlaygroundError {
        let target = "\(method) \(url?.absoluteString ?? "?")"
        switch error {
        case let error as PlaygroundError:
            return error
        case is CancellationError, HTTPError.cancelled:
            return PlaygroundError("\(target): cancelled")
        case HTTPError.transport(let urlError):
            return PlaygroundError("\(target): \(transportProblem(urlError, url: url, timeout: timeout))")
        case let error as ContentHandlerError:
            return PlaygroundError("\(target): \(error.code): \(error.reason)")
        case let error as HTTPError:
            return PlaygroundError(error.description)
        case let error as HTTPServiceError:
            return PlaygroundError(error.description)
        case let error as URITemplateError:
            return PlaygroundError(error.description)
        default:
            return PlaygroundError("\(target): \(error)")
        }
    }

    private static func transportProblem(_ error: URLError, url: URL?, timeout: TimeInterval?) -> String {
        let host = url?.host ?? "the server"
        let place = url?.port.map { "\(host):\($0)" } ?? host
        switch error.code {
        case .cannotConnectToHost: return "cannot connect to \(place) (is a server listening?)"
        case .cannotFindHost, .dnsLookupFailed: return "cannot find the host \(host)"
        case .timedOut:
            return timeout.map { "timed out (the timeout is \(seconds($0)) s; timeout SECONDS changes it)" } ?? "timed out"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "not connected to a network"
        case .badServerResponse: return "the transfer ended without a valid HTTP response"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "the TLS connection failed"
        case .httpTooManyRedirects: return "too many redirects"
        default: return "\(error.localizedDescription) (URLError \(error.code.rawValue))"
        }
    }
}
