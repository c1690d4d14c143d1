/// How far a body has gone: bytes done so far and, when known, in all.
///
/// What ``HTTPCycle/downloadProgress`` and ``HTTPCycle/uploadProgress`` yield.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes received (or sent) so far.
    public var completedBytes: Int64
    /// The bytes expected in all; `nil` when unknown (no `Content-Length`, a chunked or
    /// content-encoded body).
    public var expectedBytes: Int64?

    /// Creates a value.
    ///
    /// - Parameters:
    ///   - completedBytes: The bytes done so far.
    ///   - expectedBytes: The bytes expected in all, `nil` when unknown.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// The part done, from 0 to 1; `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return expectedBytes == 0 ? 1 : nil }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    public var description: String {
        expectedBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
    }
}
