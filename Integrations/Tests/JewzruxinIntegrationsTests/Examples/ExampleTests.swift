import Foundation
import JewzruxinSandbox
import Testing

/// The documented examples run against the sandbox and print what their comments say.
@Suite struct ExampleTests {
    @Test func openAPI() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines()
            try await docOpenAPI(sandbox, printed)
            try await docOpenAPIRetries(sandbox, printed)
            #expect(printed.all == ["invalidZipCode", "ok after 1 failures"])
            #expect(sandbox.requestCount(forFlakyKey: "order-1") == 2)
        }
    }

    @Test func httpTypes() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines()
            try await docHTTPTypes(sandbox, printed)
            try await docHTTPTypesStream(sandbox, printed)
            #expect(printed.all == ["404 status 404", "GET /status/404", "200 1048576"])
        }
    }

    @Test func monitors() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines()
            try await docLogging(sandbox)
            try await docMetrics(sandbox)
            try await docTracing(sandbox)
            try await readmeMonitors(sandbox, printed)
            #expect(printed.all == ["200"])
        }
    }
}

/// Every Swift block of the bridges' DocC pages, and every block of the README marked as a
/// bridge example, is an example of `IntegrationExamples.swift` word for word, and every
/// example there is in one of them: what the documents show compiles and runs.
@Suite struct ExampleAgreementTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// The Integrations package's folder.
    static let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The bridges' modules, each a product with a DocC page.
    static let bridges = ["JewzruxinHTTPTypes", "JewzruxinLogging", "JewzruxinMetrics", "JewzruxinOpenAPI", "JewzruxinTracing"]
    /// The README marks its bridge examples with this line right before them (the library's own
    /// README check leaves out every block after a `<!-- not compiled` line).
    static let readmeMarker = "<!-- not compiled with the library: a bridge example"

    /// A Swift block's code, without its `import` lines, its indentation and blank edges.
    struct Block: Hashable {
        let code: String
        let source: String
    }

    static func blocks(of markdown: String, source: String, onlyAfter marker: String?) -> [Block] {
        var blocks: [Block] = [], previous = "", current: (lines: [String], line: Int, kept: Bool)?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = current {
                if trimmed == "```" {
                    if block.kept { blocks.append(Block(code: normalized(block.lines), source: "\(source):\(block.line)")) }
                    current = nil
                } else if !trimmed.hasPrefix("import ") {
                    current?.lines.append(String(line))
                }
            } else if trimmed == "```swift" {
                let kept = marker.map { previous.hasPrefix($0) } ?? !previous.hasPrefix("<!-- not compiled")
                current = ([], index + 1, kept)
            }
            if !trimmed.isEmpty { previous = trimmed }
        }
        return blocks
    }

    static func regions(of source: String) -> [String] {
        var regions: [String] = [], current: [String]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// Bridge example begin": current = []
            case "// Bridge example end":
                regions.append(normalized(current ?? []))
                current = nil
            default: current?.append(line)
            }
        }
        return regions
    }

    static func normalized(_ lines: [String]) -> String {
        var lines = lines.map { $0.replacingOccurrences(of: "\t", with: "    ") }
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
    }

    @Test func everyDocumentedExampleIsCompiledAndRun() throws {
        let files = FileManager.default
        let sources = Self.root.appendingPathComponent("Sources")
        var documented: [Block] = []
        for module in Self.bridges {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            let page = catalog.appendingPathComponent("\(module).md")
            #expect(files.fileExists(atPath: page.path), "\(module) has no DocC page")
            guard files.fileExists(atPath: page.path) else { continue }
            let blocks = Self.blocks(of: try String(contentsOf: page, encoding: .utf8), source: "\(module).md", onlyAfter: nil)
            #expect(!blocks.isEmpty, "\(module).md has no example")
            documented += blocks
        }
        let readme = Self.root.deletingLastPathComponent().appendingPathComponent("README.md")
        let readmeBlocks = Self.blocks(of: try String(contentsOf: readme, encoding: .utf8), source: "README.md", onlyAfter: Self.readmeMarker)
        #expect(!readmeBlocks.isEmpty, "the README shows no bridge example")
        documented += readmeBlocks

        let examples = Self.regions(of: try String(contentsOf: Self.here.appendingPathComponent("IntegrationExamples.swift"), encoding: .utf8))
        for block in documented where !examples.contains(block.code) {
            Issue.record("the example at \(block.source) is not in IntegrationExamples.swift word for word:\n\(block.code)")
        }
        for example in examples where !documented.contains(where: { $0.code == example }) {
            Issue.record("this example of IntegrationExamples.swift is in no document:\n\(example)")
        }
        #expect(documented.count >= 8)
    }
}
