import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request half of a cycle: its URL, method and header fields, the body and the model it is
/// made from.
///
/// Request processors turn ``object`` into ``data`` and headers before the request is sent; ``data``
/// is the body that goes on the wire.
///
/// A request is a value of its own, not a Foundation request: the curl and native transports send
/// it as it is. ``core`` shows it as a `URLRequest`, made when it is read, for the URLSession
/// transport and for code that sets what only a `URLRequest` has (its cache policy, its timeout).
public struct HTTPRequest: Sendable {
    /// What a request holds, shared by its copies until one of them changes.
    private final class Storage: @unchecked Sendable {
        // Mutated only through `HTTPRequest.storageForWriting`, when no other request shares it:
        // a shared storage is never written, so it needs no lock.
        var url: URL?
        var method: HTTPMethod
        /// The header fields in the order they were set, one per name (matched case-insensitively).
        var fields: [(name: String, value: String)]
        /// A `URLRequest` set through `core`: what it has beyond the URL, the method and the
        /// fields (a cache policy, a timeout, a body…). `nil` for a request made here.
        var foundation: URLRequest?
        var data: Data?
        var object: (any Sendable)?
        var invalidHeader: (name: String, reason: String)?
        var connectionCredentials: [ConnectionCredential]
        var completedFields: [(name: String, value: String)]?

        init(url: URL?, method: HTTPMethod) {
            self.url = url
            self.method = method
            fields = []
            connectionCredentials = []
        }

        init(copying other: Storage) {
            url = other.url
            method = other.method
            fields = other.fields
            foundation = other.foundation
            data = other.data
            object = other.object
            invalidHeader = other.invalidHeader
            connectionCredentials = other.connectionCredentials
            completedFields = other.completedFields
        }
    }

    private var storage: Storage

    /// The storage, made this request's own first if another shares it.
    private var storageForWriting: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
            return storage
        }
    }

    /// The storage for a change of what a transport completes the fields from (the URL, the
    /// method, the fields, the body, the credentials): its completed fields no longer hold and are
    /// dropped, so that a transport completes them again.
    private var storageForChange: Storage {
        mutating get {
            let storage = storageForWriting
            storage.completedFields = nil
            return storage
        }
    }

    /// Creates a request for a URL and method.
    ///
    /// - Parameters:
    ///   - url: The URL to send the request to.
    ///   - method: The request method, `GET` by default.
    public init(url: URL, method: HTTPMethod = .get) {
        storage = Storage(url: url, method: method)
    }

    /// The request as a Foundation request: URL, method, headers, cache policy, timeout.
    ///
    /// Made when it is read; what is set on it is taken back (`request.core.timeoutInterval = 5`
    /// reads it, changes it and sets it again). The package's own code never needs it on the curl
    /// and native transports.
    public var core: URLRequest {
        get {
            var core: URLRequest
            if let foundation = storage.foundation {
                core = foundation
                core.url = storage.url
            } else {
                core = URLRequest(url: storage.url ?? Self.noURL)
            }
            if core.httpMethod != storage.method.rawValue { core.httpMethod = storage.method.rawValue }
            if storage.foundation != nil || !storage.fields.isEmpty {
                core.allHTTPHeaderFields = Dictionary(storage.fields.lazy.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            }
            return core
        }
        set {
            let storage = storageForChange
            storage.url = newValue.url
            storage.method = HTTPMethod(rawValue: newValue.httpMethod ?? "GET")
            // Checked as `setValue(_:forHTTPHeaderField:)` checks them: a field that can't be sent
            // is not taken, and the first such one is what the cycle fails with.
            storage.fields = Self.fields(storage.fields, replacedBy: newValue.allHTTPHeaderFields ?? [:]).filter { field in
                guard let reason = Self.invalidity(name: field.name, value: field.value) else { return true }
                if storage.invalidHeader == nil { storage.invalidHeader = (field.name, reason) }
                return false
            }
            storage.foundation = newValue
        }
    }

    /// The URL a `URLRequest` must have, for a request whose own was taken away through ``core``.
    private static let noURL = URL(fileURLWithPath: "/")

    /// `old`'s fields as `new` has them: a field `new` keeps stays where it was, with `new`'s value;
    /// `new`'s other fields follow, in name order.
    private static func fields(
        _ old: [(name: String, value: String)], replacedBy new: [String: String]
    ) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = []
        var taken = Set<String>()
        for field in old {
            guard let (name, value) = new.first(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.key, field.name) }) else { continue }
            kept.append((name, value))
            taken.insert(name)
        }
        for (name, value) in new.sorted(by: { $0.key < $1.key }) where !taken.contains(name) {
            kept.append((name, value))
        }
        return kept
    }

    /// The request URL.
    public var url: URL? { storage.url }

    /// The request method.
    public var method: HTTPMethod {
        get { storage.method }
        set { storageForChange.method = newValue }
    }

    /// The body to send, or `nil` for none.
    public var data: Data? {
        get { storage.data }
        set { storageForChange.data = newValue }
    }

    /// The model the request processors turn into ``data`` (a dictionary for JSON, a string for text…).
    ///
    /// A cycle with an object and no request processor at all (its own or its session's) ends with
    /// ``HTTPError/unprocessedRequestObject(type:)`` before sending anything.
    public var object: (any Sendable)? {
        get { storage.object }
        set { storageForWriting.object = newValue }
    }

    /// The value of a request header; the name is matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        storage.fields.first { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, field) }?.value
    }

    /// Sets (or, with `nil`, removes) a request header, replacing any value it had.
    ///
    /// A name that is not an HTTP token, or a value with CR, LF or NUL (which could smuggle in
    /// other headers), is not set: the cycle then fails with ``HTTPError/invalidHeader(name:reason:)``
    /// before anything is sent.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        if let value, let reason = Self.invalidity(name: field, value: value) {
            if storage.invalidHeader == nil { storageForWriting.invalidHeader = (field, reason) }
            return
        }
        let storage = storageForChange
        let index = storage.fields.firstIndex { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, field) }
        switch (index, value) {
        case let (index?, value?): storage.fields[index] = (field, value)
        case (nil, let value?): storage.fields.append((field, value))
        case let (index?, nil): storage.fields.remove(at: index)
        case (nil, nil): break
        }
    }

    /// The request's header fields, in the order they were set, one per name.
    ///
    /// The request an event monitor hears of in ``HTTPEventMonitor/cycle(_:willSend:)`` has the
    /// fields that went out, in name order, those its transport added among them.
    public var headerFields: [(name: String, value: String)] { storage.fields }

    /// How long the request may wait for data, in seconds (`URLRequest`'s, 60 unless set).
    var timeoutInterval: TimeInterval { storage.foundation?.timeoutInterval ?? 60 }

    /// Whether the stored cookies go with the request and those of its response are stored.
    var httpShouldHandleCookies: Bool { storage.foundation?.httpShouldHandleCookies ?? true }

    /// The URL of the document a cookie policy judges the request's cookies by, if one was set.
    var mainDocumentURL: URL? { storage.foundation?.mainDocumentURL }

    /// The body set on the Foundation request (`core.httpBody`), sent when ``data`` is `nil`.
    var httpBody: Data? {
        get { storage.foundation?.httpBody }
        set {
            guard storage.foundation != nil else { return }
            storageForChange.foundation?.httpBody = newValue
        }
    }

    /// Aims the request at `target`, for a redirect; when the origin changes (scheme, host or port)
    /// the caller's `Authorization` and `Cookie` headers are not sent there (curl's rule).
    mutating func redirect(to target: URL) {
        if let source = url, !source.hasSameOrigin(as: target) {
            setValue(nil, forHTTPHeaderField: "Authorization")
            setValue(nil, forHTTPHeaderField: "Cookie")
        }
        storageForChange.url = target
    }

    /// The first header refused by ``setValue(_:forHTTPHeaderField:)``, and why.
    var invalidHeader: (name: String, reason: String)? { storage.invalidHeader }

    /// The credentials of the connection-based schemes (NTLM, Negotiate) the cycle has, first
    /// authentication first: the engine sets them on every request it sends, for a transport
    /// that runs those handshakes itself; the others ignore them.
    var connectionCredentials: [ConnectionCredential] {
        get { storage.connectionCredentials }
        set { storageForChange.connectionCredentials = newValue }
    }

    /// The header fields the request goes out with, in name order, once a transport has completed
    /// them (`HTTPTransport.completeHeaderFields(of:upload:)`): its own and those the transport adds.
    /// Kept beside its own fields rather than written over them: the curl and native transports
    /// send them from here, and a request shows them as its fields only where it is read
    /// (``showingCompletedFields``).
    var completedFields: [(name: String, value: String)]? {
        get { storage.completedFields }
        set { storageForWriting.completedFields = newValue }
    }

    /// Whether a transport has completed the header fields: a transport given a request that isn't
    /// completes it itself before sending it.
    var headerFieldsCompleted: Bool { storage.completedFields != nil }

    /// The request with its completed fields as its own, as the event monitors and the URLSession
    /// transport read it; the request itself when it wasn't completed.
    var showingCompletedFields: HTTPRequest {
        guard let completedFields = storage.completedFields else { return self }
        var shown = self
        shown.storageForWriting.fields = completedFields
        return shown
    }

    /// Why a header can't be sent as given, or `nil` when it can.
    static func invalidity(name: String, value: String) -> String? {
        if name.isEmpty || !name.withUTF8Bytes({ $0.allSatisfy(HTTPHeaderSyntax.isTokenByte) }) { return "the name is not an HTTP token" }
        if value.withUTF8Bytes({ $0.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }) { return "the value contains CR, LF or NUL" }
        return nil
    }
}
