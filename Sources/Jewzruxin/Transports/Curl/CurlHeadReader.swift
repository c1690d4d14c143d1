import Foundation

/// Reads a response head from the lines libcurl's header callback hands over, one at a time: the
/// status line, the fields, the empty line. Interim heads (1xx but 101) are read and dropped;
/// lines after the final head (trailer fields) are ignored.
struct CurlHeadReader {
    /// A head read to its end.
    struct Head {
        var version: String
        var status: Int
        var reason: String
        var fields: [(name: String, value: String)]

        /// The values of the `Set-Cookie` fields.
        var setCookies: [String] {
            fields.filter { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, "Set-Cookie") }.map(\.value)
        }
    }

    private var current: Head?
    /// Whether the final head has been read.
    private(set) var isDelivered = false

    /// Takes one line, its CR LF included; returns the head when `line` ends the final one.
    mutating func read(_ line: UnsafeRawBufferPointer) -> Head? {
        guard !isDelivered else { return nil }
        var bytes = line[...]
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes = bytes.dropLast() }
        if bytes.isEmpty {
            guard let head = current else { return nil }
            current = nil
            // An interim response: the final one follows.
            if (100..<200).contains(head.status), head.status != 101 { return nil }
            isDelivered = true
            return head
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            current = Self.statusLine(text)
        } else if let first = bytes.first, first == 0x20 || first == 0x09, let index = current?.fields.indices.last {
            // An obsolete line folding: the value goes on.
            current?.fields[index].value += " " + text.trimmingCharacters(in: .whitespaces)
        } else if let colon = text.firstIndex(of: ":") {
            let name = String(text[..<colon])
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            current?.fields.append((name, value))
        }
        return nil
    }

    /// `HTTP/1.1 200 OK`, `HTTP/2 404`.
    private static func statusLine(_ line: String) -> Head? {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let status = Int(parts[1]), (100...999).contains(status) else { return nil }
        return Head(version: String(parts[0]), status: status, reason: parts.count > 2 ? String(parts[2]) : "", fields: [])
    }
}

/// The body of a request as libcurl's read callback asks for it: bytes in memory or a file read
/// as it goes, rewindable.
final class CurlBodySource {
    private enum Storage {
        case data(Data)
        case file(FileHandle)
    }

    private let storage: Storage
    /// Its length, `nil` when unknown (sent chunked).
    let length: Int64?
    /// The bytes handed to libcurl so far.
    private(set) var sent: Int64 = 0

    /// The body of an upload source, or else of the request itself; `nil` when it has none.
    ///
    /// - Throws: `URLError(.fileDoesNotExist)` for an upload file that can't be opened.
    init?(upload: HTTPCycle.UploadSource?, inline: Data?, url: URL) throws {
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
        }
        sent += Int64(count)
        return count
    }

    /// Goes back to `offset`, for libcurl to send the body again; `false` when it can't.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, length.map({ offset <= $0 }) ?? true else { return false }
        if case .file(let handle) = storage {
            do { try handle.seek(toOffset: UInt64(offset)) } catch { return false }
        }
        sent = offset
        return true
    }

    func close() {
        if case .file(let handle) = storage { try? handle.close() }
    }
}
