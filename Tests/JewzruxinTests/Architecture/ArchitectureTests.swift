import Foundation
import Testing

/// The folder tree of `Sources/Jewzruxin` is its dependency graph (ARCHITECTURE.md): these tests
/// read the module's sources and fail when a file names what its folder may not use.
@Suite("Architecture: the folders are the dependency graph")
struct ArchitectureTests {
    /// `Sources/Jewzruxin` of this package, found from this file's path.
    static let moduleRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Jewzruxin")

    static let knownLayers: Set<String> = ["Support", "Text", "URITemplate", "Model", "Body", "Engine", "Defaults"]

    @Test("no file names what its folder may not use")
    func noBackwardReference() throws {
        let check = try LayerCheck(root: Self.moduleRoot)
        #expect(check.files.count > 50, "the sources were found")
        let violations = check.violations()
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))")
    }

    @Test("every file sits in a folder the rule knows")
    func everyFileHasALayer() throws {
        let check = try LayerCheck(root: Self.moduleRoot)
        for path in check.files.keys {
            guard let layer = LayerCheck.layer(of: path) else {
                Issue.record("\(path) is outside every folder of the rule")
                continue
            }
            let known = Self.knownLayers.contains(layer) || layer.hasPrefix("Features/") || layer.hasPrefix("Transports/")
            #expect(known, "\(path) is in \(layer), a folder the rule doesn't know")
        }
    }

    @Test("the module imports none of the package's modules built on it")
    func noUpwardImport() throws {
        let check = try LayerCheck(root: Self.moduleRoot)
        for (path, text) in check.files {
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                for module in ["JewzruxinFluent", "JewzruxinSandbox", "JewzruxinTesting", "PlaygroundKit"] {
                    #expect(!line.hasSuffix(" " + module), "\(path) imports \(module)")
                }
            }
        }
    }

    @Test("only the curl transport imports the libcurl shim, and it imports it")
    func curlShimStaysInItsTransport() throws {
        let check = try LayerCheck(root: Self.moduleRoot)
        var importers: Set<String> = []
        for (path, text) in check.files where text.split(separator: "\n").contains("import CJewzruxinCurl") {
            importers.insert(path)
            #expect(LayerCheck.layer(of: path) == "Transports/Curl", "\(path) imports the libcurl shim")
        }
        #expect(importers.contains("Transports/Curl/CurlLibrary.swift"))
    }

    @Test("only the transports' public suffix list imports the libpsl shim")
    func publicSuffixShimStaysWithTheCookieJar() throws {
        let check = try LayerCheck(root: Self.moduleRoot)
        let importers = check.files.filter { $0.value.split(separator: "\n").contains("import CJewzruxinPublicSuffix") }.keys
        #expect(Set(importers) == ["Transports/Shared/PublicSuffixList.swift"])
    }

    @Test("what transports share is any transport's, and names no transport, feature or default")
    func sharedByTransports() {
        #expect(LayerCheck.may("Transports/Curl", use: "Transports/Shared"))
        #expect(LayerCheck.may("Transports/Native", use: "Transports/Shared"))
        #expect(!LayerCheck.may("Transports/Shared", use: "Transports/Curl"))
        #expect(!LayerCheck.may("Engine", use: "Transports/Shared"))
        #expect(!LayerCheck.may("Features/Retry", use: "Transports/Shared"))
        #expect(!LayerCheck.may("Transports/Shared", use: "Features/Retry"))
        #expect(LayerCheck.may("Defaults", use: "Transports/Shared"))
    }

    @Test("planted backward references are reported, each where it is")
    func plantedReferencesAreFound() throws {
        var files = try LayerCheck(root: Self.moduleRoot).files
        files["Engine/Planted.swift"] = """
            // NativeTransport in a comment is fine, and so is "URLSessionTransport" in a string.
            let planted: NativeTransport? = nil
            let label = "URLSessionTransport"
            func plant(_ session: HTTPSession) { _ = session.networkActivityIndicator }
            """
        files["Model/Planted.swift"] = "struct PlantedModel { var policy: RetryPolicy }\n"
        files["Transports/Native/Planted.swift"] = "let plantedFallback: URLSessionTransport? = nil\nlet plantedRedirects = RedirectPolicy.standard\n"
        files["Features/Retry/Planted.swift"] = "let plantedExchange: NativeExchange? = nil\n"
        // A nested type of the engine named through its owner counts; one of Foundation's doesn't.
        files["Model/PlantedNested.swift"] = "let plantedCode: URLError.Code? = nil\nlet plantedSource: HTTPCycle.UploadSource? = nil\n"
        let found = Set(LayerCheck(files: files).violations().map { "\($0.file):\($0.line) \($0.name)" })
        #expect(found == [
            "Engine/Planted.swift:2 NativeTransport",
            "Engine/Planted.swift:4 networkActivityIndicator",
            "Model/Planted.swift:1 RetryPolicy",
            "Model/PlantedNested.swift:2 HTTPCycle",
            "Model/PlantedNested.swift:2 UploadSource",
            "Transports/Native/Planted.swift:1 URLSessionTransport",
            "Transports/Native/Planted.swift:2 RedirectPolicy",
            "Features/Retry/Planted.swift:1 NativeExchange",
        ])
    }

    @Test("the rule: leaves use nothing above them, the engine only the model and the bodies, features and transports not each other")
    func rule() {
        #expect(LayerCheck.may("Engine", use: "Model"))
        #expect(!LayerCheck.may("Model", use: "Engine"))
        #expect(LayerCheck.may("Engine", use: "Body"))
        #expect(LayerCheck.may("Body", use: "Model"))
        #expect(!LayerCheck.may("Body", use: "Engine"))
        #expect(!LayerCheck.may("Model", use: "Body"))
        #expect(LayerCheck.may("Transports/Curl", use: "Body"))
        #expect(!LayerCheck.may("Engine", use: "Features/Retry"))
        #expect(!LayerCheck.may("Engine", use: "Transports/Native"))
        #expect(LayerCheck.may("Features/Transfer", use: "Features/Content"))
        #expect(!LayerCheck.may("Features/Retry", use: "Transports/URLSession"))
        #expect(!LayerCheck.may("Transports/Native", use: "Transports/URLSession"))
        #expect(!LayerCheck.may("Transports/Native", use: "Features/Content"))
        #expect(LayerCheck.may("Transports/Native", use: "Engine"))
        #expect(LayerCheck.may("Defaults", use: "Transports/Native"))
        #expect(!LayerCheck.may("Text", use: "Model"))
        #expect(LayerCheck.may("Model", use: "Text"))
    }

    @Test("every name the glossary gives is declared in the sources: the words stay true")
    func glossaryNamesExist() throws {
        let architecture = Self.moduleRoot.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("ARCHITECTURE.md")
        let text = try String(contentsOf: architecture, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Words").dropFirst().first?.components(separatedBy: "\n## ").first)
        let entries = section.split(separator: "\n").filter { $0.hasPrefix("- **") }
        #expect(entries.count >= 15, "the glossary was found")
        let check = try LayerCheck(root: Self.moduleRoot)
        let sources = check.files.values.joined(separator: "\n")
        var names: [String] = []
        for entry in entries {
            // The code-voice names of an entry: `HTTPCycle.Plan`, `handlerQueue`, `start(_:)`…
            for (index, piece) in entry.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                let name = piece.split(separator: "(").first.map(String.init) ?? String(piece)
                guard let last = name.split(separator: ".").last else { continue }
                names.append(String(last))
            }
        }
        #expect(names.count >= 25, "the glossary's names were read")
        for name in Set(names) {
            let declared = ["class", "struct", "enum", "protocol", "typealias", "var", "let", "func", "case"].contains { keyword in
                sources.contains("\(keyword) \(name)")
            }
            #expect(declared, "ARCHITECTURE.md's glossary names `\(name)`, which no source of the module declares")
        }
    }
}
