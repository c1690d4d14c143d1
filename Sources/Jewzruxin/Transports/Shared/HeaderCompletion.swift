import Foundation
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The header fields a request goes out with, decided in one place for every transport of the
/// package (issue 40): what an event monitor hears in `cycle(_:willSend:)` is what the transport
/// sends.
///
/// The request's own fields come first and always win. Where the request has no field of the name,
/// a transport adds, in this order: the session's additional headers; `Host`; `Authorization: Basic`
/// from the URL's user and password (curl's rule; not beside NTLM or Negotiate credentials, whose
/// handshake is the connection's); the stored cookies, when the request handles cookies; an
/// `Accept-Encoding` of the codings the transport decodes; `User-Agent: Jewzruxin`; `Accept: */*`;
/// and the fields the transport's library adds and can't be told not to (``libraryFields``). Then
/// the framing of the body (``BodyFraming``): `Content-Length`, or `Transfer-Encoding: chunked`.
/// The request's own `Connection`, `Keep-Alive`, `Content-Length` and `Transfer-Encoding` are
/// dropped (a `Transfer-Encoding` naming `chunked` asks for a chunked body): the transport frames
/// the body and runs the connection.
///
/// Each transport sends the completed fields as they are and adds none: the native transport writes
/// them, Host first; the curl transport hands them to libcurl, but the framing, which libcurl writes
/// from the body's length (the same rule); the URLSession transport hands them to URLSession, which
/// then has no default of its own left to add (but its library's, here).
struct HeaderCompletion: Sendable {
    /// Which requests without a body still announce an empty one (`Content-Length: 0`).
    enum EmptyBodyRule: Sendable {
        /// `POST`, `PUT` and `PATCH`, whose semantics anticipate content (RFC 9110 §8.6): the curl
        /// and native transports.
        case methodsWithContent
        /// Every method but `GET` and `HEAD`: FoundationNetworking's, which can't be told otherwise.
        case allButGetAndHead
    }

    /// The length of the body a transport sends.
    enum BodyLength: Equatable, Sendable {
        /// No body.
        case none
        /// A body of this many bytes.
        case known(Int64)
        /// A body whose length is known only once it has been read: sent chunked.
        case unknown
    }

    /// How a body goes on the wire: the one rule of every transport.
    enum BodyFraming: Equatable, Sendable {
        case none
        case length(Int64)
        case chunked

        /// The framing of a `method` request whose body is `body`: none for a `HEAD`; a chunked
        /// body when its length is unknown or the request asked for it (`chunkedAsked`), else its
        /// length; with no body, `Content-Length: 0` for the methods of `emptyBody`.
        init(method: String, body: BodyLength, chunkedAsked: Bool, emptyBody: EmptyBodyRule) {
            if HTTPHeaderSyntax.equalIgnoringASCIICase(method, "HEAD") {
                self = .none
                return
            }
            switch body {
            case .none:
                let announces = switch emptyBody {
                case .methodsWithContent: ["POST", "PUT", "PATCH"].contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, method) }
                case .allButGetAndHead: !HTTPHeaderSyntax.equalIgnoringASCIICase(method, "GET")
                }
                self = announces ? .length(0) : .none
            case .known(let length): self = chunkedAsked ? .chunked : .length(length)
            case .unknown: self = .chunked
            }
        }
    }

    /// The `User-Agent` of a request that names none.
    static let userAgent = "Jewzruxin"

    /// The configuration's additional headers, in name order.
    let additionalHeaders: [(String, String)]
    /// The jar whose cookies go with each request that handles cookies; `nil` for none.
    let cookies: TransportCookieJar?
    /// The `Accept-Encoding` of the codings the transport decodes; `nil` when it decodes none.
    let acceptEncoding: String?
    /// Fields the transport's library adds to a request that has none of the name, and can't be
    /// told not to: here so that they are shown too (FoundationNetworking's `Connection` and
    /// `Accept-Language`).
    let libraryFields: [(String, String)]
    /// Which bodiless requests announce an empty body.
    let emptyBody: EmptyBodyRule

    /// - Parameters:
    ///   - configuration: The session's configuration: its additional headers.
    ///   - cookies: The jar the transport reads and stores cookies with.
    ///   - acceptEncoding: The codings the transport decodes, as an `Accept-Encoding` value.
    ///   - libraryFields: What the transport's library adds that it can't be told not to.
    ///   - emptyBody: Which bodiless requests announce an empty body.
    init(
        _ configuration: HTTPSession.Configuration, cookies: TransportCookieJar?, acceptEncoding: String?,
        libraryFields: [(String, String)] = [], emptyBody: EmptyBodyRule = .methodsWithContent
    ) {
        additionalHeaders = configuration.httpAdditionalHeaders.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
        self.cookies = cookies
        self.acceptEncoding = acceptEncoding
        self.libraryFields = libraryFields
        self.emptyBody = emptyBody
    }

    /// Completes the header fields of `request`, whose body is `body` (``bodyLength(of:upload:)``),
    /// as the transport will send them, into ``HTTPRequest/completedFields``. Completing a completed
    /// request again decides them again, from its own fields.
    func complete(_ request: inout HTTPRequest, body: BodyLength) {
        let own = request.headerFields
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(own.count + additionalHeaders.count + libraryFields.count + 8)
        var present = Names()
        var chunkedAsked = false
        // The request's own first, then the session's: the first of a name wins.
        for (name, value) in own {
            switch Self.classify(name) {
            case .transferEncoding:
                chunkedAsked = chunkedAsked || HTTPHeaderSyntax.listItems(value).contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "chunked".utf8) }
            case .framing:
                break
            case let known:
                present.formUnion(known)
                fields.append((name, value))
            }
        }
        for (name, value) in additionalHeaders where !fields.contains(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, name) }) {
            let known = Self.classify(name)
            guard known != .transferEncoding, known != .framing else { continue }
            present.formUnion(known)
            fields.append((name, value))
        }
        let url = request.url
        if !present.contains(.host), let url, let host = Self.hostField(of: url) { fields.append(("Host", host)) }
        if !present.contains(.authorization), request.connectionCredentials.isEmpty, let url, let basic = Self.basicAuthorization(in: url) {
            fields.append(("Authorization", basic))
        }
        if !present.contains(.cookie), request.httpShouldHandleCookies, let url, let cookies, let value = cookies.header(for: url) {
            fields.append(("Cookie", value))
        }
        if !present.contains(.acceptEncoding), let acceptEncoding { fields.append(("Accept-Encoding", acceptEncoding)) }
        if !present.contains(.userAgent) { fields.append(("User-Agent", Self.userAgent)) }
        if !present.contains(.accept) { fields.append(("Accept", "*/*")) }
        for (name, value) in libraryFields where !fields.contains(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, name) }) {
            fields.append((name, value))
        }
        switch BodyFraming(method: request.method.rawValue, body: body, chunkedAsked: chunkedAsked, emptyBody: emptyBody) {
        case .none: break
        case .length(let length): fields.append(("Content-Length", String(length)))
        case .chunked: fields.append(("Transfer-Encoding", "chunked"))
        }
        // Beside the URLRequest, in name order so that a request's head is the same every time.
        fields.sort { $0.name < $1.name }
        request.completedFields = fields
    }

    /// The length of the body a transport sends for `request`: `upload`'s, else the request's
    /// own data. A file that can't be read, or a form that can't be planned, has none here: its
    /// transfer fails before anything is sent.
    static func bodyLength(of request: HTTPRequest, upload: HTTPCycle.UploadSource?) -> BodyLength {
        switch upload {
        case .data(let data)?:
            return .known(Int64(data.count))
        case .file(let url)?:
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else { return .none }
            return .known(size.int64Value)
        case .multipart(let form)?:
            guard let plan = try? form.plan() else { return .none }
            return plan.length.map(BodyLength.known) ?? .unknown
        case .stream(let stream)?:
            return stream.length.map(BodyLength.known) ?? .unknown
        case nil:
            return (request.data ?? request.httpBody).map { .known(Int64($0.count)) } ?? .none
        }
    }

    /// The `Host` value of `url`: its host, an IPv6 address in brackets without its zone, and its
    /// port unless the scheme's default — what libcurl writes. Read from the URL's string, as it
    /// was given: `URL.host` and `URL.port` parse and decode it again at each call, about ten
    /// thousand instructions a request.
    static func hostField(of url: URL) -> String? {
        var string = url.absoluteString
        // Bytes, not Characters: the authority is ASCII, and a Character costs a grapheme break.
        return string.withUTF8 { bytes -> String? in
            let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
            guard let schemeEnd = bytes.firstIndex(of: colon), schemeEnd + 2 < bytes.count,
                  bytes[schemeEnd + 1] == slash, bytes[schemeEnd + 2] == slash
            else { return nil }
            let start = schemeEnd + 3
            var end = start
            while end < bytes.count, bytes[end] != slash, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
            var hostStart = start
            for index in start..<end where bytes[index] == UInt8(ascii: "@") { hostStart = index + 1 }
            var hostEnd = end, portStart = end
            if hostStart < end, bytes[hostStart] == UInt8(ascii: "[") {
                guard let close = bytes[hostStart..<end].firstIndex(of: UInt8(ascii: "]")) else { return nil }
                hostEnd = close + 1
                if hostEnd < end, bytes[hostEnd] == colon { portStart = hostEnd + 1 }
            } else if let portColon = bytes[hostStart..<end].lastIndex(of: colon) {
                hostEnd = portColon
                portStart = portColon + 1
            }
            guard hostEnd > hostStart else { return nil }
            var host = String(decoding: UnsafeBufferPointer(rebasing: bytes[hostStart..<hostEnd]), as: UTF8.self)
            // A zone (`%25eth0`) names an interface of this host: not the server's business.
            if bytes[hostStart] == UInt8(ascii: "["), let zone = bytes[hostStart..<hostEnd].firstIndex(of: UInt8(ascii: "%")) {
                host = String(decoding: UnsafeBufferPointer(rebasing: bytes[hostStart..<zone]), as: UTF8.self) + "]"
            }
            guard host != "[]" else { return nil }
            var port = 0
            for index in portStart..<end {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10, port < 100_000 else { return host }
                port = port * 10 + Int(digit)
            }
            let isHTTPS = schemeEnd == 5 && HTTPHeaderSyntax.equalIgnoringASCIICase(UnsafeBufferPointer(rebasing: bytes[0..<5]), "https".utf8)
            guard portStart < end, port != (isHTTPS ? 443 : 80) else { return host }
            return host + ":" + String(port)
        }
    }

    /// `Basic` credentials from the user and password of `url`, percent-decoded, as curl sends them
    /// (a user alone has an empty password); `nil` when the URL has neither.
    static func basicAuthorization(in url: URL) -> String? {
        guard url.user != nil || url.password != nil,
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        let pair = (components.user ?? "") + ":" + (components.password ?? "")
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// The names the completion looks for, as a set.
    private struct Names: OptionSet {
        let rawValue: UInt8
        static let host = Names(rawValue: 1 << 0)
        static let authorization = Names(rawValue: 1 << 1)
        static let cookie = Names(rawValue: 1 << 2)
        static let acceptEncoding = Names(rawValue: 1 << 3)
        static let userAgent = Names(rawValue: 1 << 4)
        static let accept = Names(rawValue: 1 << 5)
        /// `Content-Length`, `Connection`, `Keep-Alive`: the transport's alone.
        static let framing = Names(rawValue: 1 << 6)
        static let transferEncoding = Names(rawValue: 1 << 7)
    }

    /// Which of the names the completion looks for `name` is; empty for any other.
    private static func classify(_ name: String) -> Names {
        // Lengths first: most names are settled without comparing a byte.
        func matches(_ known: String) -> Bool { HTTPHeaderSyntax.equalIgnoringASCIICase(name, known) }
        switch name.utf8.count {
        case 4 where matches("Host"): return .host
        case 6 where matches("Cookie"): return .cookie
        case 6 where matches("Accept"): return .accept
        case 10 where matches("User-Agent"): return .userAgent
        case 10 where matches("Connection") || matches("Keep-Alive"): return .framing
        case 13 where matches("Authorization"): return .authorization
        case 14 where matches("Content-Length"): return .framing
        case 15 where matches("Accept-Encoding"): return .acceptEncoding
        case 17 where matches("Transfer-Encoding"): return .transferEncoding
        default: return []
        }
    }

    /// A field of a completed request that states its framing, which a transport writing the
    /// framing itself leaves out.
    enum FramingField {
        case contentLength
        /// `chunked`: the body goes chunked, whatever its length.
        case transferEncoding
    }

    /// What the field `name` of a completed request says of the framing; `nil` for a field sent
    /// as it is.
    static func framingField(_ name: String) -> FramingField? {
        switch name.utf8.count {
        case 14 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Content-Length"): .contentLength
        case 17 where HTTPHeaderSyntax.equalIgnoringASCIICase(name, "Transfer-Encoding"): .transferEncoding
        default: nil
        }
    }
}
