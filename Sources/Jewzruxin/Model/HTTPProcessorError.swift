/// Why a processor could not do its work.
public struct HTTPProcessorError: Error, Sendable, CustomStringConvertible {
    /// The processor's type name.
    public let processor: String
    /// What went wrong.
    public let reason: String
    /// The error underneath, such as a JSON decoding error.
    public let underlying: (any Error)?

    /// Creates a processor error.
    public init(processor: String, reason: String, underlying: (any Error)? = nil) {
        self.processor = processor
        self.reason = reason
        self.underlying = underlying
    }

    /// The processor and the reason, with the underlying error when there is one.
    public var description: String {
        let detail = underlying.map { ": \($0)" } ?? ""
        return "\(processor): \(reason)\(detail)"
    }
}
