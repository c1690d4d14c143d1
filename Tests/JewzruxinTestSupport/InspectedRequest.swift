import Foundation

/// What the sandbox's `/inspect/` saw of a request: its method, target, header fields and body.
public struct InspectedRequest: Decodable, Sendable {
    public let method: String
    public let target: String
    /// Name and value of each field, in the order received.
    public let headers: [[String]]
    /// The body as UTF-8 text (base64 when it isn't).
    public let body: String

    /// The report in `data`, an `/inspect/` response's body.
    public init(_ data: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: data)
    }

    /// The first value of the field `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
