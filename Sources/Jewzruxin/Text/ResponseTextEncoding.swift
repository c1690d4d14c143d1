import Foundation

/// How `HTTPResponse.text` picks an encoding and decodes the body.
///
/// The rule, in order:
/// 1. A byte order mark at the start of the body wins (WHATWG: a BOM overrides the header).
/// 2. The `charset` of the Content-Type header, when it is a known WHATWG label (see
///    `String.Encoding.init(charsetLabel:)`). The header is read as browsers read it
///    (``MediaType/init(contentTypeHeader:)``), so repeated or comma-joined fields work.
/// 3. A `text/*` type without a `charset`: ISO-8859-1, the HTTP/1.1 default (RFC 2616
///    §3.7.1), as `.isoLatin1` (each byte is the code point of the same value).
/// 4. Otherwise (no header, no charset on a non-text type, an unknown label): the body is
///    sniffed — valid UTF-8 gives UTF-8 (so an empty body or JSON without a charset is UTF-8),
///    a clear UTF-16 pattern gives UTF-16, anything else windows-1252.
enum ResponseTextEncoding {
    /// The encoding for `response.text`: charset from Content-Type if it names a known encoding;
    /// `text/*` without charset → ISO-8859-1 (RFC 2616 §3.7.1; return `.isoLatin1`);
    /// otherwise sniff the body (BOM, valid UTF-8, …) → UTF-8 default.
    ///
    /// - Parameters:
    ///   - contentType: The Content-Type header value, `nil` when absent.
    ///   - body: The response body.
    /// - Returns: The encoding to pass to ``decode(_:encoding:)``.
    static func encoding(contentType: String?, body: Data) -> String.Encoding {
        if let bom = EncodingSniffer.byteOrderMark(of: body) { return bom.encoding }
        if let contentType, let mediaType = MediaType(contentTypeHeader: contentType) {
            if let charset = mediaType.charset {
                if let encoding = String.Encoding(charsetLabel: charset) { return encoding }
            } else if mediaType.type == "text" {
                return .isoLatin1
            }
        }
        return EncodingSniffer.sniffEncoding(of: body)
    }

    /// Decodes body with encoding; BOM stripped when it matches; never crashes; nil only when
    /// the bytes can't be decoded at all.
    ///
    /// Invalid byte sequences become U+FFFD for every encoding of the WHATWG Encoding Standard
    /// (see ``TextDecoding``); other encodings are left to Foundation, which may return `nil`.
    ///
    /// - Parameters:
    ///   - body: The response body.
    ///   - encoding: Its encoding, usually from ``encoding(contentType:body:)``.
    /// - Returns: The text without a leading byte order mark of `encoding`.
    static func decode(_ body: Data, encoding: String.Encoding) -> String? {
        var body = body
        if let bom = EncodingSniffer.byteOrderMark(of: body), bomMatches(bom.encoding, encoding) {
            body = body.dropFirst(bom.length)
        }
        return TextDecoding.decode(body, encoding: encoding)
    }

    /// Whether a BOM of `bomEncoding` belongs to text in `encoding` (and so is not content).
    private static func bomMatches(_ bomEncoding: String.Encoding, _ encoding: String.Encoding) -> Bool {
        switch TextDecoding.Decoder(encoding) {
        case .utf8: return bomEncoding == .utf8
        case .utf16(let bigEndian):
            switch bigEndian {
            case .some(true): return bomEncoding == .utf16BigEndian
            case .some(false): return bomEncoding == .utf16LittleEndian
            case .none: return false  // `.utf16` reads and removes the BOM itself
            }
        default:
            return false
        }
    }
}
