import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The response half of a cycle: the `HTTPURLResponse`, the body received and the model made from it.
///
/// Response processors turn ``data`` into ``object``. ``text`` decodes ``data`` with the charset the
/// response names, or the one ``textReadEncoding`` forces.
public struct HTTPResponse: Sendable {
    /// Where the status line and headers come from.
    enum Head: Sendable {
        /// URLSession's response, or one made by a caller.
        case foundation(HTTPURLResponse)
        /// A head a transport parsed; its `HTTPURLResponse` is made when first asked for.
        case parsed(HTTPResponseHead)
    }

    /// The status line and headers, `nil` until they have arrived.
    var head: Head? {
        get {
            if let parsedHead { return .parsed(parsedHead) }
            return foundationHead.map(Head.foundation)
        }
        set {
            switch newValue {
            case .foundation(let response)?: (foundationHead, parsedHead) = (response, nil)
            case .parsed(let parsed)?: (foundationHead, parsedHead) = (nil, parsed)
            case nil: (foundationHead, parsedHead) = (nil, nil)
            }
        }
    }

    // ``head`` is stored as two references rather than as the enum: Swift keeps an enum's case in
    // the spare bits of a class reference, so a stored `.parsed(head)` is not the head's address,
    // and LeakSanitizer, which can't follow it, reports every head of a response alive at exit as
    // leaked (Scripts/lsan-repro/enum-spare-bits.swift).
    private var foundationHead: HTTPURLResponse?
    private var parsedHead: HTTPResponseHead?

    /// A challenge of this response the transport had credentials for and could not answer.
    var unansweredChallenge: UnansweredChallenge? { parsedHead?.unansweredChallenge }

    /// The underlying Foundation response, `nil` until the status line and headers have arrived.
    ///
    /// For a head a transport parsed (``HTTPResponseHead``) it is made the first time it is read: the status, the URL and the
    /// headers are read without it.
    public var core: HTTPURLResponse? {
        get {
            switch head {
            case .foundation(let response): return response
            case .parsed(let parsed): return parsed.foundationResponse
            case nil: return nil
            }
        }
        set { head = newValue.map(Head.foundation) }
    }
    /// The body received so far (all of it once the cycle has finished).
    public var data: Data
    /// The model the response processors made from ``data`` (a ``JSON`` value for JSON, a string…).
    public var object: (any Sendable)?
    /// What the cycle's content handler made of the body: `Data` for the default ``Accumulator``, a
    /// ``JSON`` value for a ``JSONParser``, `nil` for a ``FileWriter``… When a conversion failed
    /// halfway, what it obtained before (the raw bytes for JSON).
    public var content: (any Sendable)?
    /// Why the run that got this failed response stopped retrying (see ``HTTPError/retrySummary``).
    public internal(set) var retrySummary: HTTPRetrySummary? {
        get { retried?.value }
        set { retried = newValue.map(Boxed.init) }
    }

    /// ``retrySummary`` behind one reference, as ``metrics`` are: a failed run's only.
    private var retried: Boxed<HTTPRetrySummary>?
    /// An encoding that overrides the one found from the headers and the body when reading ``text``.
    public var textReadEncoding: String.Encoding?
    /// How the attempt that got this response went on the wire, when its transport measures it
    /// (the curl transport does).
    public var metrics: HTTPTransferMetrics? {
        get { measured?.value }
        set { measured = newValue.map(Boxed.init) }
    }

    /// ``metrics`` behind one reference: they take some 170 bytes, only some transports measure
    /// them, and a response is copied several times on its way to the handlers (the engine's
    /// lock, the fluent layer's chain), each copy moving every stored field.
    private var measured: Boxed<HTTPTransferMetrics>?

    /// A value kept behind one reference: what only some responses have, so that the others'
    /// copies stay small.
    private final class Boxed<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Takes what a run ended with from `other` (head, body, object, content and metrics), keeping
    /// what the caller set on this response (``textReadEncoding``).
    mutating func takeOutcome(of other: HTTPResponse) {
        (foundationHead, parsedHead) = (other.foundationHead, other.parsedHead)
        data = other.data
        object = other.object
        content = other.content
        measured = other.measured
        retried = other.retried
    }

    /// Creates an empty response, or one from a Foundation response and body.
    public init(core: HTTPURLResponse? = nil, data: Data = Data()) {
        self.foundationHead = core
        self.data = data
    }

    /// Creates a response from a head a transport parsed, and a body.
    ///
    /// - Parameters:
    ///   - head: The status line and header fields.
    ///   - data: The body.
    public init(head: HTTPResponseHead, data: Data = Data()) {
        self.parsedHead = head
        self.data = data
    }

    /// Whether the status line and headers have arrived.
    package var hasHead: Bool { head != nil }

    /// The status code, or `nil` before a response has arrived.
    public var statusCode: Int? {
        switch head {
        case .foundation(let response): return response.statusCode
        case .parsed(let parsed): return parsed.statusCode
        case nil: return nil
        }
    }

    /// The URL the response came from (after redirects).
    public var url: URL? {
        switch head {
        case .foundation(let response): return response.url
        case .parsed(let parsed): return parsed.url
        case nil: return nil
        }
    }

    /// The body size `Content-Length` announces, `-1` when it is absent or not a number (as
    /// `URLResponse.expectedContentLength`).
    public var expectedContentLength: Int64 {
        switch head {
        case .foundation(let response): return response.expectedContentLength
        case .parsed: return value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        case nil: return -1
        }
    }

    /// How many bytes to reserve for a body whose `Content-Length` is `expected`
    /// (``expectedContentLength``): all of them up to 16 MiB; `nil` when it is absent. It is only a hint (L13: with a `Content-Encoding` it counts encoded
    /// bytes), and a bounded one, so a server can't make the client reserve what it won't send.
    static func bodyCapacityHint(expectedLength expected: Int64) -> Int? {
        expected > 0 && expected <= 16 << 20 ? Int(expected) : nil
    }

    /// The response headers as Foundation reports them.
    ///
    /// Keys keep the server's spelling and repeated headers are joined with `", "`; use
    /// ``value(forHTTPHeaderField:)`` for a case-insensitive lookup.
    public var headers: [String: String] {
        guard let fields = core?.allHeaderFields else { return [:] }
        var headers: [String: String] = [:]
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            headers[String(describing: name)] = String(describing: value)
        }
        return headers
    }

    /// The header fields in the order they arrived, each repeat a field of its own (two
    /// `Set-Cookie` lines stay two), names as the server spelled them; empty until the head has
    /// arrived.
    ///
    /// On the curl and native transports these are the fields as received. URLSession gives only a
    /// dictionary with repeats joined: there each name comes once, sorted.
    public var headerFields: [HTTPResponseHead.Field] {
        if let parsedHead { return parsedHead.fields }
        guard let fields = core?.allHeaderFields else { return [] }
        return fields.map { HTTPResponseHead.Field(name: String(describing: $0.key), value: String(describing: $0.value)) }
            .sorted { $0.name < $1.name }
    }

    /// The value of a response header, the name matched case-insensitively; repeated headers come
    /// joined with `", "`.
    ///
    /// FoundationNetworking keeps header names as the server spelled them, so a header repeated as
    /// `X-Tag` and `x-tag` sits under two keys and its own lookup returns only one of them; here every
    /// spelling counts (the groups are joined in the order of their spellings).
    public func value(forHTTPHeaderField field: String) -> String? {
        if case .parsed(let parsed) = head {
            // Repeated fields joined in the order received, as in `core`.
            return parsed.value(forHTTPHeaderField: field)
        }
        guard let fields = core?.allHeaderFields else { return nil }
        var matches: [(name: String, value: String)] = []
        for (name, value) in fields {
            let name = String(describing: name)
            if name.caseInsensitiveCompare(field) == .orderedSame {
                matches.append((name, String(describing: value)))
            }
        }
        switch matches.count {
        case 0: return nil
        case 1: return matches[0].value
        default: return matches.sorted { $0.name < $1.name }.map(\.value).joined(separator: ", ")
        }
    }

    /// The encoding ``text`` is decoded with when ``textReadEncoding`` is `nil`.
    ///
    /// The charset named by `Content-Type` if it is a known label; `text/*` without a charset means
    /// ISO-8859-1 (RFC 2616 §3.7.1); otherwise the body is examined (byte order mark, valid UTF-8) and
    /// UTF-8 is the default.
    public var textEncoding: String.Encoding {
        ResponseTextEncoding.encoding(contentType: value(forHTTPHeaderField: "Content-Type"), body: data)
    }

    /// The body decoded as text, or `nil` when it can't be decoded with the encoding in force.
    public var text: String? {
        ResponseTextEncoding.decode(data, encoding: textReadEncoding ?? textEncoding)
    }
}
