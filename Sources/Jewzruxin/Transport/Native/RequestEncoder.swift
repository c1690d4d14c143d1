import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a request goes: scheme-less origin of a pooled connection.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address, without brackets.
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard url.scheme?.lowercased() == "http", var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = url.port ?? 80
    }

    /// The `Host` header value.
    var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    var description: String { hostField }
}

/// The bytes of a request head, and how its body goes on the wire.
struct RequestEncoder {
    enum BodyFraming: Equatable {
        case none
        case length(Int64)
        case chunked
    }

    /// Builds the head of `request` to `origin`.
    ///
    /// - Parameters:
    ///   - bodyLength: The body's length, `nil` when it has none; `-1` when unknown (sent chunked).
    ///   - extraHeaders: Headers added where the request has none of that name (cookies, the
    ///     configuration's additional headers).
    /// - Throws: `URLError(.badURL)` for a field that would break the message (CR, LF or NUL).
    static func head(
        for request: URLRequest, origin: Origin, bodyLength: Int64?, extraHeaders: [(String, String)]
    ) throws -> (head: [UInt8], framing: BodyFraming) {
        guard let url = request.url else { throw URLError(.badURL) }
        let method = request.httpMethod ?? "GET"
        guard !method.isEmpty, method.utf8.allSatisfy(ResponseDecoder.isTokenByte) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The method \"\(method)\" is not a valid token."])
        }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request target contains characters that must be percent-encoded."])
        }

        var fields: [(String, String)] = []
        var names = Set<String>()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            // Framing and the connection are the transport's business.
            guard !["host", "content-length", "connection", "transfer-encoding", "keep-alive"].contains(lower) else {
                if lower == "host" { names.insert(lower); fields.append((name, value)) }
                if lower == "transfer-encoding" { names.insert(lower) }
                continue
            }
            names.insert(lower)
            fields.append((name, value))
        }
        for (name, value) in extraHeaders where !names.contains(name.lowercased()) {
            names.insert(name.lowercased())
            fields.append((name, value))
        }
        if !names.contains("host") { fields.insert(("Host", origin.hostField), at: 0) }
        if !names.contains("user-agent") { fields.append(("User-Agent", "Jewzruxin")) }
        if !names.contains("accept") { fields.append(("Accept", "*/*")) }

        let framing: BodyFraming
        let wantsChunked = request.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        switch bodyLength {
        case nil:
            framing = .none
            // A method that defines a body announces an empty one (RFC 9110 §8.6).
            if ["POST", "PUT", "PATCH"].contains(method.uppercased()) { fields.append(("Content-Length", "0")) }
        case let length? where length < 0 || wantsChunked:
            framing = .chunked
            fields.append(("Transfer-Encoding", "chunked"))
        case let length?:
            framing = .length(length)
            fields.append(("Content-Length", String(length)))
        }

        var head = [UInt8]()
        head.reserveCapacity(256)
        head.append(contentsOf: method.utf8)
        head.append(0x20)
        head.append(contentsOf: target.utf8)
        head.append(contentsOf: " HTTP/1.1\r\n".utf8)
        for (name, value) in fields {
            try validate(name: name, value: value)
            head.append(contentsOf: name.utf8)
            head.append(contentsOf: ": ".utf8)
            head.append(contentsOf: value.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        head.append(contentsOf: "\r\n".utf8)
        return (head, framing)
    }

    /// Refuses a field that would break the message or smuggle another (the rule of
    /// ``HTTPRequest/setValue(_:forHTTPHeaderField:)``, applied here to the headers the transport
    /// adds too: cookies and the configuration's additional headers).
    static func validate(name: String, value: String) throws {
        guard let reason = HTTPRequest.invalidity(name: name, value: value) else { return }
        throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The header \"\(name)\" can't be sent: \(reason)."])
    }
}
