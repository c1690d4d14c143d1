import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing

/// The DocC articles' Swift examples: each is in `DocCExamples.swift` as its article has it (or in
/// `ReadmeExamples.swift`, when the README has it too), compiles, and those that can run here run
/// against the sandbox or a mock and do what the article says.
@Suite("DocC examples")
struct DocCTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DocCExamples.swift")

    /// The articles of every catalog, `Sources/*/*.docc/*.md`.
    static func articles() throws -> [URL] {
        let sources = ReadmeTests.root.appendingPathComponent("Sources")
        let files = FileManager.default
        return try files.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil)
            .flatMap { module in
                try files.contentsOfDirectory(at: module, includingPropertiesForKeys: nil).filter { $0.pathExtension == "docc" }
            }
            .flatMap { catalog in
                try files.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil).filter { $0.pathExtension == "md" }
            }
            .sorted { $0.path < $1.path }
    }

    @Test("every Swift block of the DocC articles is an example here, word for word, and every example is in an article")
    func examplesMatchTheArticles() throws {
        let articles = try Self.articles()
        #expect(articles.count >= 7)
        let readme = DocumentedExamples.regions(of: try String(contentsOf: ReadmeTests.examples, encoding: .utf8), marker: "README")
        let blocks = try DocumentedExamples.expectAgreement(of: articles, with: Self.examples, marker: "DocC", elsewhere: readme)
        #expect(blocks.count >= 48)
    }
}
