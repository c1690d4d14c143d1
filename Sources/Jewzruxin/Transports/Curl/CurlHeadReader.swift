import Foundation
import JewzruxinPrimitives

/// Reads a response head from the lines libcurl's header callback hands over, one at a time: the
/// status line, the fields, the empty line. Interim heads (1xx but 101) are read and dropped;
/// lines after the final head (trailer fields) are ignored.
///
/// It applies the rules every transport applies (``ResponseRules``) to what libcurl let through:
/// each field line, the head limit over the final head and the interim heads before it, and the
/// framing of the final head (one valid `Content-Length`, `chunked` as the only transfer coding,
/// no 101 unless asked for). A line that breaks them throws, and the transfer is failed with it.
///
/// While libcurl runs an NTLM or Negotiate handshake (``holdsHeads``), one transfer reads several
/// responses: each 401 libcurl answers (and a 2xx to a body-less probe it resends with the body),
/// whose bodies it skips, then the response. A head read to its end is then held, and replaced by
/// the next one if another follows; the body's first bytes, or the end of the transfer, show that
/// the held head is the response (``takeHeld()``).
struct CurlHeadReader {
    /// A head read to its end.
    struct Head {
        var version: String
        var status: Int
        var reason: String
        var fields: [(name: String, value: String)]

        /// The values of the `Set-Cookie` fields.
        var setCookies: [String] {
            fields.compactMap { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, "Set-Cookie") ? $0.value : nil }
        }
    }

    private var current: Head?
    /// Whether the final head has been read.
    private(set) var isDelivered = false
    /// Whether a head read to its end is held rather than final: set when libcurl may read several
    /// responses in one transfer (an NTLM or Negotiate handshake).
    var holdsHeads = false
    /// Whether the request was a HEAD: its response has no body, whatever its fields say.
    var isHeadRequest = false
    /// Whether the request asked to switch protocols: otherwise a 101 is refused.
    var upgradeRequested = false
    /// The most bytes of head, interim heads included.
    var limit = ResponseRules.defaultHeadLimit
    /// The bytes of head read since the last head that ended a response (held or final).
    private var headBytes = 0
    /// The bytes of every head line read, for the whole transfer.
    private(set) var totalBytes = 0
    /// How the body of the last head read to its end is framed.
    private(set) var framing: ResponseRules.Framing?
    /// The last head read to its end while ``holdsHeads``, not known final yet.
    private(set) var held: Head?
    /// The held heads another one followed: the responses of libcurl's handshake, in order.
    private(set) var replaced: [Head] = []

    /// Takes one line, its CR LF included; returns the head when `line` ends the final one, or,
    /// while ``holdsHeads``, one that is then held (``isDelivered`` stays `false`).
    ///
    /// Works on the bytes: a line becomes strings only for its name, value or reason.
    ///
    /// - Throws: ``ResponseDecodingError`` for a line or a head that breaks the rules.
    mutating func read(_ line: UnsafeRawBufferPointer) throws(ResponseDecodingError) -> Head? {
        guard !isDelivered else { return nil }
        headBytes += line.count
        totalBytes += line.count
        guard headBytes <= limit else { throw .headerTooLarge(limit: limit) }
        let bytes = line.bindMemory(to: UInt8.self)
        var end = bytes.count
        // The line ending: LF, or CR LF (libcurl splits lines at LF only, so a CR before is the
        // ending's, and any other CR is the line's).
        if end > 0, bytes[end - 1] == 0x0A { end -= 1 }
        if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        if end == 0 {
            // An empty line before any status line: not a response (libcurl refuses it first).
            guard let head = current else { throw .badStatusLine }
            current = nil
            // An interim response: the final one follows.
            if (100..<200).contains(head.status), head.status != 101 { return nil }
            (framing, _) = try ResponseRules.framing(
                status: head.status, http10: head.version == "HTTP/1.0", fields: head.fields, isHeadRequest: isHeadRequest,
                upgradeRequested: upgradeRequested)
            headBytes = 0
            if holdsHeads {
                if let previous = held { replaced.append(previous) }
                held = head
                return head
            }
            isDelivered = true
            return head
        }
        let text = bytes[0..<end]
        if current == nil {
            // A status line (libcurl checked it before handing it over).
            guard let status = Self.statusLine(text) else { throw .badStatusLine }
            current = status
        } else if HTTPHeaderSyntax.isSpace(text[0]) {
            // Obsolete line folding: a user agent replaces it with a space (RFC 9112 §5.2); a fold
            // with no field before it is an error.
            guard let index = current?.fields.indices.last, let folded = current?.fields[index].value else { throw .badHeaderField }
            current?.fields[index].value = try ResponseRules.unfolding(folded, text)
        } else {
            let (name, value) = try ResponseRules.field(text)
            current?.fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return nil
    }

    /// The held head, now known to be the response (its body began, or the transfer ended): reading
    /// stops as after any final head. `nil` when none is held.
    mutating func takeHeld() -> Head? {
        guard let head = held else { return nil }
        held = nil
        isDelivered = true
        return head
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// `HTTP/1.1 200 OK`, `HTTP/2 404`: the version, a space (or more), three digits, and the
    /// reason after a space, if any, with no CR or NUL in it.
    private static func statusLine(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Head? {
        guard line.starts(with: httpPrefix) else { return nil }
        let space = UInt8(ascii: " ")
        guard let versionEnd = line.firstIndex(of: space), ResponseRules.isValidValue(line[..<versionEnd]) else { return nil }
        var index = versionEnd
        while index < line.endIndex, line[index] == space { index += 1 }
        guard line.endIndex - index >= 3 else { return nil }
        var status = 0
        for digit in line[index..<(index + 3)] {
            guard (0x30...0x39).contains(digit) else { return nil }
            status = status * 10 + Int(digit - 0x30)
        }
        index += 3
        guard status >= 100, index == line.endIndex || line[index] == space else { return nil }
        while index < line.endIndex, line[index] == space { index += 1 }
        guard ResponseRules.isValidValue(line[index...]) else { return nil }
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(12)
        return Head(
            version: String(decoding: line[..<versionEnd], as: UTF8.self), status: status,
            reason: String(decoding: line[index...], as: UTF8.self), fields: fields)
    }
}

/// The body of a request as libcurl's read callback asks for it: bytes in memory, a file or a form
/// read as it goes, rewindable.
final class CurlBodySource {
    private enum Storage {
        case data(Data)
        case file(FileHandle)
        /// A form and the reader of its current pass, made again when libcurl rewinds.
        case multipart(MultipartFormData.Plan, MultipartBodyReader)
        /// A streamed body and its current pass, opened again when libcurl rewinds to the start.
        case stream(UploadStream, UploadPipe)
    }

    /// What ``read(into:)`` returns when a streamed body has no bytes yet: the transfer pauses
    /// until ``whenReadable`` is called.
    static let waiting = -1
    /// Called, from the stream's task, when a streamed body that had no bytes has some, or ended.
    private let whenReadable: @Sendable () -> Void

    private var storage: Storage
    /// Its length, `nil` when unknown (sent chunked).
    let length: Int64?
    /// The bytes handed to libcurl so far.
    private(set) var sent: Int64 = 0

    /// The body of an upload source, or else of the request itself; `nil` when it has none.
    ///
    /// - Throws: `URLError(.fileDoesNotExist)` for an upload file that can't be opened.
    init?(upload: HTTPCycle.UploadSource?, inline: Data?, url: URL, whenReadable: @escaping @Sendable () -> Void = {}) throws {
        self.whenReadable = whenReadable
        switch upload {
        case .data(let data)?:
            storage = .data(data)
            length = Int64(data.count)
        case .file(let file)?:
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                length = (attributes[.size] as? NSNumber)?.int64Value
                storage = .file(try FileHandle(forReadingFrom: file))
            } catch {
                throw URLError(.fileDoesNotExist, userInfo: [
                    NSLocalizedDescriptionKey: "The upload file \(file.path) can't be read.", NSUnderlyingErrorKey: error,
                    NSURLErrorFailingURLErrorKey: url,
                ])
            }
        case .multipart(let form)?:
            // The cycle checked the form before the request went: this fails only when a file
            // went away in between, with the same error.
            let plan = try form.plan()
            storage = .multipart(plan, MultipartBodyReader(plan))
            length = plan.length
        case .stream(let stream)?:
            storage = .stream(stream, stream.open())
            length = stream.length
        case nil:
            guard let inline else { return nil }
            storage = .data(inline)
            length = Int64(inline.count)
        }
    }

    /// An empty body.
    init(empty: Void) {
        storage = .data(Data())
        length = 0
        whenReadable = {}
    }

    /// Copies the next bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count: Int
        switch storage {
        case .data(let data):
            let start = data.startIndex + Int(sent)
            count = min(buffer.count, data.endIndex - start)
            guard count > 0 else { return 0 }
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
        case .file(let handle):
            guard let chunk = try handle.read(upToCount: buffer.count), !chunk.isEmpty else { return 0 }
            count = chunk.copyBytes(to: buffer.bindMemory(to: UInt8.self))
        case .multipart(_, let reader):
            count = try reader.read(into: buffer)
        case .stream(_, let pipe):
            switch try pipe.read(into: buffer, whenReadable: whenReadable) {
            case .bytes(let read): count = read
            case .end: count = 0
            case .waiting: return Self.waiting
            }
        }
        sent += Int64(count)
        return count
    }

    /// Goes back to `offset`, for libcurl to send the body again; `false` when it can't.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, length.map({ offset <= $0 }) ?? true else { return false }
        switch storage {
        case .file(let handle):
            do { try handle.seek(toOffset: UInt64(offset)) } catch { return false }
        case .multipart(let plan, let reader) where offset != sent:
            // A form is read forwards only: from its start again, up to `offset`.
            reader.close()
            let fresh = MultipartBodyReader(plan)
            storage = .multipart(plan, fresh)
            guard Self.skip(offset, of: fresh) else { return false }
        case .stream(let stream, let pipe) where offset != sent:
            // A stream is read forwards only: from its start again, and only from there.
            guard offset == 0 else { return false }
            pipe.close()
            storage = .stream(stream, stream.open())
        case .data, .multipart, .stream:
            break
        }
        sent = offset
        return true
    }

    /// Reads and drops the first `count` bytes of a form; `false` when it has fewer or fails.
    private static func skip(_ count: Int64, of reader: MultipartBodyReader) -> Bool {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { scratch.deallocate() }
        while reader.sent < count {
            let wanted = Int(min(Int64(scratch.count), count - reader.sent))
            guard let read = try? reader.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<wanted])), read > 0 else { return false }
        }
        return true
    }

    func close() {
        switch storage {
        case .file(let handle): try? handle.close()
        case .multipart(_, let reader): reader.close()
        case .stream(_, let pipe): pipe.close()
        case .data: break
        }
    }
}
