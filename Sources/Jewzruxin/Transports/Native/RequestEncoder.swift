import Foundation
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a request goes: scheme-less origin of a pooled connection.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address, without brackets.
    let host: String
    let port: Int

    /// The origin of an `http` URL (the caller checked the scheme); `nil` without a host.
    init?(httpURL url: URL) {
        guard let host = url.host, !host.isEmpty else { return nil }
        self.init(host: String(HostSyntax.unbracketed(host)), port: url.port ?? 80)
    }

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The `Host` header value: made once per pool, which serves every request to the origin.
    var hostField: String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
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

    /// Builds the head of `request`.
    ///
    /// - Parameters:
    ///   - hostField: The `Host` value, for a request that sets none (``Origin/hostField``).
    ///   - bodyLength: The body's length, `nil` when it has none; `-1` when unknown (sent chunked).
    ///   - extraHeaders: Headers added where the request has none of that name (cookies, the
    ///     configuration's additional headers).
    /// - Throws: `URLError(.badURL)` for a field that would break the message (CR, LF or NUL).
    static func head(
        for request: URLRequest, hostField: String, bodyLength: Int64?, extraHeaders: [(String, String)]
    ) throws -> (head: [UInt8], framing: BodyFraming) {
        guard let url = request.url else { throw URLError(.badURL) }
        let method = request.httpMethod ?? "GET"
        guard !method.isEmpty, method.withUTF8Bytes({ $0.allSatisfy(HTTPHeaderSyntax.isTokenByte) }) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The method \"\(method)\" is not a valid token."])
        }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard target.withUTF8Bytes({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request target contains characters that must be percent-encoded."])
        }

        // One pass over the request's fields, in name order so the head is the same every time.
        var fields: [(String, String)] = []
        var hasHost = false, hasUserAgent = false, hasAccept = false, wantsChunked = false
        let own = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
        fields.reserveCapacity(own.count + extraHeaders.count + 4)
        for (name, value) in own {
            switch Self.connectionField(name) {
            case .host:
                hasHost = true
                fields.append((name, value))
            case .transferEncoding:
                // Framing and the connection are the transport's business.
                wantsChunked = HTTPHeaderSyntax.listItems(value).contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "chunked".utf8) }
            case .framing:
                continue
            case nil:
                hasUserAgent = hasUserAgent || HTTPHeaderSyntax.equalIgnoringASCIICase(name, "User-Agent")
                hasAccept = hasAccept || HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Accept")
                fields.append((name, value))
            }
        }
        for (name, value) in extraHeaders where !fields.contains(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.0, name) }) {
            hasUserAgent = hasUserAgent || HTTPHeaderSyntax.equalIgnoringASCIICase(name, "User-Agent")
            hasAccept = hasAccept || HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Accept")
            fields.append((name, value))
        }
        if !hasHost { fields.insert(("Host", hostField), at: 0) }
        if !hasUserAgent { fields.append(("User-Agent", "Jewzruxin")) }
        if !hasAccept { fields.append(("Accept", "*/*")) }

        let framing: BodyFraming
        switch bodyLength {
        case nil:
            framing = .none
            // A method that defines a body announces an empty one (RFC 9110 §8.6).
            if ["POST", "PUT", "PATCH"].contains(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0, method) }) {
                fields.append(("Content-Length", "0"))
            }
        case let length? where length < 0 || wantsChunked:
            framing = .chunked
            fields.append(("Transfer-Encoding", "chunked"))
        case let length?:
            framing = .length(length)
            fields.append(("Content-Length", String(length)))
        }

        var head = [UInt8]()
        head.reserveCapacity(256)
        head.appendUTF8(method)
        head.append(0x20)
        head.appendUTF8(target)
        head.appendUTF8(" HTTP/1.1\r\n")
        for (name, value) in fields {
            try validate(name: name, value: value)
            head.appendUTF8(name)
            head.append(0x3A)
            head.append(0x20)
            head.appendUTF8(value)
            head.append(0x0D)
            head.append(0x0A)
        }
        head.append(0x0D)
        head.append(0x0A)
        return (head, framing)
    }

    private enum ConnectionField {
        case host
        case transferEncoding
        /// `Content-Length`, `Connection`, `Keep-Alive`: set by the transport alone.
        case framing
    }

    /// The fields of a request that the transport handles itself; `nil` for the others.
    private static func connectionField(_ name: String) -> ConnectionField? {
        // Lengths first: most names are settled without comparing a byte.
        switch name.utf8.count {
        case 4 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Host"): return .host
        case 17 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Transfer-Encoding"): return .transferEncoding
        case 14 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Content-Length"),
             10 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Connection") || HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Keep-Alive"):
            return .framing
        default: return nil
        }
    }

    /// Refuses a field that would break the message or smuggle another (the rule of
    /// ``HTTPRequest/setValue(_:forHTTPHeaderField:)``, applied here to the headers the transport
    /// adds too: cookies and the configuration's additional headers).
    static func validate(name: String, value: String) throws {
        guard let reason = HTTPRequest.invalidity(name: name, value: value) else { return }
        throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The header \"\(name)\" can't be sent: \(reason)."])
    }
}
