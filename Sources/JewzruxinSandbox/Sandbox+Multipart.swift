import Foundation
import JewzruxinAuth

// | POST PUT PATCH | /multipart/ | | 200 JSON report of the multipart/form-data parts received |
//
// The report, for tests that check a form byte for byte:
//
//     {"boundary": "…", "contentLength": 1234 or null, "chunked": false, "bodyLength": 1234,
//      "parts": [{"name": "…", "filename": "…" or null, "contentType": "…" or null,
//                 "disposition": "form-data; name=\"…\"", "headers": [["Name", "value"], …],
//                 "size": 5, "sha256": "<hex>"}]}
//
// `name` and `filename` are the quoted values of `Content-Disposition` as sent, not decoded (a
// `%22` stays `%22`), read as UTF-8. A body that isn't a well-formed multipart/form-data
// message for its boundary gets a 400 saying where it went wrong.

extension Sandbox {
    static func registerMultipartEndpoint(on core: ServerCore) {
        core.addRoute("/multipart", multipart)
    }

    /// One part as the `/multipart/` endpoint reports it.
    struct MultipartPartReport: Encodable {
        let name: String?
        let filename: String?
        let contentType: String?
        let disposition: String?
        let headers: [[String]]
        let size: Int
        let sha256: String
    }

    struct MultipartReport: Encodable {
        let boundary: String
        let contentLength: Int?
        let chunked: Bool
        let bodyLength: Int
        let parts: [MultipartPartReport]
    }

    static func multipart(_ request: SandboxRequest) -> SandboxResponse {
        let allowed = ["POST", "PUT", "PATCH"]
        guard allowed.contains(request.method) else { return methodNotAllowed(allowed) }
        guard let contentType = request.headers["Content-Type"],
              contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundary = MultipartParser.boundary(in: contentType)
        else {
            return .error(400, "expected Content-Type: multipart/form-data; boundary=…")
        }
        let parts: [MultipartParser.Part]
        do {
            parts = try MultipartParser.parse(request.body, boundary: boundary)
        } catch {
            return .error(400, "malformed multipart body: \(error.message)")
        }
        let report = MultipartReport(
            boundary: boundary,
            contentLength: request.headers["Content-Length"].flatMap { Int($0) },
            chunked: request.headers["Transfer-Encoding"]?.lowercased().contains("chunked") ?? false,
            bodyLength: request.body.count,
            parts: parts.map { part in
                let disposition = part.header("Content-Disposition")
                return MultipartPartReport(
                    name: disposition.flatMap { MultipartParser.parameter("name", in: $0) },
                    filename: disposition.flatMap { MultipartParser.parameter("filename", in: $0) },
                    contentType: part.header("Content-Type"),
                    disposition: disposition,
                    headers: part.headers.map { [$0.name, $0.value] },
                    size: part.body.count,
                    sha256: SHA256.hexHash(part.body))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .json(try encoder.encode(report))
        } catch {
            return .error(500, "cannot encode multipart report: \(error)")
        }
    }
}

/// A strict reader of `multipart/form-data` bodies (RFC 7578 over RFC 2046 §5.1.1).
enum MultipartParser {
    struct Part {
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    struct Failure: Error {
        let message: String
    }

    /// The `boundary` parameter of a `Content-Type`, quoted or not.
    static func boundary(in contentType: String) -> String? {
        parameter("boundary", in: contentType)
    }

    /// A parameter's value in a header value such as `form-data; name="a"; filename="b"`: quoted
    /// (up to the next `"`, nothing unescaped) or a token.
    static func parameter(_ name: String, in value: String) -> String? {
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "="),
                  rest[..<equals].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(name) == .orderedSame
            else { continue }
            let after = rest[rest.index(after: equals)...]
            if after.first == "\"" {
                let content = after.dropFirst()
                guard let close = content.firstIndex(of: "\"") else { return nil }
                return String(content[..<close])
            }
            return String(after.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The parts of `body`, in order.
    ///
    /// - Throws: ``Failure`` for a body without its first delimiter, a part without the blank
    ///   line after its headers, or a body that doesn't end with the close delimiter.
    static func parse(_ body: Data, boundary: String) throws(Failure) -> [Part] {
        let bytes = [UInt8](body)
        let dashBoundary = Array("--\(boundary)".utf8)
        let delimiter = [0x0D, 0x0A] + dashBoundary
        // The first delimiter may follow a preamble, after a CR LF.
        var position: Int
        if bytes.starts(with: dashBoundary) {
            position = dashBoundary.count
        } else if let found = find(delimiter, in: bytes, from: 0) {
            position = found + delimiter.count
        } else {
            throw Failure(message: "no delimiter --\(boundary)")
        }
        var parts: [Part] = []
        while true {
            if bytes[position...].starts(with: [0x2D, 0x2D]) {
                // The close delimiter; what follows it is the epilogue.
                return parts
            }
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
            guard bytes[position...].starts(with: [0x0D, 0x0A]) else {
                throw Failure(message: "no CR LF after the delimiter of part \(parts.count + 1)")
            }
            position += 2
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: position - 2) else {
                throw Failure(message: "part \(parts.count + 1) has no blank line after its headers")
            }
            var headers: [(name: String, value: String)] = []
            if headerEnd > position - 2 {
                let text = String(decoding: bytes[position..<headerEnd], as: UTF8.self)
                for line in text.components(separatedBy: "\r\n") {
                    guard let colon = line.firstIndex(of: ":") else {
                        throw Failure(message: "part \(parts.count + 1) has a header line without a colon")
                    }
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
            }
            let contentStart = headerEnd + 4
            guard let next = find(delimiter, in: bytes, from: contentStart) else {
                throw Failure(message: "part \(parts.count + 1) is not followed by a delimiter")
            }
            parts.append(Part(headers: headers, body: Data(bytes[contentStart..<next])))
            position = next + delimiter.count
        }
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count, start >= 0 else { return nil }
        var index = start
        let last = haystack.count - needle.count
        return haystack.withUnsafeBufferPointer { buffer -> Int? in
            while index <= last {
                if buffer[index] == first, needle.indices.allSatisfy({ buffer[index + $0] == needle[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }
}
