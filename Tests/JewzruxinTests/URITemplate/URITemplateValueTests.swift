import Foundation
import Testing
@testable import Jewzruxin

/// How Swift values convert to URI template values.
@Suite("URITemplate: value conversion")
struct URITemplateValueTests {
    static func expand(_ template: String, _ values: [String: any Sendable]) throws -> String {
        try URITemplate(template).expand(values)
    }

    @Test("Scalars: strings, substrings, characters, integers, floating point, Bool")
    func scalars() throws {
        #expect(try Self.expand("{a,b,c}", ["a": Substring("x y"), "b": Character("é"), "c": "s"]) == "x%20y,%C3%A9,s")
        #expect(try Self.expand("{?i,u,n}", ["i": 42, "u": UInt8(7), "n": Int64(-3)]) == "?i=42&u=7&n=-3")
        #expect(try Self.expand("{?d,f}", ["d": 37.76, "f": Float(1.5)]) == "?d=37.76&f=1.5")
        #expect(try Self.expand("{?t,f}", ["t": true, "f": false]) == "?t=true&f=false")
        #expect(try Self.expand("{/v}", ["v": URITemplate.Value.string("a/b")]) == "/a%2Fb")
    }

    @Test("nil, missing names and empty composites are undefined")
    func undefined() throws {
        let none: String? = nil
        let some: String? = "v"
        #expect(try Self.expand("{?a,b,c,d,e}", ["a": none, "c": some, "d": [String](), "e": [String: String]()]) == "?c=v")
        #expect(try Self.expand("{?list*}", ["list": ["a", nil, "b"] as [String?]]) == "?list=a&list=b")
        #expect(try Self.expand("{?m*}", ["m": ["k": nil, "j": "1"] as [String: String?]]) == "?j=1")
        #expect(try Self.expand("x{a}y", [:]) == "xy")
    }

    @Test("Lists of mixed scalars")
    func lists() throws {
        #expect(try Self.expand("{list}", ["list": [1, 2, 3]]) == "1,2,3")
        #expect(try Self.expand("{/list*}", ["list": ["a b", "c"]]) == "/a%20b/c")
        #expect(try Self.expand("{;list*}", ["list": [1, "", true] as [any Sendable]]) == ";list=1;list;list=true")
        #expect(try Self.expand("{.v}", ["v": ["x", "y"] as URITemplate.Value]) == ".x,y")
    }

    @Test("Dictionaries expand with their keys sorted")
    func dictionaries() throws {
        let values: [String: any Sendable] = ["m": ["zeta": 1, "alpha": 2, "mid": 3]]
        #expect(try Self.expand("{?m*}", values) == "?alpha=2&mid=3&zeta=1")
        #expect(try Self.expand("{m}", values) == "alpha,2,mid,3,zeta,1")
    }

    @Test("KeyValuePairs, ordered pairs and Value literals keep their order")
    func orderedPairs() throws {
        let pairs: KeyValuePairs<String, String> = ["zeta": "1", "alpha": "2"]
        #expect(try Self.expand("{?m*}", ["m": pairs]) == "?zeta=1&alpha=2")
        let tuples: [(String, Int)] = [("z", 1), ("a", 2)]
        #expect(try Self.expand("{&m*}", ["m": tuples]) == "&z=1&a=2")
        let labelled: [(key: String, value: String)] = [(key: "z", value: "1"), (key: "a", value: "")]
        #expect(try Self.expand("{;m*}", ["m": labelled]) == ";z=1;a")
        let literal: URITemplate.Value = ["z": "1", "a": "2"]
        #expect(literal == .pairs([.init("z", "1"), .init("a", "2")]))
        #expect(try Self.expand("{#m}", ["m": literal]) == "#z,1,a,2")
    }

    @Test("Reserved expansion keeps reserved characters and pct-encoded triplets")
    func reserved() throws {
        let values: [String: any Sendable] = ["v": "a/b?c=%20 d%zz"]
        #expect(try Self.expand("{+v}", values) == "a/b?c=%20%20d%25zz")
        #expect(try Self.expand("{v}", values) == "a%2Fb%3Fc%3D%2520%20d%25zz")
        #expect(try Self.expand("{+v:7}", values) == "a/b?c=%20")
        #expect(try Self.expand("{v:3}", ["v": "ä%20"]) == "%C3%A4%252")
    }
}
