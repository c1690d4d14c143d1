import Foundation
import JewzruxinPrimitives

/// What a ``NativeExchange`` notes of its attempt as it goes: clock readings as integers and byte
/// counts, turned into the ``HTTPTransferMetrics`` it reports once, when the attempt ends.
///
/// A plain value the worker's thread keeps on its stack (the submitting thread's clock reading comes
/// with the ``NativeExchange/EarlySend``): nothing here is shared or locked, and nothing is made per
/// request until ``metrics(end:)``.
struct AttemptMeasurements {
    /// When the attempt began, in nanoseconds of `MonotonicTime`.
    let start: UInt64
    /// When the name was resolved; 0 on a reused connection (and until then).
    var resolved: UInt64 = 0
    /// When the connection was made; 0 on a reused connection (and until then).
    var connected: UInt64 = 0
    /// When the request began to go out.
    var requestStart: UInt64 = 0
    /// When the first bytes of the response arrived.
    var firstByte: UInt64 = 0
    /// The connection's two ends: `nil` until the attempt has a connection.
    var endpoints: NativeSocket.Endpoints?
    var reusedConnection = false
    /// The response's protocol, once its head arrived.
    var httpVersion: String?
    var requestBodyBytes: Int64 = 0
    var responseBodyBytes: Int64 = 0
    var responseHeaderBytes = 0

    init(start: MonotonicTime) {
        self.start = start.nanoseconds
    }

    /// Forgets what was noted on a connection that turned out stale: the request goes again on a new
    /// one, within the same attempt.
    mutating func restart() {
        self = AttemptMeasurements(start: MonotonicTime(nanoseconds: start))
    }

    /// The attempt's metrics, ended at `end`; `nil` when it never had a connection. A milestone it
    /// didn't reach (a failure before the response) is 0, as libcurl reports it.
    func metrics(end: MonotonicTime) -> HTTPTransferMetrics? {
        guard let endpoints else { return nil }
        return HTTPTransferMetrics(
            nameLookup: seconds(to: resolved), connect: seconds(to: connected), tlsHandshake: nil,
            requestStart: seconds(to: requestStart), firstByte: seconds(to: firstByte), total: seconds(to: end.nanoseconds),
            httpVersion: httpVersion, remoteAddress: endpoints.remoteAddress, remotePort: endpoints.remotePort,
            localAddress: endpoints.localAddress, localPort: endpoints.localPort, requestBodyBytes: requestBodyBytes,
            responseBodyBytes: responseBodyBytes, responseHeaderBytes: responseHeaderBytes, reusedConnection: reusedConnection)
    }

    /// Seconds from the start to `stamp`; 0 for a milestone not reached.
    private func seconds(to stamp: UInt64) -> TimeInterval {
        stamp > start ? TimeInterval(stamp - start) / 1_000_000_000 : 0
    }
}
