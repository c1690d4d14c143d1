import Foundation
import Testing
@testable import Jewzruxin

@Suite("JSON value")
struct JSONTests {
    @Test("parses every kind of value")
    func parse() throws {
        let json = try JSON(data: Data(#"{"s":"x","i":3,"d":2.5,"b":true,"n":null,"a":[1,"two"],"o":{"k":[{"z":1}]}}"#.utf8))
        #expect(json["s"] == "x")
        #expect(json["i"]?.intValue == 3)
        #expect(json["d"]?.doubleValue == 2.5)
        #expect(json["b"]?.boolValue == true)
        #expect(json["n"]?.isNull == true)
        #expect(json["a"] == [1, "two"])
        #expect(json.value(atKeyPath: "o.k.0.z") == 1)
        #expect(json.value(atKeyPath: "o.k.1.z") == nil)
        #expect(json.value(atKeyPath: "missing.path") == nil)
    }

    @Test("nested objects keep their own members, the first of repeated keys winning at every level")
    func nestedObjects() throws {
        let text = #"{"a":{"b":1,"c":{"d":3,"d":4},"b":2},"a":5,"e":[{"f":1},{},{"f":2,"g":{"h":[{"i":1}]},"f":3}],"z":{}}"#
        let json = try JSON(data: Data(text.utf8))
        #expect(json == [
            "a": ["b": 1, "c": ["d": 3]],
            "e": [["f": 1], [:], ["f": 2, "g": ["h": [["i": 1]]]]],
            "z": [:],
        ])
        // A failure inside a nested object leaves no member behind for the next document.
        #expect(throws: (any Error).self) { try JSON(data: Data(#"{"a":{"b":1,"c":[}"#.utf8)) }
        #expect(try JSON(data: Data(#"{"k":{"x":1}}"#.utf8)) == ["k": ["x": 1]])
    }

    @Test("malformed JSON throws")
    func malformed() {
        #expect(throws: (any Error).self) { try JSON(data: Data("{broken".utf8)) }
        #expect(throws: (any Error).self) { try JSON(data: Data()) }
    }

    @Test("converts Swift values, Encodable ones included, and refuses what has no JSON form")
    func converting() throws {
        struct Store: Encodable { let name: String; let zip: Int }
        let value: [String: any Sendable] = ["k1": "v1", "k2": 9, "k3": [17, "v3"] as [any Sendable], "store": Store(name: "A", zip: 94_103), "f": 1.5, "t": false]
        let json = try JSON(converting: value)
        #expect(json == ["k1": "v1", "k2": 9, "k3": [17, "v3"], "store": ["name": "A", "zip": 94_103], "f": 1.5, "t": false])
        #expect(throws: HTTPProcessorError.self) { try JSON(converting: ["date": NSObject()]) }
    }

    @Test("encodes with sorted keys, round-trips")
    func encode() throws {
        let json: JSON = ["b": [true, nil, 1.5], "a": "x/y"]
        let data = try json.encoded()
        #expect(String(decoding: data, as: UTF8.self) == #"{"a":"x/y","b":[true,null,1.5]}"#)
        #expect(try JSON(data: data) == json)
    }
}
