import Foundation
import JewzruxinPrimitives

/// The request line and header section of one request.
struct RequestHead: Equatable {
    var method: String
    var target: String
    /// `HTTP/1.0` or `HTTP/1.1`.
    var version: String
    var headers: SandboxHeaders

    var isHTTP10: Bool { version == "HTTP/1.0" }

    /// Whether the connection may serve another request after this one
    /// (RFC 9112 §9.3: HTTP/1.1 persists unless `close`; HTTP/1.0 only with `keep-alive`).
    var wantsKeepAlive: Bool {
        if HTTPParser.hasToken("close", in: headers, name: "Connection") { return false }
        return !isHTTP10 || HTTPParser.hasToken("keep-alive", in: headers, name: "Connection")
    }
}

/// How the request body is delimited.
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// A strict HTTP/1.x request parser (RFC 9112) reading from a ``SocketStream``.
///
/// Anything malformed becomes ``RequestError/rejected(status:message:)`` so the
/// connection answers `400 Bad Request` (or `505` for an unsupported version) and closes.
enum HTTPParser {
    /// The most bytes the request line plus header fields may take.
    static let maxHeaderSectionBytes = 64 << 10
    /// The largest accepted request body.
    static let maxBodyBytes = 64 << 20

    // MARK: Head

    /// Reads the request line and header fields.
    ///
    /// - Parameter authorityForm: Whether the target may also be in authority form (`host:port`, a
    ///   `CONNECT`'s), which the caller then checks.
    /// - Returns: `nil` if the peer closed the connection cleanly between requests.
    static func readHead(from stream: SocketStream, authorityForm: Bool = false) throws(RequestError) -> RequestHead? {
        var budget = maxHeaderSectionBytes
        let tooLarge = "request header section exceeds \(maxHeaderSectionBytes) bytes"
        var requestLine: [UInt8] = []
        // RFC 9112 §2.2: ignore empty lines received before the request line.
        while requestLine.isEmpty {
            guard let line = try stream.readLine(limit: budget, tooLong: tooLarge) else { return nil }
            budget -= line.count + 2
            requestLine = line
            guard budget > 0 else { throw .rejected(status: 400, message: tooLarge) }
        }
        var head = try parseRequestLine(requestLine, authorityForm: authorityForm)
        while true {
            guard let line = try stream.readLine(limit: budget, tooLong: tooLarge) else {
                throw .disconnected
            }
            budget -= line.count + 2
            if line.isEmpty { return head }
            let field = try parseHeaderLine(line)
            head.headers.add(field.name, field.value)
        }
    }

    /// Parses `METHOD SP request-target SP HTTP-version`; with `authorityForm`, any target of
    /// visible ASCII passes.
    static func parseRequestLine(_ line: [UInt8], authorityForm: Bool = false) throws(RequestError) -> RequestHead {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .rejected(status: 400, message: "malformed request line")
        }
        let method = parts[0], target = parts[1], version = parts[2]
        guard !method.isEmpty, method.allSatisfy(HTTPHeaderSyntax.isTokenByte) else {
            throw .rejected(status: 400, message: "malformed request method")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .rejected(status: 400, message: "malformed request target")
        }
        let targetText = String(decoding: target, as: UTF8.self)
        guard authorityForm || targetText.hasPrefix("/") || targetText == "*"
            || targetText.lowercased().hasPrefix("http://") || targetText.lowercased().hasPrefix("https://")
        else {
            throw .rejected(status: 400, message: "malformed request target")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        switch versionText {
        case "HTTP/1.1", "HTTP/1.0":
            break
        default:
            let digits = Array(version.dropFirst(5))
            if versionText.hasPrefix("HTTP/"), digits.count == 3, digits[1] == UInt8(ascii: "."),
               isDigit(digits[0]), isDigit(digits[2]) {
                throw .rejected(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are supported")
            }
            throw .rejected(status: 400, message: "malformed HTTP version")
        }
        return RequestHead(
            method: String(decoding: method, as: UTF8.self),
            target: targetText,
            version: versionText,
            headers: [:]
        )
    }

    /// Parses `field-name ":" OWS field-value OWS`.
    static func parseHeaderLine(_ line: [UInt8]) throws(RequestError) -> SandboxHeaders.Field {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .rejected(status: 400, message: "obsolete header line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[..<colon].allSatisfy(HTTPHeaderSyntax.isTokenByte)
        else {
            throw .rejected(status: 400, message: "malformed header field")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value.removeFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value.removeLast() }
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            throw .rejected(status: 400, message: "control character in header value")
        }
        return SandboxHeaders.Field(
            name: String(decoding: line[..<colon], as: UTF8.self),
            value: decodeFieldValue(value)
        )
    }

    /// Header values are mostly ASCII; valid UTF-8 is kept, anything else is read as Latin-1.
    static func decodeFieldValue(_ bytes: ArraySlice<UInt8>) -> String {
        if let text = String(bytes: bytes, encoding: .utf8) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    // MARK: Body

    /// Determines how the body is delimited (RFC 9112 §6.3).
    static func framing(for head: RequestHead) throws(RequestError) -> BodyFraming {
        let transferCodings = head.headers.values(for: "Transfer-Encoding")
        let lengths = head.headers.values(for: "Content-Length")
        if !transferCodings.isEmpty {
            guard lengths.isEmpty else {
                throw .rejected(status: 400, message: "both Transfer-Encoding and Content-Length present")
            }
            let codings = transferCodings.flatMap(listItems)
            guard codings.count == 1, codings[0].lowercased() == "chunked" else {
                throw .rejected(status: 400, message: "unsupported Transfer-Encoding (only chunked is accepted)")
            }
            return .chunked
        }
        guard !lengths.isEmpty else { return .none }
        let items = lengths.flatMap(listItems)
        guard let first = items.first, items.allSatisfy({ $0 == first }),
              first.utf8.allSatisfy(isDigit), first.utf8.count <= 19,
              let length = Int(first)
        else {
            throw .rejected(status: 400, message: "invalid Content-Length")
        }
        guard length <= maxBodyBytes else {
            throw .rejected(status: 400, message: "request body exceeds \(maxBodyBytes) bytes")
        }
        return length == 0 ? .none : .length(length)
    }

    /// Reads the body according to `framing`.
    static func readBody(_ framing: BodyFraming, from stream: SocketStream) throws(RequestError) -> Data {
        switch framing {
        case .none:
            return Data()
        case let .length(length):
            var body = Data(capacity: length)
            try stream.read(exactly: length, into: &body)
            return body
        case .chunked:
            return try readChunkedBody(from: stream)
        }
    }

    private static func readChunkedBody(from stream: SocketStream) throws(RequestError) -> Data {
        var body = Data()
        while true {
            guard let line = try stream.readLine(limit: 4096, tooLong: "chunk size line too long") else {
                throw .disconnected
            }
            guard let size = parseChunkSize(line) else {
                throw .rejected(status: 400, message: "invalid chunk size")
            }
            if size == 0 { break }
            guard size <= maxBodyBytes - body.count else {
                throw .rejected(status: 400, message: "request body exceeds \(maxBodyBytes) bytes")
            }
            try stream.read(exactly: size, into: &body)
            guard let terminator = try stream.readLine(limit: 2, tooLong: "missing CRLF after chunk data"),
                  terminator.isEmpty
            else {
                throw .rejected(status: 400, message: "missing CRLF after chunk data")
            }
        }
        // Trailer section: header-like lines up to an empty line; parsed for validity, dropped.
        var budget = maxHeaderSectionBytes
        while true {
            guard let line = try stream.readLine(limit: budget, tooLong: "trailer section too large") else {
                throw .disconnected
            }
            budget -= line.count + 2
            if line.isEmpty { return body }
            _ = try parseHeaderLine(line)
        }
    }

    /// Parses `chunk-size [ chunk-ext ]` (the line without its CRLF), by the package's one rule.
    static func parseChunkSize(_ line: [UInt8]) -> Int? {
        HTTPHeaderSyntax.chunkSize(line).map { Int($0) }
    }

    // MARK: Helpers

    /// Whether the comma-separated header `name` contains `token` (case-insensitive).
    static func hasToken(_ token: String, in headers: SandboxHeaders, name: String) -> Bool {
        headers.values(for: name).flatMap(listItems).contains { SandboxHeaders.matches($0, token) }
    }

    /// Splits a comma-separated header value into trimmed, non-empty items.
    static func listItems(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
