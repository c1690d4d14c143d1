import Foundation

/// Turns the bytes of a `text/event-stream` body into events, fed chunk by chunk as they arrive,
/// by the WHATWG HTML standard's rules (§9.2.6, "Interpreting an event stream"):
///
/// - a byte order mark at the very start is skipped;
/// - lines end with CRLF, LF or CR, a CRLF split between two chunks included;
/// - `data:` lines add to the event's data (joined with `\n`), `event:` sets its type, `id:` the
///   last event ID (unless it holds a NUL), `retry:` the reconnection time in milliseconds (digits
///   only), a line starting with `:` is a comment; one space after the colon is dropped;
/// - an empty line dispatches the event, unless its data is empty;
/// - at the end of the stream an event without its empty line is dropped.
///
/// A value type with no lock and no I/O: what a content handler (``EventStreamParser``) and the
/// async sequence (``HTTPCycle/EventStream``) build on, and what tests drive byte by byte.
///
/// A server controls what it sends: a line is at most ``maximumLineLength`` bytes and an event's
/// data at most ``maximumEventSize``; past either, ``feed(_:_:)`` throws ``EventStreamError``.
public struct EventStreamDecoder: Sendable {
    /// The longest line taken, in bytes, 1 MiB by default.
    public var maximumLineLength: Int
    /// The most data an event may gather, in bytes, 8 MiB by default.
    public var maximumEventSize: Int

    /// The last event ID set by the stream (empty for none), which a reconnection sends as
    /// `Last-Event-ID`. Kept across ``reset()``, as a reconnection keeps it.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for with `retry:`, in milliseconds, if it did.
    public private(set) var reconnectionTime: Int?

    private var line: [UInt8] = []
    /// The last byte was a CR that ended a line: an LF now (maybe the next chunk's first byte) is
    /// the rest of a CRLF.
    private var skipsLF = false
    /// Whether the start of the stream, where a byte order mark may be, is still ahead.
    private var atStart = true
    private var data = ""
    private var dataBytes = 0
    private var type = ""
    private var pendingID: String?

    /// A decoder with the default limits.
    ///
    /// - Parameters:
    ///   - maximumLineLength: The longest line taken, in bytes.
    ///   - maximumEventSize: The most data one event may gather, in bytes.
    public init(maximumLineLength: Int = 1 << 20, maximumEventSize: Int = 8 << 20) {
        self.maximumLineLength = maximumLineLength
        self.maximumEventSize = maximumEventSize
    }

    /// Reads the next bytes of the stream, and hands each event they complete to `dispatch`, in order.
    ///
    /// - Throws: ``EventStreamError`` with ``EventStreamError/Code/lineTooLong`` or
    ///   ``EventStreamError/Code/eventTooLarge`` (the decoder then takes no more), or what
    ///   `dispatch` throws.
    public mutating func feed(_ chunk: Data, _ dispatch: (ServerSentEvent) throws -> Void) throws {
        var bytes = chunk
        if atStart {
            // Until three bytes have come, the line holds what may be a split byte order mark.
            let held = Data(line) + chunk
            line.removeAll()
            if held.count < 3, Self.byteOrderMark.starts(with: held) {
                line = Array(held)
                return
            }
            atStart = false
            bytes = held.starts(with: Self.byteOrderMark) ? held.dropFirst(3) : held
        }
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0A, skipsLF {
                    // The LF of a CRLF whose CR ended the line.
                    skipsLF = false
                } else {
                    try take(bytes[start..<index])
                    try endLine(dispatch)
                    skipsLF = byte == 0x0D
                }
                index += 1
                start = index
            } else {
                skipsLF = false
                index += 1
            }
        }
        try take(bytes[start..<index])
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The stream ended: an event without its empty line is dropped, as is a partial line.
    public mutating func finish() {
        line = []
        data = ""
        dataBytes = 0
        type = ""
        pendingID = nil
        skipsLF = false
    }

    /// Starts a new stream (a reconnection): the last event ID and reconnection time are kept.
    public mutating func reset() {
        finish()
        atStart = true
    }

    private mutating func take(_ bytes: Data.SubSequence) throws {
        guard !bytes.isEmpty else { return }
        guard line.count + bytes.count <= maximumLineLength else {
            throw EventStreamError(.lineTooLong, reason: "The event stream sent a line longer than \(maximumLineLength) bytes.")
        }
        line.append(contentsOf: bytes)
    }

    private mutating func endLine(_ dispatch: (ServerSentEvent) throws -> Void) throws {
        defer { line.removeAll(keepingCapacity: line.count <= 4096) }
        guard !line.isEmpty else {
            try dispatchEvent(dispatch)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let field: String
        var value = ""
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: line[..<colon], as: UTF8.self)
            var valueStart = colon + 1
            if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
            value = String(decoding: line[valueStart...], as: UTF8.self)
        } else {
            field = String(decoding: line, as: UTF8.self)
        }
        switch field {
        case "event":
            type = value
        case "data":
            dataBytes += value.utf8.count + 1
            guard dataBytes <= maximumEventSize else {
                throw EventStreamError(.eventTooLarge, reason: "An event of the stream has more than \(maximumEventSize) bytes of data.")
            }
            data += value
            data += "\n"
        case "id":
            if !value.utf8.contains(0) { pendingID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                // Digits only; a value too large for an Int stands for "a very long time".
                reconnectionTime = Int(value) ?? Int.max
            }
        default:
            break
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) throws -> Void) throws {
        if let pendingID {
            lastEventID = pendingID
            self.pendingID = nil
        }
        defer {
            data = ""
            dataBytes = 0
            type = ""
        }
        guard !data.isEmpty else { return }
        data.removeLast()
        let event = ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, id: lastEventID.isEmpty ? nil : lastEventID)
        try dispatch(event)
    }
}
