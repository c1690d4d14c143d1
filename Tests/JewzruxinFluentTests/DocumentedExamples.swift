import Foundation
import Testing

/// The Swift code blocks of markdown documents (the README, the DocC articles) and the regions of
/// the example files that hold them word for word, where the compiler sees them.
///
/// A block opens with a fence line of ```` ```swift ```` and closes with one of ```` ``` ````, each
/// indented or not (a block inside a list item is indented). A block right after a
/// `<!-- not compiled: … -->` line is left out; so is what it holds.
enum DocumentedExamples {
    /// A Swift block of a document.
    struct Block {
        /// Its code without its `import` lines, ``normalized(_:)``.
        let code: String
        /// Its `import` lines, trimmed.
        let imports: [String]
        /// The line of its opening fence, from 1.
        let line: Int
    }

    /// The Swift blocks of `markdown`, but those right after a `<!-- not compiled: … -->` line.
    static func swiftBlocks(of markdown: String) -> [Block] {
        var blocks: [Block] = [], previous = ""
        var current: (lines: [String], imports: [String], line: Int, compiled: Bool)?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = current {
                if trimmed == "```" {
                    if block.compiled { blocks.append(Block(code: normalized(block.lines), imports: block.imports, line: block.line)) }
                    current = nil
                } else if trimmed.hasPrefix("import ") {
                    current?.imports.append(trimmed)
                } else {
                    current?.lines.append(String(line))
                }
            } else if trimmed == "```swift" {
                current = ([], [], index + 1, !previous.hasPrefix("<!-- not compiled"))
            }
            if !trimmed.isEmpty { previous = trimmed }
        }
        return blocks
    }

    /// The regions of an examples file between `// <marker> example begin` and `// <marker> example end`.
    static func regions(of source: String, marker: String) -> [String] {
        var regions: [String] = [], current: [String]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// \(marker) example begin": current = []
            case "// \(marker) example end":
                regions.append(normalized(current ?? []))
                current = nil
            default: current?.append(line)
            }
        }
        return regions
    }

    /// `lines` without the indentation they share and without blank lines at either end.
    static func normalized(_ lines: [String]) -> String {
        var lines = lines
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
    }

    /// Expects the Swift blocks of `documents` and the regions of `examples` marked `marker` to
    /// agree both ways: each block is a region (or one of `elsewhere`, regions of another examples
    /// file that compiles it already), word for word, with its `import` lines among the examples
    /// file's own; each region is a block. A block of `import` lines only is checked by its imports.
    ///
    /// - Returns: The blocks of the documents, checked or not.
    @discardableResult
    static func expectAgreement(
        of documents: [URL], with examples: URL, marker: String, elsewhere: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Block] {
        let source = try String(contentsOf: examples, encoding: .utf8)
        let regions = regions(of: source, marker: marker)
        let imported = Set(source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        var all: [Block] = []
        var codes: Set<String> = []
        for document in documents {
            let blocks = swiftBlocks(of: try String(contentsOf: document, encoding: .utf8))
            let name = document.lastPathComponent
            for block in blocks {
                for line in block.imports where !imported.contains(line) {
                    Issue.record("\(name):\(block.line): \(line) is not in \(examples.lastPathComponent)", sourceLocation: sourceLocation)
                }
                if !block.code.isEmpty, !regions.contains(block.code), !elsewhere.contains(block.code) {
                    Issue.record("\(name):\(block.line): block not in \(examples.lastPathComponent):\n\(block.code)", sourceLocation: sourceLocation)
                }
                codes.insert(block.code)
            }
            all += blocks
        }
        for region in regions where !codes.contains(region) {
            Issue.record("example of \(examples.lastPathComponent) no longer in a document:\n\(region)", sourceLocation: sourceLocation)
        }
        return all
    }
}
