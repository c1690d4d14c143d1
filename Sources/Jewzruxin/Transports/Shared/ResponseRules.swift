import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The rules a response must keep on every transport of the package (issue 29): what its field lines
// may hold, how its body is framed, how much head a server may send. The native transport reads the
// bytes itself and applies them as it decodes; the curl transport applies them to the lines libcurl
// hands over; the URLSession transport to the head FoundationNetworking parsed. Each reports a fault
// as `URLError(.badServerResponse)` with the same description, from ``ResponseDecodingError``.

/// Why a response could not be read.
enum ResponseDecodingError: Error, Equatable, CustomStringConvertible {
    case badStatusLine
    /// A field line without a colon, a name that is not a token (whitespace before the colon
    /// included), a value with a CR, LF or NUL, or a line folded onto nothing.
    case badHeaderField
    /// The head, with the interim heads and empty lines before it, passed the limit.
    case headerTooLarge(limit: Int)
    case badContentLength
    /// A transfer coding other than a final `chunked`.
    case badTransferEncoding
    /// A `101 Switching Protocols` to a request that asked for no upgrade.
    case unsolicitedUpgrade
    case badChunk
    case bodyTruncated
    case unexpectedEnd

    var description: String {
        switch self {
        case .badStatusLine: return "The response's status line is malformed."
        case .badHeaderField: return "A response header field is malformed."
        case .headerTooLarge(let limit):
            return "The response's header section is larger than \(limit) bytes (interim responses and empty lines before it included)."
        case .badContentLength: return "The response's Content-Length is invalid or contradicts itself."
        case .badTransferEncoding:
            return "The response's Transfer-Encoding is not chunked alone: a transfer coding the client did not ask for (RFC 9112 §6.1)."
        case .unsolicitedUpgrade: return "The server switched protocols (101) though the request asked for no upgrade."
        case .badChunk: return "The response's chunked body is malformed."
        case .bodyTruncated: return "The connection closed before the end of the response body."
        case .unexpectedEnd: return "The connection closed before a complete response arrived."
        }
    }

    /// The error a transport reports: `badServerResponse`, or `networkConnectionLost` for a
    /// response the connection's end cut short.
    func urlError(for url: URL?) -> URLError {
        let code: URLError.Code = switch self {
        case .bodyTruncated, .unexpectedEnd: .networkConnectionLost
        default: .badServerResponse
        }
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code, userInfo: userInfo)
    }
}

/// The rules of a response's head and framing that every transport applies (RFC 9110 §5, RFC 9112
/// §2–7).
enum ResponseRules {
    /// The most bytes of head a response may take, by default: its status line and fields, and the
    /// interim (1xx) heads and empty lines before it, so that a server streaming those for ever is
    /// refused once it passed 64 KiB.
    static let defaultHeadLimit = 65_536

    /// How a response's body ends.
    enum Framing: Equatable {
        /// It has none.
        case none
        case length(Int64)
        case chunked
        /// At the end of the connection.
        case untilClose
    }

    /// Checks a field line, its line ending taken off, and splits it: the name (a token, right
    /// before the colon) and the value without the whitespace around it.
    ///
    /// - Throws: ``ResponseDecodingError/badHeaderField`` for no colon, an empty name, a byte of the
    ///   name that is not a `tchar` (so whitespace before the colon too), or a CR, LF or NUL in the
    ///   value (RFC 9110 §5.5: the response is refused, never handed on).
    static func field<Line: BidirectionalCollection<UInt8>>(
        _ line: Line
    ) throws(ResponseDecodingError) -> (name: Line.SubSequence, value: Line.SubSequence) {
        guard let colon = line.firstIndex(of: 0x3A), colon != line.startIndex else { throw .badHeaderField }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(HTTPHeaderSyntax.isTokenByte) else { throw .badHeaderField }
        let value = line[line.index(after: colon)...]
        guard isValidValue(value) else { throw .badHeaderField }
        return (name, HTTPHeaderSyntax.trimmed(value))
    }

    /// `value` with a folded line (obs-fold: it begins with whitespace) joined on: a user agent
    /// replaces the fold with a space (RFC 9112 §5.2), and an empty fold adds nothing.
    ///
    /// - Throws: ``ResponseDecodingError/badHeaderField`` for a CR, LF or NUL in the line.
    static func unfolding<Line: BidirectionalCollection<UInt8>>(
        _ value: String, _ line: Line
    ) throws(ResponseDecodingError) -> String {
        guard isValidValue(line) else { throw .badHeaderField }
        let more = HTTPHeaderSyntax.trimmed(line)
        guard !more.isEmpty else { return value }
        let rest = String(decoding: more, as: UTF8.self)
        return value.isEmpty ? rest : value + " " + rest
    }

    /// Whether a field value (or a reason phrase) has no CR, LF or NUL.
    static func isValidValue(_ value: some Sequence<UInt8>) -> Bool {
        value.allSatisfy { $0 != 0x00 && $0 != 0x0D && $0 != 0x0A }
    }

    /// Checks a field already split by a parser that is not ours (URLSession's).
    static func check(name: String, value: String) throws(ResponseDecodingError) {
        guard !name.isEmpty, name.utf8.allSatisfy(HTTPHeaderSyntax.isTokenByte), isValidValue(value.utf8) else { throw .badHeaderField }
    }

    /// Whether `request` asks to switch protocols: it has an `Upgrade` field (RFC 9110 §7.8).
    static func asksForUpgrade(_ request: HTTPRequest) -> Bool {
        asksForUpgrade(upgrade: request.value(forHTTPHeaderField: "Upgrade"))
    }

    /// Whether `request` asks to switch protocols, as URLSession sends it.
    static func asksForUpgrade(_ request: URLRequest) -> Bool {
        asksForUpgrade(upgrade: request.value(forHTTPHeaderField: "Upgrade"))
    }

    private static func asksForUpgrade(upgrade: String?) -> Bool {
        guard let upgrade else { return false }
        return !HTTPHeaderSyntax.trimmed(upgrade.utf8).isEmpty
    }

    /// How the body of a final response is framed, and whether its connection may carry another
    /// response after it.
    ///
    /// A response to HEAD, a 204, a 304 and an asked-for 101 have no body, whatever their fields say.
    /// Otherwise `Transfer-Encoding` must be `chunked`, once and last (RFC 9112 §6.1, §7: a client
    /// that sends no `TE` accepts no other coding), and takes precedence over `Content-Length`
    /// (the connection is then not reused: both at once may be an attempt at smuggling);
    /// `Content-Length` must be one decimal length, repeated at most (RFC 9112 §6.3); without
    /// either the body runs to the end of the connection.
    ///
    /// - Parameters:
    ///   - status: The final status, 101 or 200 and above.
    ///   - http10: Whether the response is HTTP/1.0 (its connection is kept only when it says so).
    ///   - fields: The fields, in order, names as received.
    ///   - isHeadRequest: Whether the request was a HEAD.
    ///   - upgradeRequested: Whether the request asked to switch protocols.
    /// - Throws: ``ResponseDecodingError`` for an unsolicited 101, a transfer coding other than a
    ///   final `chunked`, or a `Content-Length` that is invalid or contradicts itself.
    static func framing(
        status: Int, http10: Bool, fields: [(name: String, value: String)], isHeadRequest: Bool, upgradeRequested: Bool
    ) throws(ResponseDecodingError) -> (framing: Framing, keepAlive: Bool) {
        if status == 101, !upgradeRequested { throw .unsolicitedUpgrade }
        // One pass over the fields for the three that decide the framing, reading their list items
        // in place (no array per field: this runs for every response).
        var closes = false
        var asksKeepAlive = false
        var sawTransferEncoding = false
        var codings = 0
        var onlyCodingIsChunked = false
        var sawContentLength = false
        var length: Int64?
        var badLength = false
        for (name, value) in fields {
            if HTTPHeaderSyntax.equalIgnoringASCIICase(name.utf8, "Content-Length".utf8) {
                // Each item digits only, and all the same length (RFC 9112 §6.3); an empty value is
                // an empty item: invalid.
                sawContentLength = true
                forEachItem(of: value, keepingEmpty: true) { item in
                    guard let parsed = decimal(item), length == nil || length == parsed else {
                        badLength = true
                        return
                    }
                    length = parsed
                }
            } else if HTTPHeaderSyntax.equalIgnoringASCIICase(name.utf8, "Transfer-Encoding".utf8) {
                sawTransferEncoding = true
                forEachItem(of: value) { item in
                    codings += 1
                    onlyCodingIsChunked = codings == 1 && HTTPHeaderSyntax.equalIgnoringASCIICase(item, "chunked".utf8)
                }
            } else if HTTPHeaderSyntax.equalIgnoringASCIICase(name.utf8, "Connection".utf8) {
                forEachItem(of: value) { item in
                    if HTTPHeaderSyntax.equalIgnoringASCIICase(item, "close".utf8) { closes = true }
                    if HTTPHeaderSyntax.equalIgnoringASCIICase(item, "keep-alive".utf8) { asksKeepAlive = true }
                }
            }
        }
        let keepAlive = closes ? false : http10 ? asksKeepAlive : true
        if isHeadRequest || status == 204 || status == 304 || status == 101 {
            return (.none, status == 101 ? false : keepAlive)
        }
        if sawTransferEncoding {
            // `chunked` once, last, and nothing else: the client sends no TE, so accepts no other
            // coding, and a body it can't undo must not reach the application as if it were plain.
            guard codings == 1, onlyCodingIsChunked else { throw .badTransferEncoding }
            // Both framings at once may be an attempt at smuggling: don't trust the connection again.
            return (.chunked, keepAlive && !sawContentLength)
        }
        guard sawContentLength else { return (.untilClose, false) }
        guard !badLength, let length else { throw .badContentLength }
        return (.length(length), keepAlive)
    }

    /// Calls `body` with each list item of `value` (`HTTPHeaderSyntax.listItems`),
    /// read over the value's bytes: this runs for every response.
    private static func forEachItem(
        of value: String, keepingEmpty: Bool = false, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void
    ) {
        var value = value
        value.withUTF8 { bytes in
            for item in HTTPHeaderSyntax.listItems(bytes, keepingEmpty: keepingEmpty) { body(item) }
        }
    }

    /// The value of a run of decimal digits: `nil` unless there is at least one, and no more than an
    /// `Int64` holds.
    private static func decimal(_ digits: some Collection<UInt8>) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var parsed: Int64 = 0
        for digit in digits {
            guard (0x30...0x39).contains(digit) else { return nil }
            let (shifted, overflow) = parsed.multipliedReportingOverflow(by: 10)
            guard !overflow, shifted <= Int64.max - Int64(digit - 0x30) else { return nil }
            parsed = shifted + Int64(digit - 0x30)
        }
        return parsed
    }
}

extension ResponseRules {
    /// The fault behind an error libcurl reported for a response it refused itself, read from its
    /// message (libcurl 7.x and 8.x wording); `nil` for any other error.
    ///
    /// The curl transport, and URLSession on Linux (FoundationNetworking runs libcurl, and reports
    /// its message behind code -1), report these as the native transport does: the same
    /// `badServerResponse` and description for the same response, whoever found the fault.
    static func fault(fromLibcurlMessage message: String) -> ResponseDecodingError? {
        let unfoldableLineMessage = "A libcurl function was given a bad argument"
        if message.hasPrefix("Nul byte in header") || message.hasPrefix("Header without colon")
            || message.hasPrefix("Failed writing header") {
            // The last: FoundationNetworking's header callback refused a line it could not parse.
            return .badHeaderField
        }
        if message.hasPrefix("Invalid Content-Length") { return .badContentLength }
        if message.contains("chunked-encoding") { return .badChunk }
        if message.hasPrefix("Received HTTP/0.9 when not allowed") || message.hasPrefix("Unsupported HTTP version")
            || message.hasPrefix("Unsupported response code") {
            return .badStatusLine
        }
        if message.hasPrefix(unfoldableLineMessage) {
            // libcurl's header store refuses a folded line with no field before it (7.x); nothing
            // else in a transfer under way gives this code.
            return .badHeaderField
        }
        if message.hasPrefix("Too large response headers") {
            // "Too large response headers: 307209 > 307200": the limit is the last number.
            let limit = message.split(separator: " ").last.flatMap { Int($0) } ?? 0
            return .headerTooLarge(limit: limit)
        }
        return nil
    }
}
