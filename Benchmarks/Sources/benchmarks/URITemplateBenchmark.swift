import Foundation
import Jewzruxin

/// URI template expansion against the same URL built by hand with `addingPercentEncoding`.
enum URITemplateBenchmark {
    /// Issue 8's target: expansions per second.
    static let target = 1_000_000.0
    static let text = "{+base}/repos{/owner,repo}/issues{?state,labels*,sort}{&page}"
    static let values: [String: any Sendable] = [
        "base": "https://api.github.com",
        "owner": "swiftlang",
        "repo": "swift-package-manager",
        "state": "open",
        "labels": ["bug", "good first issue"],
        "sort": "updated",
        "page": 3,
    ]
    static let expected =
        "https://api.github.com/repos/swiftlang/swift-package-manager/issues?state=open&labels=bug&labels=good%20first%20issue&sort=updated&page=3"

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func byHand(_ values: [String: any Sendable]) -> String {
        func encode(_ value: Any?) -> String {
            "\(value ?? "")".addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        }
        let labels = (values["labels"] as? [String] ?? []).map { "labels=\(encode($0))" }.joined(separator: "&")
        return "\(values["base"] ?? "")/repos/\(encode(values["owner"]))/\(encode(values["repo"]))/issues"
            + "?state=\(encode(values["state"]))&\(labels)&sort=\(encode(values["sort"]))&page=\(encode(values["page"]))"
    }

    /// Rows of (name, operations per second), after checking that both give the expected URL.
    static func run() throws -> [(String, Double)] {
        let template = try URITemplate(text)
        let values = values
        guard try template.expand(values) == expected, byHand(values) == expected else {
            throw BenchmarkError(description: "unexpected expansion: \(try template.expand(values)) / \(byHand(values))")
        }
        let expansion = Benchmark(name: "URITemplate.expand") { iterations in
            var total = 0
            for _ in 0..<iterations { total &+= (try? template.expand(values))?.utf8.count ?? 0 }
            return total
        }
        let baseline = Benchmark(name: "interpolation + addingPercentEncoding") { iterations in
            var total = 0
            for _ in 0..<iterations { total &+= byHand(values).utf8.count }
            return total
        }
        return [(expansion.name, expansion.run()), (baseline.name, baseline.run())]
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}
