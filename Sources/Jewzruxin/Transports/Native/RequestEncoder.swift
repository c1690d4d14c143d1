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

    /// `host:port`, an IPv6 address in brackets, the port left out when 80.
    var description: String {
        let name = HostSyntax.bracketed(host)
        return port == 80 ? name : "\(name):\(port)"
    }
}

/// The bytes of a request head, and how its body goes on the wire.
struct RequestEncoder {
    typealias BodyFraming = HeaderCompletion.BodyFraming

    /// Builds the head of `request`, whose fields are completed as they go out
    /// (``NativeTransport/completeHeaderFields(of:upload:)``): its fields as they are, `Host`
    /// first (RFC 9110 §7.2), in name order so the head is the same every time, and the framing of
    /// its body by the rule of the completion, which stated the same.
    ///
    /// - Parameters:
    ///   - request: The request: its method and target.
    ///   - fields: Its completed fields (``HTTPRequest/completedFields``), in name order.
    ///   - body: The length of the body sent.
    /// - Returns: The head, and how the body goes.
    /// - Throws: `URLError(.badURL)` for a field that would break the message (CR, LF or NUL).
    static func head(
        for request: HTTPRequest, fields own: [(name: String, value: String)], body: HeaderCompletion.BodyLength
    ) throws -> (head: [UInt8], framing: BodyFraming) {
        guard let url = request.url else { throw URLError(.badURL) }
        let method = request.method.rawValue
        guard !method.isEmpty, method.withUTF8Bytes({ $0.allSatisfy(HTTPHeaderSyntax.isTokenByte) }) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The method \"\(method)\" is not a valid token."])
        }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard target.withUTF8Bytes({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request target contains characters that must be percent-encoded."])
        }

        // One pass over the request's fields, but the framing, written below from the body.
        var fields: [(String, String)] = []
        var chunkedAsked = false
        fields.reserveCapacity(own.count + 1)
        for (name, value) in own {
            switch HeaderCompletion.framingField(name) {
            case .transferEncoding?: chunkedAsked = true
            case .contentLength?: break
            case nil where name.utf8.count == 4 && HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Host"): fields.insert((name, value), at: 0)
            case nil: fields.append((name, value))
            }
        }
        let framing = BodyFraming(method: method, body: body, chunkedAsked: chunkedAsked, emptyBody: .methodsWithContent)
        switch framing {
        case .none: break
        case .length(let length): fields.append(("Content-Length", String(length)))
        case .chunked: fields.append(("Transfer-Encoding", "chunked"))
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

    /// Refuses a field that would break the message or smuggle another (the rule of
    /// ``HTTPRequest/setValue(_:forHTTPHeaderField:)``, applied here to the fields the transport
    /// added too: cookies and the configuration's additional headers).
    static func validate(name: String, value: String) throws {
        guard let reason = HTTPRequest.invalidity(name: name, value: value) else { return }
        throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The header \"\(name)\" can't be sent: \(reason)."])
    }
}
