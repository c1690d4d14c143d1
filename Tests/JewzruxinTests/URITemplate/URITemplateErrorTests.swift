import Testing
@testable import Jewzruxin

/// Each ``URITemplateError/Problem`` with its position.
@Suite("URITemplate: errors")
struct URITemplateErrorTests {
    typealias Problem = URITemplateError.Problem

    @Test("Parsing errors name the problem and position", arguments: [
        ("/a/{b", Problem.unclosedExpression, 3),
        ("{/id*", .unclosedExpression, 0),
        ("x{a{b}", .unclosedExpression, 1),
        ("/id*}", .unexpectedClosingBrace, 4),
        ("{a}}", .unexpectedClosingBrace, 3),
        ("ab{}", .emptyExpression, 2),
        ("{+}", .emptyExpression, 0),
        ("{$var}", .invalidOperator("$"), 1),
        ("{-join|&|var}", .invalidOperator("-"), 1),
        ("{=path}", .reservedOperator("="), 1),
        ("{!hello}", .reservedOperator("!"), 1),
        ("{@a}", .reservedOperator("@"), 1),
        ("{|var*}", .reservedOperator("|"), 1),
        ("{,a}", .reservedOperator(","), 1),
        ("{/?id}", .invalidVariableName, 2),
        ("{with space}", .invalidVariableName, 5),
        ("{ leading}", .invalidVariableName, 1),
        ("{a,}", .invalidVariableName, 3),
        ("{a,,b}", .invalidVariableName, 3),
        ("{x.}", .invalidVariableName, 3),
        ("{x..y}", .invalidVariableName, 3),
        ("{a*b}", .invalidVariableName, 3),
        ("{var:prefix}", .invalidPrefixLength, 5),
        ("{var:0}", .invalidPrefixLength, 5),
        ("{var:01}", .invalidPrefixLength, 5),
        ("{var:10000}", .invalidPrefixLength, 5),
        ("{var:}", .invalidPrefixLength, 5),
        ("{hello:2*}", .invalidPrefixLength, 7),
        ("{%2x}", .malformedPercentEncoding, 1),
        ("a%g0", .malformedPercentEncoding, 1),
        ("abc%", .malformedPercentEncoding, 3),
        ("a b", .invalidLiteralCharacter(" "), 1),
        ("x<{a}", .invalidLiteralCharacter("<"), 1),
        ("é\"", .invalidLiteralCharacter("\""), 1),
        ("a\u{7}", .invalidLiteralCharacter("\u{7}"), 1),
        ("a\u{FFFE}", .invalidLiteralCharacter("\u{FFFE}"), 1),
    ] as [(String, Problem, Int)])
    func parsing(template: String, problem: Problem, position: Int) {
        #expect(throws: URITemplateError(problem, at: position, in: template)) {
            try URITemplate(template)
        }
    }

    @Test("Prefixes on lists and associative arrays fail when expanding, at the variable")
    func prefixOnComposite() throws {
        let template = try URITemplate("/x{?a,keys:1}")
        #expect(throws: URITemplateError(.prefixOnCompositeValue, at: 6, in: "/x{?a,keys:1}")) {
            try template.expand(["keys": ["a", "b"]])
        }
        #expect(throws: URITemplateError(.prefixOnCompositeValue, at: 6, in: "/x{?a,keys:1}")) {
            try template.expand(["keys": URITemplate.Value.pairs([.init("k", "v")])])
        }
        #expect(try template.expand(["keys": "abc"]) == "/x?keys=a")
        // An empty list is undefined, so the prefix does not matter.
        #expect(try template.expand(["keys": [String]()]) == "/x")
    }

    @Test("Values of unsupported types fail when expanding")
    func unsupportedValue() throws {
        struct Opaque: Sendable {}
        let template = try URITemplate("{a}{b}")
        #expect(throws: URITemplateError(.unsupportedValue(type: "Opaque"), at: 4, in: "{a}{b}")) {
            try template.expand(["a": "x", "b": Opaque()])
        }
        #expect(throws: URITemplateError.self) { try template.expand(["a": [["nested"]]]) }
        #expect(throws: URITemplateError.self) { try template.expand(["a": ["k": ["nested"]]]) }
    }

    @Test("Descriptions read well")
    func descriptions() {
        #expect(URITemplateError(.unclosedExpression, at: 3, in: "/a/{b").description
            == #"unclosed expression at 3 in "/a/{b""#)
        #expect(URITemplateError(.reservedOperator("!"), at: 1, in: "{!a}").description
            == #"reserved operator '!' at 1 in "{!a}""#)
        #expect(URITemplateError(.invalidLiteralCharacter(" "), at: 1, in: "a b").description
            == #"invalid literal character ' ' at 1 in "a b""#)
        #expect(Problem.unsupportedValue(type: "Set<Int>").description == "unsupported value of type Set<Int>")
    }
}
