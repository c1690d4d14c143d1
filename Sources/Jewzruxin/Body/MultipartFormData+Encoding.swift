import Foundation

extension MultipartFormData {
    /// The body as a sequence of pieces, every file's size read: what a transport sends, made
    /// again (``MultipartBodyReader``) for every attempt.
    struct Plan: Sendable {
        enum Segment: Sendable {
            /// Delimiters and part heads, and in-memory contents.
            case bytes(Data)
            /// `size` bytes of a file, from its start.
            case file(path: String, size: Int64, part: String)
            /// A stream's bytes.
            case stream(StreamSource, part: String)
        }

        let segments: [Segment]
        /// The body's length, `nil` when a stream's length is unknown.
        let length: Int64?
    }

    /// The body's pieces, with every file checked and measured and every header checked.
    ///
    /// - Throws: ``MultipartFormDataError/unreadableFile(part:path:reason:)`` or
    ///   ``MultipartFormDataError/invalidHeader(part:name:reason:)``.
    func plan() throws(MultipartFormDataError) -> Plan {
        var segments: [Plan.Segment] = []
        var pending = Data()
        var length: Int64? = 0
        func add(_ count: Int64?) { length = length.flatMap { total in count.map { total + $0 } } }
        for (index, part) in parts.enumerated() {
            try Self.check(part)
            pending.append(Self.head(of: part, boundary: boundary, first: index == 0))
            switch part.content {
            case .data(let data):
                pending.append(data)
            case .file(let url):
                let size = try Self.size(ofFile: url, part: part.name)
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(path: url.path, size: size, part: part.name))
                add(size)
            case .stream(let source):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.stream(source, part: part.name))
                add(source.length)
            }
        }
        pending.append(Self.close(boundary: boundary, afterParts: !parts.isEmpty))
        segments.append(.bytes(pending))
        for case .bytes(let bytes) in segments { add(Int64(bytes.count)) }
        return Plan(segments: segments.filter { if case .bytes(let bytes) = $0 { !bytes.isEmpty } else { true } }, length: length)
    }

    // MARK: Part heads

    /// The delimiter that opens `part` and its header fields, up to the empty line.
    ///
    /// ```
    /// \r\n--boundary\r\n            (no leading CR LF for the first part)
    /// Content-Disposition: form-data; name="…"; filename="…"\r\n
    /// Content-Type: …\r\n
    /// Extra: …\r\n
    /// \r\n
    /// ```
    static func head(of part: Part, boundary: String, first: Bool) -> Data {
        var head = first ? "--" : "\r\n--"
        head += boundary + "\r\nContent-Disposition: form-data; name=\"" + escaped(part.name) + "\""
        if let filename = part.filename { head += "; filename=\"" + escaped(filename) + "\"" }
        head += "\r\n"
        if let contentType = part.contentType { head += "Content-Type: " + contentType + "\r\n" }
        for field in part.headers { head += field.name + ": " + field.value + "\r\n" }
        head += "\r\n"
        return Data(head.utf8)
    }

    /// The close delimiter: `--boundary--` after a CR LF ending the last part's content.
    static func close(boundary: String, afterParts: Bool) -> Data {
        Data(((afterParts ? "\r\n--" : "--") + boundary + "--\r\n").utf8)
    }

    /// A name or file name as it goes between the quotes of `Content-Disposition`: UTF-8, with `"`,
    /// CR and LF percent-encoded (`%22`, `%0D`, `%0A`) and nothing else changed.
    ///
    /// RFC 7578 §4.2 sends non-ASCII names and file names as they are, in UTF-8, and forbids the
    /// RFC 5987 `filename*=` form; what a quote or a line break becomes is left to the HTML
    /// specification's multipart/form-data encoding, which browsers and curl follow: these three
    /// percent-encoded, a backslash left alone (a `\"` escape would read as the end of the value
    /// to many parsers).
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return value }
        var result = ""
        result.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Checks the fields of `part` that the caller wrote: its content type and extra headers.
    static func check(_ part: Part) throws(MultipartFormDataError) {
        if let contentType = part.contentType, let reason = HTTPRequest.invalidity(name: "Content-Type", value: contentType) {
            throw .invalidHeader(part: part.name, name: "Content-Type", reason: reason)
        }
        for field in part.headers {
            if let reason = HTTPRequest.invalidity(name: field.name, value: field.value) {
                throw .invalidHeader(part: part.name, name: field.name, reason: reason)
            }
            if ["Content-Disposition", "Content-Type"].contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
                throw .invalidHeader(part: part.name, name: field.name, reason: "the part's name, file name and content type set it")
            }
        }
    }

    /// The size of a regular, readable file.
    static func size(ofFile url: URL, part: String) throws(MultipartFormDataError) -> Int64 {
        let path = url.path
        guard url.isFileURL else { throw .unreadableFile(part: part, path: url.absoluteString, reason: "not a file URL") }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .unreadableFile(part: part, path: path, reason: "no such file")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw .unreadableFile(part: part, path: path, reason: "not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .unreadableFile(part: part, path: path, reason: "permission denied")
        }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    // MARK: The boundary

    /// `Jewzruxin-` and 32 lowercase hexadecimal digits from the system's secure generator: 42
    /// characters, all of them allowed in a boundary (RFC 2046 §5.1.1) and in a token, so the
    /// `Content-Type` parameter needs no quotes.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "Jewzruxin-" + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The bytes of `part` the form holds in memory: its head as it would be sent with
    /// `boundary`, and its content when that is data.
    static func inMemoryBytes(of part: Part, boundary: String) -> [Data] {
        // The head's own delimiter holds the boundary: only what the caller wrote is searched.
        var written = Data(escaped(part.name).utf8)
        if let filename = part.filename { written.append(contentsOf: Array("\"".utf8) + Array(escaped(filename).utf8)) }
        if let contentType = part.contentType { written.append(contentsOf: Array("\n".utf8) + Array(contentType.utf8)) }
        for field in part.headers { written.append(contentsOf: Array("\n\(field.name): \(field.value)".utf8)) }
        if case .data(let data) = part.content { return [written, data] }
        return [written]
    }

    /// Whether `boundary` occurs in `data`.
    static func contains(_ data: Data, _ boundary: String) -> Bool {
        let needle = Array(boundary.utf8)
        guard let first = needle.first, data.count >= needle.count else { return false }
        return data.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) -> Bool in
            let bytes = haystack.bindMemory(to: UInt8.self)
            var index = 0
            let last = bytes.count - needle.count
            while index <= last {
                if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return true }
                index += 1
            }
            return false
        }
    }

    // MARK: Media types

    /// The media type of a file name's extension, for the common ones; `application/octet-stream`
    /// for the others.
    static func mediaType(forFilename filename: String) -> String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return "application/octet-stream" }
        let ext = filename[filename.index(after: dot)...].lowercased()
        return mediaTypes[ext] ?? "application/octet-stream"
    }

    private static let mediaTypes: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "csv": "text/csv", "html": "text/html",
        "htm": "text/html", "css": "text/css", "md": "text/markdown", "xml": "application/xml",
        "json": "application/json", "js": "text/javascript", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "tar": "application/x-tar", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "svg": "image/svg+xml",
        "heic": "image/heic", "mp3": "audio/mpeg", "wav": "audio/wav", "mp4": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm",
    ]
}
