import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin

/// The one percent-encoder of queries and form bodies, and the two rules it is given.
@Suite("URL encoding: the query and form rules")
struct URLEncodingTests {
    @Test("the two rules differ only on space, ~ and *", arguments: [
        // raw, query rule, form rule
        ("a b", "a%20b", "a+b"),
        ("~", "~", "%7E"),
        ("*", "%2A", "*"),
        ("-._", "-._", "-._"),
        ("AZaz09", "AZaz09", "AZaz09"),
        ("+&=%", "%2B%26%3D%25", "%2B%26%3D%25"),
        ("é日😀", "%C3%A9%E6%97%A5%F0%9F%98%80", "%C3%A9%E6%97%A5%F0%9F%98%80"),
        ("\r\n\0", "%0D%0A%00", "%0D%0A%00"),
        ("", "", ""),
    ])
    func rules(raw: String, query: String, form: String) {
        #expect(URLEncoding.encode(raw, .query) == query)
        #expect(URLEncoding.encode(raw, .form) == form)
        #expect("http://h/".mergingQueryParameters(["k": raw]) == "http://h/?k=\(query)")
        #expect(FormData(dictionaryLiteral: ("k", raw)).encoded == "k=\(form)")
    }

    /// The encoders the rules replaced: Foundation's percent-encoding with each kept set, the form
    /// one turning `%20` into `+` afterwards.
    private static func foundationEncoded(_ string: String, keeping kept: String, plusForSpace: Bool) -> String? {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: kept)
        let encoded = string.addingPercentEncoding(withAllowedCharacters: allowed)
        return plusForSpace ? encoded?.replacingOccurrences(of: "%20", with: "+") : encoded
    }

    @Test("both rules give what Foundation's percent-encoding gave, on seeded random text")
    func matchesFoundation() {
        let alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        let pool: [Character] = Array(alphanumerics + " ~*-._+&=%/?#[]@!$'()\",;:\r\n\t\0éß日本😀👩‍👩‍👧\u{301}\u{FEFF}")
        var random = SplitMix64(state: 0x5EED_F0E4)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...24, using: &random)
            let text = String((0..<length).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] })
            #expect(URLEncoding.encode(text, .query) == Self.foundationEncoded(text, keeping: alphanumerics + "-._~", plusForSpace: false))
            #expect(URLEncoding.encode(text, .form) == Self.foundationEncoded(text, keeping: alphanumerics + "*-._", plusForSpace: true))
        }
    }

    @Test("a parameter dictionary's pairs: keys sorted, arrays repeating their key, nil left out")
    func pairs() {
        let none: Int? = nil
        let pairs = URLEncoding.pairs(["b": ["2", 1] as [any Sendable], "a": "x y", "c": none as Any, "d": true])
        #expect(pairs.map { [$0.0, $0.1] } == [["a", "x y"], ["b", "2"], ["b", "1"], ["d", "true"]])
        #expect(URLEncoding.serialize(pairs, .query) == "a=x%20y&b=2&b=1&d=true")
        #expect(URLEncoding.serialize(pairs, .form) == "a=x+y&b=2&b=1&d=true")
    }
}
