import Foundation

/// The bytes read from a connection and not consumed yet.
struct ReadBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var start = 0

    var count: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }

    mutating func append(_ buffer: UnsafeRawBufferPointer) {
        if start > 0, start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 65_536, start * 2 >= bytes.count {
            bytes.removeFirst(start)
            start = 0
        }
        bytes.append(contentsOf: buffer)
    }

    mutating func append(_ data: some Sequence<UInt8>) {
        if start > 0, start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        }
        bytes.append(contentsOf: data)
    }

    /// Takes the next `count` bytes as `Data`.
    mutating func take(_ count: Int) -> Data {
        let data = bytes.withUnsafeBufferPointer { Data(buffer: UnsafeBufferPointer(rebasing: $0[start..<start + count])) }
        start += count
        return data
    }

    mutating func skip(_ count: Int) {
        start += count
    }

    /// The index (relative to the unconsumed bytes) just past the first `\n` at or after `offset`,
    /// looking at no more than `limit` bytes.
    func lineEnd(from offset: Int = 0, limit: Int) -> Int? {
        let end = min(bytes.count, start + limit)
        var index = start + offset
        while index < end {
            if bytes[index] == 0x0A { return index + 1 - start }
            index += 1
        }
        return nil
    }

    subscript(offset: Int) -> UInt8 { bytes[start + offset] }

    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        bytes[start + range.lowerBound..<start + range.upperBound]
    }
}

/// The status line and header fields of a response.
struct ResponseHead: Sendable, Equatable {
    var major: Int
    var minor: Int
    var status: Int
    var reason: String
    /// In the order received, names as spelled by the server.
    var fields: [(name: String, value: String)]

    static func == (lhs: ResponseHead, rhs: ResponseHead) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.status == rhs.status && lhs.reason == rhs.reason
            && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Every value of a field, the name matched case-insensitively.
    func values(_ name: String) -> [String] {
        fields.filter { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    /// Whether the comma-separated values of `name` include `token`, case-insensitively.
    func hasToken(_ token: String, in name: String) -> Bool {
        fields.contains { field in
            HTTPHeaderSyntax.equalIgnoringASCIICase(field.name, name)
                && HTTPHeaderSyntax.listItems(field.value).contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, token.utf8) }
        }
    }
}

/// Reads one HTTP/1.1 response at a time out of a ``ReadBuffer``, as bytes arrive (RFC 9112).
///
/// Interim (1xx) responses are skipped, their bytes counted against the head limit with the final
/// head's. The body is delimited by `Transfer-Encoding: chunked` (trailers read and dropped),
/// `Content-Length`, or the end of the connection; a response to HEAD, a 204, a 304 and an
/// asked-for 101 have none. The head and the framing follow ``ResponseRules``, the rules every
/// transport applies.
struct ResponseDecoder {
    enum Event: Equatable {
        case head(ResponseHead)
        case body(Data)
        /// The response is complete; `reusable` tells whether the connection may carry another.
        case end(reusable: Bool)
    }

    private enum State: Equatable {
        case head
        case fixed(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd
        case trailers(size: Int)
        case untilClose
        /// The body is complete; the end is yet to be reported.
        case done
        case finished
    }

    /// The largest header section (status line included) accepted, in bytes.
    let headerLimit: Int
    /// Whether the request was a HEAD (its response has no body whatever its headers say).
    let isHeadRequest: Bool
    /// Whether the request asked to switch protocols: a 101 is then its response; otherwise a 101
    /// is refused.
    let upgradeRequested: Bool

    private var state = State.head
    private var keepAlive = true
    private var scanOffset = 0
    private var headLines: [Range<Int>] = []

    init(isHeadRequest: Bool, upgradeRequested: Bool = false, headerLimit: Int = ResponseRules.defaultHeadLimit) {
        self.isHeadRequest = isHeadRequest
        self.upgradeRequested = upgradeRequested
        self.headerLimit = headerLimit
        // Room for a typical head, so it isn't grown line by line.
        headLines.reserveCapacity(16)
    }

    /// Whether the whole response was read and its end reported.
    var isFinished: Bool { state == .finished }
    /// Whether a response head was read (so the response began).
    private(set) var receivedHead = false
    /// The bytes of head read so far: the final response's status line and fields, with those of
    /// interim responses before it and the blank lines that end them.
    private(set) var headBytes = 0

    /// The next event the buffered bytes make, or `nil` when more bytes are needed.
    mutating func next(_ buffer: inout ReadBuffer) throws(ResponseDecodingError) -> Event? {
        switch state {
        case .head:
            guard let head = try readHead(&buffer) else { return nil }
            return .head(head)
        case .fixed(let remaining):
            guard !buffer.isEmpty else { return nil }
            let count = Int(min(Int64(buffer.count), remaining))
            let data = buffer.take(count)
            state = remaining == Int64(count) ? .done : .fixed(remaining: remaining - Int64(count))
            return .body(data)
        case .chunkSize:
            guard let end = buffer.lineEnd(limit: 1024) else {
                if buffer.count >= 1024 { throw .badChunk }
                return nil
            }
            guard let size = HTTPHeaderSyntax.chunkSize(Self.trimmed(buffer.slice(0..<end))) else { throw .badChunk }
            buffer.skip(end)
            state = size == 0 ? .trailers(size: 0) : .chunkData(remaining: size)
            return try next(&buffer)
        case .chunkData(let remaining):
            guard !buffer.isEmpty else { return nil }
            let count = Int(min(Int64(buffer.count), remaining))
            let data = buffer.take(count)
            state = remaining == Int64(count) ? .chunkDataEnd : .chunkData(remaining: remaining - Int64(count))
            return .body(data)
        case .chunkDataEnd:
            guard buffer.count >= 1 else { return nil }
            if buffer[0] == 0x0A {
                buffer.skip(1)
            } else {
                guard buffer.count >= 2 else { return nil }
                guard buffer[0] == 0x0D, buffer[1] == 0x0A else { throw .badChunk }
                buffer.skip(2)
            }
            state = .chunkSize
            return try next(&buffer)
        case .trailers(var size):
            // Trailer fields are read and dropped, a line at a time, within the header limit.
            while true {
                guard let end = buffer.lineEnd(limit: headerLimit - size) else {
                    if buffer.count >= headerLimit - size { throw .headerTooLarge(limit: headerLimit) }
                    state = .trailers(size: size)
                    return nil
                }
                let blank = Self.isBlank(buffer.slice(0..<end))
                buffer.skip(end)
                size += end
                if blank { break }
            }
            state = .done
            return try next(&buffer)
        case .untilClose:
            guard !buffer.isEmpty else { return nil }
            return .body(buffer.take(buffer.count))
        case .done:
            state = .finished
            return .end(reusable: keepAlive && buffer.isEmpty)
        case .finished:
            return nil
        }
    }

    /// What the end of the connection means now: the last event, or an error if the response is
    /// incomplete.
    mutating func connectionClosed(_ buffer: inout ReadBuffer) throws(ResponseDecodingError) -> Event? {
        switch state {
        case .untilClose, .done:
            state = .finished
            return .end(reusable: false)
        case .finished:
            return nil
        case .head:
            throw .unexpectedEnd
        default:
            throw .bodyTruncated
        }
    }

    // MARK: Head

    private mutating func readHead(_ buffer: inout ReadBuffer) throws(ResponseDecodingError) -> ResponseHead? {
        // Lines found so far are remembered (as offsets into the unconsumed bytes, which don't move
        // until the head is consumed), so a head arriving a byte at a time is scanned once. The
        // limit holds for all the heads of the response together: interim ones are consumed as
        // they end, and their bytes (`headBytes`) leave less room for the rest.
        while true {
            let room = headerLimit - headBytes
            guard let end = buffer.lineEnd(from: scanOffset, limit: room) else {
                if buffer.count >= room { throw .headerTooLarge(limit: headerLimit) }
                return nil
            }
            let line = scanOffset..<end
            scanOffset = end
            guard Self.isBlank(buffer.slice(line)) else {
                headLines.append(line)
                continue
            }
            // A response begins with its status line: an empty line first is not one (libcurl
            // takes it for HTTP/0.9, which it refuses too).
            guard !headLines.isEmpty else { throw .badStatusLine }
            let head = try Self.parseHead(headLines.map { buffer.slice($0) })
            buffer.skip(end)
            headBytes += end
            scanOffset = 0
            headLines.removeAll(keepingCapacity: true)
            if (100..<200).contains(head.status), head.status != 101 {
                // An interim response: the final one follows.
                continue
            }
            receivedHead = true
            try frame(head)
            return head
        }
    }

    private mutating func frame(_ head: ResponseHead) throws(ResponseDecodingError) {
        let (framing, keepAlive) = try ResponseRules.framing(
            status: head.status, http10: head.major == 1 && head.minor == 0, fields: head.fields, isHeadRequest: isHeadRequest,
            upgradeRequested: upgradeRequested)
        self.keepAlive = keepAlive
        switch framing {
        case .none, .length(0): state = .done
        case .length(let length): state = .fixed(remaining: length)
        case .chunked: state = .chunkSize
        case .untilClose: state = .untilClose
        }
    }

    private static func parseHead(_ lines: [ArraySlice<UInt8>]) throws(ResponseDecodingError) -> ResponseHead {
        guard let first = lines.first else { throw .badStatusLine }
        var head = try parseStatusLine(trimmed(first))
        head.fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let line = trimmed(line)
            if let first = line.first, HTTPHeaderSyntax.isSpace(first) {
                // Obsolete line folding: a user agent replaces it with a space (RFC 9112 §5.2); a
                // fold with no field before it is an error.
                guard let last = head.fields.indices.last else { throw .badHeaderField }
                head.fields[last].value = try ResponseRules.unfolding(head.fields[last].value, line)
                continue
            }
            let (name, value) = try ResponseRules.field(line)
            head.fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return head
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(ResponseDecodingError) -> ResponseHead {
        // HTTP/x.y SP 3DIGIT [SP reason]
        let start = line.startIndex
        // The byte at `offset` from the start of the line.
        func at(_ offset: Int) -> UInt8 { line[start + offset] }
        guard line.count >= 12, at(0) == 0x48, at(1) == 0x54, at(2) == 0x54, at(3) == 0x50, at(4) == 0x2F,
              isDigit(at(5)), at(6) == 0x2E, isDigit(at(7)), at(8) == 0x20,
              isDigit(at(9)), isDigit(at(10)), isDigit(at(11)),
              line.count == 12 || at(12) == 0x20
        else { throw .badStatusLine }
        let major = Int(at(5) - 0x30)
        let minor = Int(at(7) - 0x30)
        guard major == 1 else { throw .badStatusLine }
        let status = Int(at(9) - 0x30) * 100 + Int(at(10) - 0x30) * 10 + Int(at(11) - 0x30)
        guard status >= 100 else { throw .badStatusLine }
        let reasonBytes = line.count > 13 ? line[(start + 13)...] : []
        guard ResponseRules.isValidValue(reasonBytes) else { throw .badStatusLine }
        return ResponseHead(major: major, minor: minor, status: status, reason: String(decoding: reasonBytes, as: UTF8.self), fields: [])
    }

    /// `line` without its line ending (`\r\n` or a bare `\n`).
    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var line = line
        if line.last == 0x0A { line = line.dropLast() }
        if line.last == 0x0D { line = line.dropLast() }
        return line
    }

    private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        trimmed(line).isEmpty
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
