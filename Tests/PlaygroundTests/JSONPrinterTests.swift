import Foundation
import Jewzruxin
import Testing
@testable import PlaygroundKit

@Suite("JSONPrinter: stable pretty and compact JSON")
struct JSONPrinterTests {
    @Test("pretty: sorted keys, two spaces per level, empty containers on one line")
    func pretty() {
        let value: JSON = ["b": [1, 2.5, [:], []], "a": ["z": nil, "y": true], "c": "x"]

        #expect(JSONPrinter.pretty(value) == """
            {
              "a": {
                "y": true,
                "z": null
              },
              "b": [
                1,
                2.5,
                {},
                []
              ],
              "c": "x"
            }
            """)
    }

    @Test("scalars print alone")
    func scalars() {
        #expect(JSONPrinter.pretty(42) == "42")
        #expect(JSONPrinter.pretty("Squirrel Hill") == #""Squirrel Hill""#)
        #expect(JSONPrinter.pretty(nil) == "null")
        #expect(JSONPrinter.pretty(false) == "false")
    }

    @Test("compact: one line, no spaces, keys sorted")
    func compact() {
        #expect(JSONPrinter.compact(["b": [1, nil], "a": "x"]) == #"{"a":"x","b":[1,null]}"#)
    }

    @Test("strings escape quotes, backslashes and control characters, and keep / and non-ASCII")
    func escaping() throws {
        let text = "a\"b\\c\n\t\r\u{08}\u{0C}\u{01}/é😀"
        let printed = JSONPrinter.pretty(.string(text))

        #expect(printed == #""a\"b\\c\n\t\r\b\f\u0001/é😀""#)
        #expect(try JSON(data: Data(printed.utf8)) == .string(text))
    }
}
