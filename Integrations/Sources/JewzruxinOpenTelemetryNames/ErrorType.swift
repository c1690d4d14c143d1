import Foundation
import Jewzruxin

/// What the metrics and tracing bridges both name as OpenTelemetry names them.
package enum OpenTelemetryNames {
    /// An error's kind, as OpenTelemetry's `error.type` wants it: low in cardinality.
    package static func errorType(_ error: any Error) -> String {
        switch error {
        case HTTPError.statusCodeSeemsToHaveErred(let response): "\(response.statusCode ?? 0)"
        case HTTPError.transport(let urlError): "URLError.\(urlError.code.rawValue)"
        case HTTPError.deadlineExceeded: "deadlineExceeded"
        case HTTPError.cancelled, is CancellationError: "cancelled"
        case let urlError as URLError: "URLError.\(urlError.code.rawValue)"
        default: String(describing: type(of: error))
        }
    }
}
