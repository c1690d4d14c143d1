import Testing
import JewzruxinTestSupport
@testable import Jewzruxin

/// Random and mutated templates with random values: expansion never crashes, every failure is a
/// ``URITemplateError``, and results hold only ASCII characters other than space.
@Suite("URITemplate: robustness")
struct URITemplateFuzzTests {

    static let seeds = [
        "{+base}/repos{/owner,repo}/issues{?state,labels*,sort}{&page}",
        "{#frag:3}{.dom*}{;list,keys*}x%20y{var:9999}",
        "café/{a}{?b,c*}", "{/a*}{&b:2,c}", "plain",
    ]
    static let pieces: [String] = [
        "{", "}", "+", "#", ".", "/", ";", "?", "&", "=", ",", "!", "@", "|", "*", ":", "3", "0", "10000",
        "%", "%2", "%41", "a", "b", "c", "keys", "list", " ", "é", "𝄞", "\"", "'", "<", "\u{0}", "x.y", "..",
        "_", "9999", "a b", "\u{FFFE}",
    ]
    static let names = ["a", "b", "c", "keys", "list", "base", "owner", "repo", "state", "labels", "page", "var", "frag", "dom"]

    static func randomValue(_ random: inout SplitMix64) -> any Sendable {
        let strings = ["", "x", "a b", "é/ü", "%2F", "%zz", "?&=", "𝄞stave", "\u{0}\u{7F}", "~-._"]
        func string() -> String { strings.randomElement(using: &random) ?? "" }
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return string()
        case 1: return Int.random(in: -1000...1000, using: &random)
        case 2: return Double.random(in: -10...10, using: &random)
        case 3: return Bool.random(using: &random)
        case 4: return (0..<Int.random(in: 0...3, using: &random)).map { _ in string() }
        case 5: return Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map { ("k\($0)\(string())", string()) })
        case 6: return [(string(), string()), (string(), 1)] as [(String, any Sendable)]
        default: return Optional<String>.none as any Sendable
        }
    }

    static func randomTemplate(_ random: inout SplitMix64) -> String {
        if Bool.random(using: &random), var characters = seeds.randomElement(using: &random).map(Array.init) {
            for _ in 0..<Int.random(in: 1...3, using: &random) where !characters.isEmpty {
                let index = Int.random(in: 0..<characters.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: characters.remove(at: index)
                case 1: characters.insert(contentsOf: pieces.randomElement(using: &random) ?? "", at: index)
                default: characters[index] = (pieces.randomElement(using: &random) ?? "x").first ?? "x"
                }
            }
            return String(characters)
        }
        return (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }

    @Test("10,000 random templates")
    func randomTemplates() {
        var random = SplitMix64(state: 0x5EED_1234)
        var expanded = 0
        var failedParsing = 0
        var failedExpanding = 0
        for _ in 0..<10_000 {
            let text = Self.randomTemplate(&random)
            var values: [String: any Sendable] = [:]
            for name in Self.names where Bool.random(using: &random) { values[name] = Self.randomValue(&random) }
            let template: URITemplate
            do {
                template = try URITemplate(text)
            } catch {
                failedParsing += 1
                #expect(error.template == text && error.position >= 0 && error.position <= text.count)
                continue
            }
            do {
                let result = try template.expand(values)
                expanded += 1
                #expect(result.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F },
                        "\(text) gave \(result)")
            } catch {
                failedExpanding += 1
                #expect(error.template == text)
            }
        }
        print("URITemplate fuzz: \(expanded) expanded, \(failedParsing) failed parsing, \(failedExpanding) failed expanding")
        #expect(expanded > 1000 && failedParsing > 1000)
    }
}
