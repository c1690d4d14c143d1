import Foundation
import Testing
@testable import Jewzruxin

/// The encoder on its own: boundaries, part heads, escaping, lengths, the reader. No socket.
@Suite("multipart/form-data encoding")
struct MultipartFormDataTests {
    private func temporaryFile(_ contents: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-form-\(UUID().uuidString).bin")
        try contents.write(to: url)
        return url
    }

    @Test("a new form's boundary: Jewzruxin- and 32 hex digits, different every time, a token in Content-Type")
    func boundaryShape() {
        let boundaries = (0..<1_000).map { _ in MultipartFormData().boundary }
        #expect(Set(boundaries).count == boundaries.count)
        for boundary in boundaries {
            #expect(boundary.hasPrefix("Jewzruxin-"))
            #expect(boundary.utf8.count == 42)
            let digits = boundary.dropFirst("Jewzruxin-".count)
            #expect(digits.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
        // 128 random bits: every hex digit position takes many values across the forms.
        let positions = (0..<32).map { index in Set(boundaries.map { Array($0.utf8)[10 + index] }).count }
        #expect(positions.allSatisfy { $0 >= 12 })
        let form = MultipartFormData()
        #expect(form.contentType == "multipart/form-data; boundary=" + form.boundary)
    }

    @Test("the body, byte for byte: a field, a data part with extra headers, an empty form")
    func exactBytes() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append("Jane", name: "name")
        form.append(Data([0, 1, 2]), name: "blob", filename: "b.bin", headers: ["X-Tag": "7", "Content-ID": "<c>"])
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nJane"
            + "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\nContent-ID: <c>\r\nX-Tag: 7\r\n\r\n\u{0}\u{1}\u{2}"
            + "\r\n--XyZ--\r\n"
        #expect(try form.encodedData() == Data(expected.utf8))
        #expect(try form.contentLength() == Int64(expected.utf8.count))
        #expect(try MultipartFormData(boundary: "XyZ").encodedData() == Data("--XyZ--\r\n".utf8))
    }

    @Test("names and file names: \", CR and LF percent-encoded (RFC 7578 §4.2, as browsers and curl do), UTF-8 as is",
          arguments: [
            ("plain", "plain"),
            ("say \"hi\"", "say %22hi%22"),
            ("two\r\nlines", "two%0D%0Alines"),
            ("back\\slash", "back\\slash"),
            ("naïve résumé", "naïve résumé"),
            ("日本語ファイル", "日本語ファイル"),
            ("100%", "100%"),
          ])
    func escaping(raw: String, sent: String) throws {
        #expect(MultipartFormData.escaped(raw) == sent)
        var form = MultipartFormData(boundary: "B")
        form.append(Data("x".utf8), name: raw, filename: raw + ".txt", contentType: nil)
        let body = String(decoding: try form.encodedData(), as: UTF8.self)
        #expect(body.contains("Content-Disposition: form-data; name=\"\(sent)\"; filename=\"\(sent).txt\"\r\n"))
        // No filename* (RFC 5987), which RFC 7578 §4.2 forbids.
        #expect(!body.contains("filename*"))
    }

    @Test("data holding the boundary makes the form draw a new one, absent from every in-memory part")
    func boundaryCollisionInData() throws {
        var form = MultipartFormData(boundary: "Jewzruxin-0000")
        form.append("before", name: "a")
        #expect(form.boundary == "Jewzruxin-0000")
        form.append(Data("x\r\n--Jewzruxin-0000--\r\n".utf8), name: "evil")
        #expect(form.boundary != "Jewzruxin-0000")
        #expect(form.boundary.hasPrefix("Jewzruxin-") && form.boundary.utf8.count == 42)
        let body = try form.encodedData()
        // The boundary appears exactly as the three delimiters, nowhere else.
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.components(separatedBy: form.boundary).count - 1 == 3)
        #expect(text.contains("--Jewzruxin-0000--"))
    }

    @Test("a name or file name holding the boundary does too", arguments: ["name", "filename", "header"])
    func boundaryCollisionInHead(place: String) {
        var form = MultipartFormData(boundary: "Jewzruxin-1111")
        switch place {
        case "name": form.append("v", name: "Jewzruxin-1111")
        case "filename": form.append(Data(), name: "f", filename: "Jewzruxin-1111.txt")
        default: form.append(Data(), name: "f", headers: ["X-B": "Jewzruxin-1111"])
        }
        #expect(form.boundary != "Jewzruxin-1111")
    }

    @Test("a file part: its head, the file's bytes read from disk, a guessed Content-Type; the length counts the file")
    func filePart() throws {
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let file = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData(boundary: "qq")
        form.append(fileAt: file, name: "upload", filename: "photo.JPG")
        form.append(fileAt: file, name: "raw")
        let head1 = "--qq\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"photo.JPG\"\r\nContent-Type: image/jpeg\r\n\r\n"
        let head2 = "\r\n--qq\r\nContent-Disposition: form-data; name=\"raw\"; filename=\"\(file.lastPathComponent)\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        var expected = Data(head1.utf8) + bytes
        expected += Data(head2.utf8) + bytes + Data("\r\n--qq--\r\n".utf8)
        // (A one-letter boundary such as "B" would be replaced: the file's name holds a UUID.)
        #expect(form.boundary == "qq")
        #expect(try form.encodedData() == expected)
        #expect(try form.contentLength() == Int64(expected.count))
    }

    @Test("the reader gives the same bytes whatever the buffer size", arguments: [1, 7, 4096, 1 << 20])
    func readerBuffers(size: Int) throws {
        let file = try temporaryFile(Data((0..<70_000).map { UInt8($0 % 253) }))
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData(boundary: "B")
        form.append("field", name: "f")
        form.append(fileAt: file, name: "file")
        let streamed = Data((0..<5_000).map { UInt8($0 % 11) })
        form.append(name: "s", length: Int64(streamed.count)) { InputStream(data: streamed) }
        form.append(Data([9, 9]), name: "d")
        let whole = try form.encodedData()
        let reader = MultipartBodyReader(try form.plan())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        var pieces = Data()
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            pieces.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        #expect(pieces == whole)
        #expect(reader.sent == Int64(whole.count))
        #expect(reader.length == Int64(whole.count))
    }

    @Test("a stream of unknown length makes the length unknown; a new stream for every pass")
    func unknownLengthStream() throws {
        let opened = Locked(0)
        var form = MultipartFormData(boundary: "B")
        form.append(name: "s", filename: "s.txt", contentType: "text/plain", length: nil) {
            opened.withLock { $0 += 1 }
            return InputStream(data: Data("streamed".utf8))
        }
        #expect(try form.contentLength() == nil)
        let expected = "--B\r\nContent-Disposition: form-data; name=\"s\"; filename=\"s.txt\"\r\nContent-Type: text/plain\r\n\r\nstreamed\r\n--B--\r\n"
        #expect(try form.encodedData() == Data(expected.utf8))
        #expect(try form.encodedData() == Data(expected.utf8))
        #expect(opened.withLock { $0 } == 2)
    }

    @Test("a stream that gives fewer or more bytes than its length is an error naming the part", arguments: [3, 5])
    func streamLengthMismatch(declared: Int64) {
        var form = MultipartFormData()
        form.append(name: "s", length: declared) { InputStream(data: Data("four".utf8)) }
        #expect {
            _ = try form.encodedData()
        } throws: { error in
            guard case MultipartFormDataError.contentChanged(let part, _) = error else { return false }
            return part == "s"
        }
    }

    @Test("a stream factory that throws is an error naming the part")
    func throwingFactory() {
        struct Gone: Error {}
        var form = MultipartFormData()
        form.append(name: "s", length: nil) { throw Gone() }
        #expect(throws: MultipartFormDataError.self) { _ = try form.encodedData() }
    }

    @Test("a missing file, a directory: unreadableFile, naming the part and the path")
    func unreadableFiles() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-missing-\(UUID().uuidString)")
        var form = MultipartFormData()
        form.append("x", name: "x")
        form.append(fileAt: missing, name: "doc")
        #expect(throws: MultipartFormDataError.unreadableFile(part: "doc", path: missing.path, reason: "no such file")) {
            _ = try form.contentLength()
        }
        var directory = MultipartFormData()
        directory.append(fileAt: FileManager.default.temporaryDirectory, name: "dir")
        #expect(throws: MultipartFormDataError.unreadableFile(
            part: "dir", path: FileManager.default.temporaryDirectory.path, reason: "not a regular file")) {
            _ = try directory.encodedData()
        }
    }

    @Test("a part header that would break the message, or that the part sets itself, is refused",
          arguments: [
            ("Content-Type", "text/plain\r\nX-Injected: 1", true),
            ("X-Ok", "a\nb", false),
            ("Bad Name", "v", false),
            ("content-disposition", "form-data; name=\"other\"", false),
            ("Content-Type", "text/html", false),
          ])
    func invalidHeaders(name: String, value: String, asContentType: Bool) {
        var form = MultipartFormData()
        if asContentType {
            form.append(Data(), name: "p", contentType: value)
        } else {
            form.append(Data(), name: "p", headers: [name: value])
        }
        #expect {
            _ = try form.plan()
        } throws: { error in
            guard case MultipartFormDataError.invalidHeader(let part, let header, _) = error else { return false }
            return part == "p" && header == name
        }
    }

    @Test("forms are values: equal when their boundary and parts are; a stream source equals only its copies")
    func equality() {
        var one = MultipartFormData(boundary: "B")
        one.append("v", name: "n")
        var two = MultipartFormData(boundary: "B")
        two.append("v", name: "n")
        #expect(one == two)
        let source = MultipartFormData.StreamSource(length: 1) { InputStream(data: Data("a".utf8)) }
        #expect(source == source)
        #expect(source != MultipartFormData.StreamSource(length: 1) { InputStream(data: Data("a".utf8)) })
    }

    @Test("media types guessed from file names", arguments: [
        ("a.png", "image/png"), ("b.JSON", "application/json"), ("c.tar.gz", "application/gzip"),
        ("noext", "application/octet-stream"), (".hidden", "application/octet-stream"), ("d.xyz", "application/octet-stream"),
    ])
    func mediaTypes(name: String, type: String) {
        #expect(MultipartFormData.mediaType(forFilename: name) == type)
    }
}
