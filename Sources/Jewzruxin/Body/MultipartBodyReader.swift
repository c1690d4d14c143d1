import Foundation

/// Reads a ``MultipartFormData`` body from its start, piece by piece, into the buffers a transport
/// gives: files read straight into them, streams opened as they are reached. One per attempt;
/// used by one thread at a time.
///
/// A file gives exactly the size measured when the plan was made (a file that grew meanwhile is
/// cut there, one that shrank is an error), and a stream of known length exactly that length, so
/// the `Content-Length` sent is always the body's.
final class MultipartBodyReader {
    /// The body's length, `nil` when unknown.
    let length: Int64?
    private let segments: [MultipartFormData.Plan.Segment]
    private var index = 0
    /// Where the reader is in the current segment.
    private var offset: Int64 = 0
    private var file: Int32 = -1
    private var stream: InputStream?
    /// The bytes read so far.
    private(set) var sent: Int64 = 0

    init(_ plan: MultipartFormData.Plan) {
        length = plan.length
        segments = plan.segments
    }

    deinit {
        close()
    }

    /// Fills `buffer` with the next bytes, as many as fit; 0 at the end of the body.
    ///
    /// - Throws: ``MultipartFormDataError`` when a file can't be read or changed, or a stream fails.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MultipartFormDataError) -> Int {
        var filled = 0
        while filled < buffer.count, index < segments.count {
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            let count: Int
            switch segments[index] {
            case .bytes(let data):
                let start = Int(offset)
                count = min(target.count, data.count - start)
                data.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
                if start + count == data.count { next() } else { offset += Int64(count) }
            case .file(let path, let size, let part):
                count = try readFile(path, size: size, part: part, into: target)
            case .stream(let source, let part):
                count = try readStream(source, part: part, into: target)
            }
            filled += count
        }
        sent += Int64(filled)
        return filled
    }

    /// Closes the file or stream being read.
    func close() {
        if file >= 0 {
            _ = POSIXFile.close(file)
            file = -1
        }
        stream?.close()
        stream = nil
    }

    private func next() {
        close()
        index += 1
        offset = 0
    }

    private func readFile(_ path: String, size: Int64, part: String, into target: UnsafeMutableRawBufferPointer) throws(MultipartFormDataError) -> Int {
        let remaining = size - offset
        guard remaining > 0 else {
            next()
            return 0
        }
        if file < 0 {
            file = systemOpen(path)
            guard file >= 0 else { throw .unreadableFile(part: part, path: path, reason: String(cString: strerror(errno))) }
        }
        let wanted = Int(min(Int64(target.count), remaining))
        var count: Int
        repeat {
            count = systemRead(file, target.baseAddress, wanted)
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw .unreadableFile(part: part, path: path, reason: String(cString: strerror(errno))) }
        guard count > 0 else {
            throw .contentChanged(part: part, reason: "the file \(path) shrank from \(size) to \(offset) bytes")
        }
        offset += Int64(count)
        if offset == size { next() }
        return count
    }

    private func readStream(
        _ source: MultipartFormData.StreamSource, part: String, into target: UnsafeMutableRawBufferPointer
    ) throws(MultipartFormDataError) -> Int {
        let stream: InputStream
        if let open = self.stream {
            stream = open
        } else {
            do {
                stream = try source.open()
            } catch {
                throw .unreadableStream(part: part, reason: "its factory threw \(error)")
            }
            stream.open()
            self.stream = stream
        }
        var wanted = target.count
        if let length = source.length {
            wanted = Int(min(Int64(wanted), length - offset))
            if wanted == 0 {
                try checkEnd(of: stream, length: length, part: part)
                next()
                return 0
            }
        }
        guard let base = target.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let count = stream.read(base, maxLength: wanted)
        if count < 0 {
            throw .unreadableStream(part: part, reason: stream.streamError.map { "\($0)" } ?? "the stream failed")
        }
        if count == 0 {
            if let length = source.length {
                throw .contentChanged(part: part, reason: "the stream ended after \(offset) of its \(length) bytes")
            }
            next()
            return 0
        }
        offset += Int64(count)
        return count
    }

    /// A stream of known length must end there.
    private func checkEnd(of stream: InputStream, length: Int64, part: String) throws(MultipartFormDataError) {
        var byte: UInt8 = 0
        if stream.read(&byte, maxLength: 1) > 0 {
            throw .contentChanged(part: part, reason: "the stream gives more than its \(length) bytes")
        }
    }
}

// The C library's calls, named apart from the reader's own `close()`.
private func systemOpen(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func systemRead(_ file: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(file, buffer, count) }
