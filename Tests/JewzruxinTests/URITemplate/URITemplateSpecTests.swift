import Foundation
import Testing
@testable import Jewzruxin

/// Every case of the official test suite in Resources/uritemplate-test.
@Suite("URITemplate: official test suite")
struct URITemplateSpecTests {
    typealias Suite = URITemplateTestSuite

    @Test("Each file has cases", arguments: Suite.files)
    func fileHasCases(file: String) throws {
        let cases = try Suite.cases(in: file)
        let failures = cases.filter { if case .failure = $0.expected { true } else { false } }.count
        print("URITemplate suite \(file).json: \(cases.count) cases (\(failures) must fail)")
        #expect(!cases.isEmpty)
    }

    @Test("All cases are loaded")
    func totalCount() {
        #expect(Suite.allCases.count == Suite.files.map { (try? Suite.cases(in: $0).count) ?? 0 }.reduce(0, +))
        #expect(Suite.allCases.count > 200)
    }

    @Test("Case", arguments: Suite.allCases)
    func run(_ testCase: Suite.Case) throws {
        switch testCase.expected {
        case .one(let expected):
            let result = try URITemplate(testCase.template).expand(testCase.variables)
            #expect(result == expected)
        case .anyOf(let options):
            let result = try URITemplate(testCase.template).expand(testCase.variables)
            #expect(options.contains(result), "\(result) is none of \(options)")
        case .failure:
            #expect(throws: URITemplateError.self) {
                _ = try URITemplate(testCase.template).expand(testCase.variables)
            }
        }
    }

    @Test("Parsed templates keep their text and name their variables")
    func variableNames() throws {
        let template = try URITemplate("{+base}/repos{/owner,repo}/issues{?state,labels*,sort}{&page}{/owner}")
        #expect(template.description == "{+base}/repos{/owner,repo}/issues{?state,labels*,sort}{&page}{/owner}")
        #expect(template.variableNames == ["base", "owner", "repo", "state", "labels", "sort", "page"])
        #expect(try URITemplate("a{b}") == URITemplate("a{b}"))
        #expect(try URITemplate("a{b}") != URITemplate("a{c}"))
        #expect(try URITemplate("plain/text").variableNames.isEmpty)
    }
}
