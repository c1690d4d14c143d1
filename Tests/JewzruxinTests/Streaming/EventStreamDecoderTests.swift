import Foundation
import Testing
@testable import Jewzruxin

/// The decoder alone, without a socket: the WHATWG standard's examples and rules, every split.
@Suite("Event stream decoder")
struct EventStreamDecoderTests {
    private func decode(_ chunks: [Data], decoder: EventStreamDecoder = EventStreamDecoder()) throws -> [ServerSentEvent] {
        var decoder = decoder
        var events: [ServerSentEvent] = []
        for chunk in chunks { try decoder.feed(chunk) { events.append($0) } }
        decoder.finish()
        return events
    }

    private func decode(_ text: String) throws -> [ServerSentEvent] {
        try decode([Data(text.utf8)])
    }

    @Test("the standard's examples: data lines joined, comments, ids, one space dropped, empty data")
    func standardExamples() throws {
        #expect(try decode("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
        #expect(try decode(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n") == [
            ServerSentEvent(data: "first event", id: "1"),
            ServerSentEvent(data: "second event", id: nil),
            ServerSentEvent(data: " third event", id: nil),
        ])
        // The last `data:` has no empty line after it: dropped at the end of the stream.
        #expect(try decode("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        #expect(try decode("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test("event types, the last event ID carried to later events, unknown fields and blocks without data ignored")
    func fields() throws {
        let events = try decode("event: add\ndata: 1\nid: 7\n\nfoo: bar\ndata: 2\n\nevent: only\n\nid: 8\n\ndata: 3\n\n")
        #expect(events == [
            ServerSentEvent(type: "add", data: "1", id: "7"),
            ServerSentEvent(type: "message", data: "2", id: "7"),
            // A block with an id and no data sets the ID without an event.
            ServerSentEvent(type: "message", data: "3", id: "8"),
        ])
    }

    @Test("retry takes digits only; an id with NUL is ignored; a BOM only at the very start")
    func retryIdAndBOM() throws {
        var decoder = EventStreamDecoder()
        var events: [ServerSentEvent] = []
        try decoder.feed(Data("retry: 1500\n\nretry: 15x\n\nretry:\n\nid: a\u{0}b\ndata: x\n\n".utf8)) { events.append($0) }
        #expect(decoder.reconnectionTime == 1500)
        #expect(events == [ServerSentEvent(data: "x")])
        #expect(decoder.lastEventID == "")

        let bom = Data([0xEF, 0xBB, 0xBF])
        #expect(try decode([bom + Data("data: a\n\n".utf8)]) == [ServerSentEvent(data: "a")])
        // A second BOM is part of the first line: a field name that isn't "data".
        #expect(try decode([bom + bom + Data("data: a\n\n".utf8)]).isEmpty)
        // A BOM split over chunks.
        #expect(try decode([Data([0xEF]), Data([0xBB]), Data([0xBF]) + Data("data: b\n\n".utf8)]) == [ServerSentEvent(data: "b")])
    }

    @Test("CR, LF and CRLF end lines, a CRLF split between chunks included")
    func lineEnds() throws {
        #expect(try decode("data: a\rdata: b\r\ndata: c\n\r\n") == [ServerSentEvent(data: "a\nb\nc")])
        #expect(try decode([Data("data: a\r".utf8), Data("\ndata: b\r".utf8), Data("\n\r".utf8), Data("\n".utf8)])
            == [ServerSentEvent(data: "a\nb")])
        // CR CR is two line ends: an empty line, which dispatches.
        #expect(try decode("data: a\r\rdata: b\r\r") == [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    @Test("a stream split at every byte boundary, and fed byte by byte, gives the same events")
    func everySplit() throws {
        let text = "\u{FEFF}retry: 20\r\n: comment\r\nid: 1\revent: tick\ndata: {\"n\":1}\r\ndata: é second line\n\n"
            + "id: 2\r\ndata: x\r\r\ndata: \u{1F600}\n\n"
        let bytes = Data(text.utf8)
        let whole = try decode([bytes])
        #expect(whole == [
            ServerSentEvent(type: "tick", data: "{\"n\":1}\né second line", id: "1"),
            ServerSentEvent(data: "x", id: "2"),
            ServerSentEvent(data: "\u{1F600}", id: "2"),
        ])
        for split in 0...bytes.count {
            let parts = [bytes.prefix(split), bytes.dropFirst(split)].map { Data($0) }
            #expect(try decode(parts) == whole, "split at \(split)")
        }
        #expect(try decode(bytes.map { Data([$0]) }) == whole)
    }

    @Test("a line past the limit, and an event's data past its limit, are errors")
    func limits() throws {
        let long = EventStreamDecoder(maximumLineLength: 16)
        #expect(throws: EventStreamError.self) { try decode([Data("data: 0123456789abcdef\n\n".utf8)], decoder: long) }
        // Split: the line grows over chunks.
        #expect(throws: EventStreamError.self) {
            try decode(Array(repeating: Data("aaaaaa".utf8), count: 4), decoder: long)
        }
        let small = EventStreamDecoder(maximumEventSize: 10)
        do {
            _ = try decode([Data("data: 12345\ndata: 67890\n\n".utf8)], decoder: small)
            Issue.record("no error")
        } catch let error as EventStreamError {
            #expect(error.code == .eventTooLarge)
        }
        #expect(try decode([Data("data: 1234\ndata: 5678\n\n".utf8)], decoder: small) == [ServerSentEvent(data: "1234\n5678")])
    }

    @Test("a reconnection starts a new stream and keeps the last event ID")
    func reset() throws {
        var decoder = EventStreamDecoder()
        var events: [ServerSentEvent] = []
        try decoder.feed(Data("id: 5\ndata: a\n\ndata: partial".utf8)) { events.append($0) }
        decoder.reset()
        try decoder.feed(Data("\u{FEFF}data: b\n\n".utf8)) { events.append($0) }
        #expect(events == [ServerSentEvent(data: "a", id: "5"), ServerSentEvent(data: "b", id: "5")])
        #expect(decoder.lastEventID == "5")
    }

    @Test("the data reads as JSON")
    func json() throws {
        let event = ServerSentEvent(data: "{\"delta\":\"Hel\"}")
        #expect(try event.json()["delta"]?.stringValue == "Hel")
        #expect(throws: (any Error).self) { try ServerSentEvent(data: "not json").json() }
    }
}
