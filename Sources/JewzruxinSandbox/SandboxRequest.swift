import Foundation

/// An HTTP request as the sandbox received it.
///
/// Route handlers get one of these. Everything is kept as close to the wire as
/// possible: ``path`` and ``rawQuery`` are not percent-decoded, ``headers`` keep their
/// order and spelling, and ``body`` is the de-chunked payload. Only ``queryItems`` is
/// decoded for convenience.
public struct SandboxRequest: Sendable {
    /// The request method, as sent (for example `GET`; methods are case-sensitive).
    public var method: String

    /// The request target exactly as it appeared in the request line
    /// (for example `/echo/?content=a%20b`).
    public var target: String

    /// The path part of the target, still percent-encoded, without the query.
    ///
    /// For an absolute-form target (`http://host/path?q`) this is just `/path`.
    public var path: String

    /// The raw query string after `?`, not decoded; empty when there is none.
    public var rawQuery: String

    /// The query as ordered `(name, value)` pairs, percent-decoded.
    ///
    /// Pairs are split on `&` and at the first `=`; a name without `=` gets an empty
    /// value. `+` is *not* turned into a space (matching `URLComponents`), and an
    /// invalid percent escape is kept literally.
    public var queryItems: [(name: String, value: String)]

    /// The protocol version from the request line, for example `HTTP/1.1`.
    public var version: String

    /// The header fields in the order received.
    public var headers: SandboxHeaders

    /// The request body (after removing chunked framing); empty when there is none.
    public var body: Data

    /// The number of the connection the request came on: 1 for the sandbox's first, 0 for a
    /// request made by hand. The NTLM endpoint keeps its challenges per connection, as the
    /// handshake is bound to one.
    var connection = 0

    /// Creates a request, parsing `target` into ``path``, ``rawQuery`` and ``queryItems``.
    ///
    /// Useful for calling route handlers directly in unit tests.
    public init(
        method: String = "GET",
        target: String,
        version: String = "HTTP/1.1",
        headers: SandboxHeaders = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        let parts = Self.splitTarget(target)
        path = parts.path
        rawQuery = parts.query
        queryItems = Self.decodeQuery(parts.query)
    }

    /// The first value for the query parameter `name`, decoded, or `nil`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every value for the query parameter `name`, decoded, in order.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    /// Splits a request target into its path and raw query.
    static func splitTarget(_ target: String) -> (path: String, query: String) {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") {
            rest = rest[..<fragment]
        }
        let lowered = rest.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let afterScheme = rest[rest.index(rest.startIndex, offsetBy: lowered.hasPrefix("http://") ? 7 : 8)...]
            if let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = afterScheme[slash...]
            } else {
                rest = "/"
            }
        }
        guard let question = rest.firstIndex(of: "?") else {
            return (rest.isEmpty ? "/" : String(rest), "")
        }
        let path = rest[..<question]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: question)...]))
    }

    /// Splits and percent-decodes a raw query string.
    static func decodeQuery(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            guard let equals = piece.firstIndex(of: "=") else {
                return (percentDecode(piece), "")
            }
            return (percentDecode(piece[..<equals]), percentDecode(piece[piece.index(after: equals)...]))
        }
    }

    /// Decodes `%XX` escapes; invalid escapes stay literal, invalid UTF-8 is repaired.
    static func percentDecode(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
