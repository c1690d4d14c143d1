import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, bytes, files and streams, each a part with
/// its own headers, sent as an upload (``HTTPCycle/UploadSource/multipart(_:)``) that reads files and
/// streams as it goes, so memory stays flat whatever their size.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Jane", name: "name")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report")
/// form.append(Data("a,b\n1,2\n".utf8), name: "table", filename: "table.csv", contentType: "text/csv")
/// let cycle = try await HTTPCycle.upload("https://example.com/upload", source: .multipart(form))
/// ```
///
/// The request's `Content-Type` is ``contentType``, with the form's ``boundary``. When every part's
/// length is known (fields, data, files, streams given a length) the body goes with a
/// `Content-Length`; a stream of unknown length makes it chunked. The body is made again from the
/// start for every attempt — a retry, a 307/308 redirect, an authentication challenge — so a
/// file is read again and a stream's factory is called again.
///
/// A form is a value: appending returns nothing and changes only this copy.
public struct MultipartFormData: Sendable, Hashable {
    /// One part of a form: its name, optional file name and content type, extra headers, and content.
    public struct Part: Sendable, Hashable {
        /// Where a part's bytes come from.
        public enum Content: Sendable, Hashable {
            /// Bytes in memory (a field's value is its UTF-8 bytes).
            case data(Data)
            /// A local file, read as it is sent; its size when the request goes is its length.
            case file(URL)
            /// A stream made anew for every attempt.
            case stream(StreamSource)
        }

        /// The field name (`name` of `Content-Disposition`).
        public let name: String
        /// The file name (`filename` of `Content-Disposition`), `nil` for a plain field.
        public let filename: String?
        /// The part's `Content-Type`, `nil` for none (which means `text/plain`, RFC 7578 §4.4).
        public let contentType: String?
        /// More header fields of the part, in order.
        public let headers: [HeaderField]
        /// The part's bytes.
        public let content: Content
    }

    /// A header field of a part.
    public struct HeaderField: Sendable, Hashable {
        /// The field name, an HTTP token.
        public let name: String
        /// The field value, without CR, LF or NUL.
        public let value: String

        /// A header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The content of a streamed part: a factory that opens a new `InputStream` for every attempt,
    /// and the stream's length when known.
    ///
    /// Two stream sources are equal only when they are the same one (copies of it).
    public struct StreamSource: Sendable, Hashable {
        /// The number of bytes the stream gives, `nil` when unknown (the body is then chunked).
        public let length: Int64?
        /// Opens a new stream, positioned at its start.
        let open: @Sendable () throws -> InputStream
        private let identity = Identity()

        /// A stream source.
        ///
        /// - Parameters:
        ///   - length: The number of bytes each stream gives, `nil` when unknown. A stream that
        ///     gives more or fewer ends the upload with ``MultipartFormDataError/contentChanged(part:reason:)``.
        ///   - open: Opens a new stream, not opened yet; called once per attempt, off the caller's
        ///     thread. An error it throws ends the attempt.
        public init(length: Int64?, open: @escaping @Sendable () throws -> InputStream) {
            self.length = length
            self.open = open
        }

        public static func == (lhs: StreamSource, rhs: StreamSource) -> Bool { lhs.identity === rhs.identity }

        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(identity)) }

        private final class Identity: Sendable {}
    }

    /// The string that separates the parts: `Jewzruxin-` and 32 hexadecimal digits drawn from the
    /// system's secure random number generator (128 bits).
    ///
    /// No in-memory part (field, data, and every part's headers) contains it: appending one that
    /// does draws a new boundary. File and stream parts are not read in advance; a boundary that
    /// no one knows before the request goes can appear in their bytes only by chance, about
    /// once in 2¹²⁸ per position (for a 1 TiB file, under one chance in 10²⁶).
    public private(set) var boundary: String
    /// The parts, in the order they were appended.
    public private(set) var parts: [Part] = []

    /// An empty form with a new random ``boundary``.
    public init() {
        boundary = Self.randomBoundary()
    }

    /// An empty form with a given boundary, for tests that need to know it in advance or to see
    /// it replaced.
    init(boundary: String) {
        self.boundary = boundary
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=…`.
    public var contentType: String { "multipart/form-data; boundary=" + boundary }

    /// Appends a text field: the UTF-8 bytes of `value`, with no `Content-Type` (`text/plain`).
    ///
    /// - Parameters:
    ///   - value: The field's value.
    ///   - name: The field's name.
    public mutating func append(_ value: String, name: String) {
        append(Part(name: name, filename: nil, contentType: nil, headers: [], content: .data(Data(value.utf8))))
    }

    /// Appends bytes in memory.
    ///
    /// - Parameters:
    ///   - data: The part's bytes.
    ///   - name: The field's name.
    ///   - filename: A file name, sent as the part's `filename`; `nil` for none.
    ///   - contentType: The part's `Content-Type`; `nil` for none.
    ///   - headers: More header fields of the part, in name order.
    public mutating func append(
        _ data: Data, name: String, filename: String? = nil, contentType: String? = "application/octet-stream",
        headers: [String: String] = [:]
    ) {
        append(Part(name: name, filename: filename, contentType: contentType, headers: Self.fields(headers), content: .data(data)))
    }

    /// Appends a local file, read from disk as it is sent (never loaded whole).
    ///
    /// The file must exist and be readable when the request goes, or the cycle ends with
    /// ``MultipartFormDataError/unreadableFile(part:path:reason:)`` before anything is sent.
    /// - Parameters:
    ///   - url: A `file` URL.
    ///   - name: The field's name.
    ///   - filename: The part's `filename`; the last component of `url` when `nil`.
    ///   - contentType: The part's `Content-Type`; when `nil`, guessed from the file name's extension
    ///     (`application/octet-stream` when unknown).
    ///   - headers: More header fields of the part, in name order.
    public mutating func append(
        fileAt url: URL, name: String, filename: String? = nil, contentType: String? = nil, headers: [String: String] = [:]
    ) {
        let filename = filename ?? url.lastPathComponent
        append(Part(
            name: name, filename: filename, contentType: contentType ?? Self.mediaType(forFilename: filename),
            headers: Self.fields(headers), content: .file(url)))
    }

    /// Appends a stream, made anew for every attempt by `stream`.
    ///
    /// ```swift
    /// form.append(name: "log", filename: "app.log", length: size) { try makeLogStream() }
    /// ```
    /// - Parameters:
    ///   - name: The field's name.
    ///   - filename: A file name, sent as the part's `filename`; `nil` for none.
    ///   - contentType: The part's `Content-Type`; `nil` for none.
    ///   - length: The number of bytes the stream gives, `nil` when unknown: the body is then sent
    ///     chunked, without a `Content-Length`.
    ///   - headers: More header fields of the part, in name order.
    ///   - stream: Opens a new stream positioned at its start (not opened yet), once per attempt.
    public mutating func append(
        name: String, filename: String? = nil, contentType: String? = "application/octet-stream", length: Int64?,
        headers: [String: String] = [:], stream: @escaping @Sendable () throws -> InputStream
    ) {
        append(Part(
            name: name, filename: filename, contentType: contentType, headers: Self.fields(headers),
            content: .stream(StreamSource(length: length, open: stream))))
    }

    /// The length of the body, in bytes, as it would be sent now: `nil` when a stream's length is
    /// unknown.
    ///
    /// - Throws: ``MultipartFormDataError`` for a file that can't be read or a header that can't be sent.
    public func contentLength() throws(MultipartFormDataError) -> Int64? {
        try plan().length
    }

    /// The whole body in memory, files and streams read: for small forms, tests, and what must
    /// see the body before it goes (a signature). An upload doesn't use it.
    ///
    /// - Throws: ``MultipartFormDataError`` as an upload would.
    public func encodedData() throws(MultipartFormDataError) -> Data {
        let reader = MultipartBodyReader(try plan())
        defer { reader.close() }
        var data = Data()
        if let length = reader.length { data.reserveCapacity(Int(clamping: length)) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { return data }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private mutating func append(_ part: Part) {
        parts.append(part)
        if Self.inMemoryBytes(of: part, boundary: boundary).contains(where: { Self.contains($0, boundary) }) {
            chooseBoundaryAbsentFromParts()
        }
    }

    /// Draws boundaries until one appears in no in-memory bytes of the form.
    private mutating func chooseBoundaryAbsentFromParts() {
        while true {
            let candidate = Self.randomBoundary()
            let collides = parts.contains { part in
                Self.inMemoryBytes(of: part, boundary: candidate).contains { Self.contains($0, candidate) }
            }
            if !collides {
                boundary = candidate
                return
            }
        }
    }

    private static func fields(_ headers: [String: String]) -> [HeaderField] {
        headers.sorted { $0.key < $1.key }.map { HeaderField(name: $0.key, value: $0.value) }
    }
}

/// Why a ``MultipartFormData`` body can't be sent, or stopped.
public enum MultipartFormDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A file part's file can't be read: it doesn't exist, isn't a regular file, or can't be
    /// opened. When the cycle finds it before the request goes, nothing was sent.
    case unreadableFile(part: String, path: String, reason: String)
    /// A part's header can't be sent: its name is not an HTTP token, its value has CR, LF or NUL,
    /// or it is `Content-Disposition` or `Content-Type`, which the part's own fields set. Nothing was sent.
    case invalidHeader(part: String, name: String, reason: String)
    /// A stream part's factory threw, or its stream failed while it was read.
    case unreadableStream(part: String, reason: String)
    /// A part's bytes changed while they were sent: a file shrank, or a stream gave more or fewer
    /// bytes than its declared length. The request was cut short.
    case contentChanged(part: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableFile(let part, let path, let reason):
            return "the file \(path) of the form part \"\(part)\" can't be read: \(reason)"
        case .invalidHeader(let part, let name, let reason):
            return "the header \"\(name)\" of the form part \"\(part)\" can't be sent: \(reason)"
        case .unreadableStream(let part, let reason):
            return "the stream of the form part \"\(part)\" can't be read: \(reason)"
        case .contentChanged(let part, let reason):
            return "the content of the form part \"\(part)\" changed while it was sent: \(reason)"
        }
    }
}
