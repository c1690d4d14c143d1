import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing

/// The README's Swift examples: each is in `ReadmeExamples.swift` as the README has it, compiles,
/// and those that can run here run against the sandbox and print what the README says.
@Suite("README examples")
struct ReadmeTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ReadmeExamples.swift")

    /// The Swift blocks of `markdown`, without their `import` lines, except those right after a
    /// `<!-- not compiled: … -->` line.
    static func swiftBlocks(of markdown: String) -> [String] {
        var blocks: [String] = [], current: [String]?, previous = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil {
                if line == "```swift", !previous.hasPrefix("<!-- not compiled") { current = [] }
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { previous = line }
            } else if line == "```" {
                blocks.append(normalized(current ?? []))
                current = nil
            } else if !line.hasPrefix("import ") {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The regions of the examples file between `// README example begin` and `// README example end`.
    static func regions(of source: String) -> [String] {
        var regions: [String] = [], current: [String]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// README example begin": current = []
            case "// README example end":
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

    @Test("every Swift block of the README is an example here, word for word, and every example is in the README")
    func examplesMatchTheReadme() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        let regions = Self.regions(of: try String(contentsOf: Self.examples, encoding: .utf8))
        #expect(blocks.count >= 8)
        for block in blocks {
            let found = regions.contains(block)
            #expect(found, "README block not in ReadmeExamples.swift:\n\(block)")
        }
        for region in regions {
            let found = blocks.contains(region)
            #expect(found, "example no longer in the README:\n\(region)")
        }
    }

    @Test("the quick start prints 200 dummy, then Hello World from its callback")
    func quickStart() async throws {
        let printed = PrintedLines(expecting: 2)
        try await readmeQuickStart(printed)
        #expect(printed.all == ["200 dummy", "Hello World"])
    }

    @Test("the interceptor example gets Hello me.1 after one refresh")
    func interceptors() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 1)
            try await readmeInterceptors(sandbox, printed)
            #expect(printed.all == ["Hello me.1"])
            #expect(sandbox.bearerRefreshCount(forKey: "me") == 1)
        }
    }

    @Test("the fluent examples: the stores, the API's error code, a validated response, an image")
    func fluent() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 7)
            try await readmeFluent(sandbox, printed)
            #expect(await printed.complete.wait())
            // The chains' handlers and the awaited lines come in any order.
            #expect(printed.all.sorted() == [
                "2", "2", "2 200", #"["Squirrel Hill", "Greenfield"]"#, "invalidZipCode", "png 64 48", "stores listed 4 200",
            ])
        }
    }

    @Test("the resumable download example resumes after 30 000 bytes with a 206, the file whole")
    func resumableDownload() async throws {
        try await Sandbox.withSandbox { sandbox in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("blob.bin")
            defer { try? FileManager.default.removeItem(at: file) }
            let printed = PrintedLines(expecting: 2)
            try await readmeResumableDownload(sandbox, printed)
            #expect(printed.all == ["30000", "206"])
            #expect(try Data(contentsOf: file) == SandboxBody.expectedPattern(count: 100_000))
        }
    }

    @Test("the stream example reads the whole body, its progress ending at the total")
    func streams() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 0)
            let total = try await readmeStreams(sandbox, printed)
            #expect(total == 1_048_576)
            #expect(printed.all.first == "200 1048576")
            #expect(printed.all.last == "1048576 of 1048576 bytes")
        }
    }

    @Test("the native transport example gets Hello World")
    func nativeTransport() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 2)
            try await readmeNativeTransport(sandbox, printed)
            #expect(printed.all == ["Hello World", "Hello World"])
        }
    }

    @Test("the TLS and proxy settings are made as written")
    func configuration() throws {
        let (_, configuration) = try readmeConfiguration(
            certURL: URL(fileURLWithPath: "/nonexistent/cert.pem"), keyURL: URL(fileURLWithPath: "/nonexistent/key.pem"))
        #expect(configuration.tls.minimumVersion == .tls1_2)
        #expect(configuration.tls.pinnedPublicKeys.count == 1)
        #expect(configuration.proxy?.excludedHosts == ["localhost", ".intranet.example", "10.0.0.0/8"])
    }
}
