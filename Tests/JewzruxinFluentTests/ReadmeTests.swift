import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTestSupport
import Testing

/// The README's Swift examples: each is in `ReadmeExamples.swift` as the README has it, compiles,
/// and those that can run here run against the sandbox and print what the README says.
@Suite("README examples", .usesMainQueue)
struct ReadmeTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ReadmeExamples.swift")

    /// The README's first screen, a program of its own (the `quickstart` target).
    static let quickStart = root.appendingPathComponent("Examples/QuickStart/main.swift")

    @Test("every Swift block of the README is an example here, word for word, and every example is in the README")
    func examplesMatchTheReadme() throws {
        // The quick start's code without its imports, as a README block is compared.
        let quickStart = DocumentedExamples.regions(of: try String(contentsOf: Self.quickStart, encoding: .utf8), marker: "README")
            .map { region in
                DocumentedExamples.normalized(region.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") })
            }
        #expect(quickStart.count == 1)
        let blocks = try DocumentedExamples.expectAgreement(
            of: [Self.root.appendingPathComponent("README.md")], with: Self.examples, marker: "README", elsewhere: quickStart)
        #expect(blocks.count >= 8)
        #expect(blocks.first.map { quickStart.contains($0.code) } == true, "the README opens with the quick start")
    }

    @Test("the quick start, run as the program it is, does the everyday tasks and prints what its comments say")
    func quickStart() async throws {
        let executable = try Self.builtExecutable("quickstart")
        let output = Pipe()
        let child = try ChildProcess(executable.path, output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let collector = PipeCollector(output)
        // The blocking waits on a thread of their own, off the cooperative pool.
        let (status, printed) = await withHandover { (done: Handover<(Int32, Data), Never>) in
            Thread.detachNewThread { done.resume(returning: (child.waitUntilExit(), collector.wait())) }
        }
        #expect(status == 0)
        #expect(String(decoding: printed, as: UTF8.self) == """
            200 Hello World
            ["Squirrel Hill", "Greenfield"]
            POST {"name":"Shadyside"}
            400
            cancelled

            """)
    }

    /// An executable of this package's build: next to the running test binary, where SwiftPM puts
    /// every product of a build.
    static func builtExecutable(_ name: String) throws -> URL {
        var directories = Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            directories.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no \(name) in \(directories.map(\.path))"])
    }

    @Test("an indented block counts (a list item's), and a block after a not-compiled line doesn't")
    func indentedBlocks() {
        let markdown = """
            - A feature:

              ```swift
              let a = 1
                  + 2
              ```
            <!-- not compiled: a manifest -->
            ```swift
            import PackageDescription
            let package = Package(name: "P")
            ```

            ```swift
            import Jewzruxin
            ```
            """
        let blocks = DocumentedExamples.swiftBlocks(of: markdown)
        #expect(blocks.map(\.code) == ["let a = 1\n    + 2", ""])
        #expect(blocks.map(\.imports) == [[], ["import Jewzruxin"]])
        #expect(blocks.map(\.line) == [3, 13])
    }

    @Test("the event-stream example prints both events, across the reconnection that ends in a 204, then both lines")
    func eventStreams() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 4)
            try await readmeEventStreams(sandbox, printed)
            #expect(printed.all == ["tick 1 1", "tick 2 2", "0", "1"])
        }
    }

    @Test("the main-actor example fills its list from a handler isolated to the main actor")
    @MainActor
    func mainActorHandlers() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let list = StoreList()
        list.load(from: WebService(baseURLString: sandbox.baseURL.absoluteString))
        #expect(await eventually { !list.names.isEmpty })
        #expect(list.names.contains("Squirrel Hill"))
    }

    @Test("the multipart example sends the field and the file whole, and leaves no file behind")
    func multipart() async throws {
        struct Part: Decodable, Equatable { let name: String; let filename: String?; let contentType: String?; let size: Int; let sha256: String }
        struct Received: Decodable { let parts: [Part]; let chunked: Bool }
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 1)
            try await readmeMultipart(sandbox, printed)
            let received = try JSONDecoder().decode(Received.self, from: Data(printed.all.joined().utf8))
            #expect(received.parts == [
                Part(name: "name", filename: nil, contentType: nil, size: 4,
                     sha256: "4f23798d92708359b734a18172c9c864f1d48044a754115a0d4b843bca3a5332"), // Jane
                Part(name: "report", filename: "sales.csv", contentType: "text/csv", size: 30,
                     sha256: "2fb3a23192eb58ab404ca78b1351640910e0ad50f3529d39cf4c679c253f8d86"),
            ])
            #expect(!received.chunked) // every length known: a Content-Length
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sales.csv")
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
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

    @Test("the handler queue example runs each handler where it says: the session's queue, inline, main")
    func handlerQueues() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 3)
            try await readmeHandlerQueues(sandbox, printed)
            #expect(printed.complete.hasFired)
            // Three requests in flight together: their handlers come in any order.
            let lines = printed.all
            #expect(lines.count == 3)
            #expect(lines.filter { $0 == "Hello World handlers" }.count == 1) // the session's queue
            #expect(lines.contains("main queue: Hello World"))
            // The inline handler: on no queue of the session's (on the curl and native transports, on none).
            #expect(lines.contains { $0.hasPrefix("Hello World ") && $0 != "Hello World handlers" })
        }
    }

    @Test("the logger example writes the request as curl, the credential redacted, then method, URL and status")
    func logging() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 2)
            try await readmeLogging(sandbox, printed)
            #expect(printed.complete.hasFired)
            let url = sandbox.baseURL.appendingPathComponent("/hello/").absoluteString
            let lines = printed.all
            #expect(lines.count == 2)
            // The request as the transport sent it; the codings it asks for are those its libraries decode.
            let command = lines.first.map { line in
                line.components(separatedBy: " -H ").filter { !$0.hasPrefix("'Accept-Encoding: ") }.joined(separator: " -H ")
            }
            #expect(command == "→ curl -H 'Accept: */*' -H 'Authorization: <redacted>' -H 'Host: 127.0.0.1:\(sandbox.port)' "
                + "-H 'User-Agent: Jewzruxin' '\(url)'")
            #expect(lines.last?.hasPrefix("GET \(url) → 200, 11 bytes, ") == true)
            #expect(!lines.joined().contains("s3cret"))
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
        let (_, configuration) = try transportsConfiguration(
            certURL: URL(fileURLWithPath: "/nonexistent/cert.pem"), keyURL: URL(fileURLWithPath: "/nonexistent/key.pem"))
        #expect(configuration.tls.minimumVersion == .tls1_2)
        #expect(configuration.tls.pinnedPublicKeys.count == 1)
        #expect(configuration.proxy?.excludedHosts == ["localhost", ".intranet.example", "10.0.0.0/8"])
    }
}
