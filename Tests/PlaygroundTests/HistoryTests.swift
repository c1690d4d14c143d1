import Foundation
import Testing
@testable import PlaygroundKit

@Suite("History: lines, the limit and the dotfile")
struct HistoryTests {
    @Test("blank lines and a line repeating the last one are not recorded")
    func add() {
        var history = History()
        for line in ["GET /hello/", "  ", "GET /hello/", "text", " GET /hello/ ", "text\nmore"] { history.add(line) }

        #expect(history.entries == ["GET /hello/", "text", "GET /hello/"])
    }

    @Test("only the newest lines up to the limit are kept")
    func limit() {
        var history = History(entries: ["a", "b", "c"], limit: 2)
        #expect(history.entries == ["b", "c"])
        history.add("d")
        #expect(history.entries == ["c", "d"])
    }

    @Test("the listing numbers the lines from 1")
    func listing() {
        let history = History(entries: ["GET /hello/", "text"])
        #expect(history.listing == "    1  GET /hello/\n    2  text")
        #expect(History().listing == "")
    }

    @Test("the file is JEWZRUXIN_PLAYGROUND_HISTORY when set, else ~/.jewzruxin_playground_history")
    func fileLocation() {
        let home = URL(fileURLWithPath: "/home/u")
        #expect(History.fileURL(environment: [:], home: home).path == "/home/u/.jewzruxin_playground_history")
        #expect(History.fileURL(environment: ["JEWZRUXIN_PLAYGROUND_HISTORY": ""], home: home).path
            == "/home/u/.jewzruxin_playground_history")
        #expect(History.fileURL(environment: ["JEWZRUXIN_PLAYGROUND_HISTORY": "/tmp/h"], home: home).path == "/tmp/h")
    }

    @Test("saving and loading keep the lines; the file is readable by its owner only")
    func roundTrip() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let history = History(entries: ["GET /hello/", "auth test 12345", "json stores.0.name"])

        try history.save(to: url)

        #expect(History.load(from: url) == history)
        #expect(try String(contentsOf: url, encoding: .utf8) == "GET /hello/\nauth test 12345\njson stores.0.name\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("a missing file is an empty history")
    func missingFile() {
        #expect(History.load(from: URL(fileURLWithPath: "/nonexistent/history")).entries == [])
    }
}
