import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTestSupport
import Testing

/// The DocC articles' Swift examples: each is in `DocCExamples.swift` as its article has it (or in
/// `ReadmeExamples.swift`, when the README has it too), compiles, and those that can run here run
/// against the sandbox or a mock and do what the article says.
@Suite("DocC examples", .usesMainQueue)
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

    /// A directory of its own in the temporary directory, removed after `body`.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("DocCTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// A part of the sandbox's `/multipart/` report.
    struct Part: Decodable, Equatable {
        let name: String
        let filename: String?
        let contentType: String?
        let size: Int
    }

    /// The sandbox's `/multipart/` report.
    struct Received: Decodable {
        let parts: [Part]
        let chunked: Bool
    }

    @Test("the cookies example stores a cookie for an hour, then the server ends it")
    func cookies() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 2)
            try await docCCookies(sandbox, printed)
            #expect(printed.all == ["theme dark true", "0"])
        }
    }

    // MARK: - Jewzruxin

    @Test("the query parameters merge as the article shows")
    func queryParameters() {
        #expect(docCQueryParameters() == "/hello/?key1=value1&key2=value2")
    }

    @Test("the processors send the object as JSON and read the echoed answer: 9")
    func processors() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 1)
            try docCProcessors(url: sandbox.baseURL.absoluteString + "/dumpupload/", printed)
            #expect(await printed.complete.wait())
            #expect(printed.all == ["9"])
        }
    }

    @Test("a session with the NoRedirects policy gets the 302 itself", .onEveryTransport)
    func redirects() async throws {
        try await Sandbox.withSandbox { sandbox in
            let session = makeSession()
            docCRedirects(session: session)
            let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/redirect/?to=/hello/", session: session)
            #expect(cycle.response.statusCode == 302)
        }
    }

    @Test("the proxy settings are made as written")
    func proxy() throws {
        let (_, configuration) = try docCProxy()
        #expect(configuration.proxy?.excludedHosts == ["localhost", "10.0.0.0/8"])
    }

    @Test("the multipart form's four parts arrive with their types, the stream's making the body chunked")
    func multipart() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await Self.withTemporaryDirectory { directory in
                let reportURL = directory.appendingPathComponent("report.pdf")
                let logURL = directory.appendingPathComponent("app.log")
                try Data("%PDF-1.4\n".utf8).write(to: reportURL)
                try Data("started\nstopped\n".utf8).write(to: logURL)
                let printed = PrintedLines(expecting: 1)
                try await docCMultipart(sandbox, reportURL: reportURL, logURL: logURL, printed)
                let received = try JSONDecoder().decode(Received.self, from: Data(printed.all.joined().utf8))
                #expect(received.parts == [
                    Part(name: "name", filename: nil, contentType: nil, size: 4),
                    Part(name: "report", filename: "report.pdf", contentType: "application/pdf", size: 9),
                    Part(name: "table", filename: "t.csv", contentType: "text/csv", size: 4),
                    Part(name: "log", filename: "app.log", contentType: "application/octet-stream", size: 16),
                ])
                #expect(received.chunked)
            }
        }
    }

    @Test("the stream reads the whole body, the progress ending at 1")
    func stream() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 0)
            try await docCStream(sandbox, printed)
            #expect(printed.all.last == "200 1048576")
            #expect(printed.all.dropLast().last == "1.0")
        }
    }

    @Test("JSONParser reads a key path of the body; StoreParser makes a Store of it")
    func contentHandlers() async throws {
        try await Sandbox.withSandbox { sandbox in
            sandbox.route("/store") { _ in
                .json(Data(#"{"store": {"name": "Squirrel Hill", "address": {"zip": "15217"}}}"#.utf8))
            }
            let url = sandbox.baseURL.appendingPathComponent("/store")
            let printed = PrintedLines(expecting: 1)
            try await docCContentHandler(url: url, printed)
            #expect(printed.all == ["15217"])

            let cycle = HTTPCycle(requestURL: url)
            cycle.contentHandler = StoreParser()
            try await cycle.start()
            #expect(cycle.response.content as? Store == Store(name: "Squirrel Hill"))
        }
    }

    // MARK: - JewzruxinFluent

    @Test("the chain reads a store's city with a key path, and a handler of two gets the response")
    func fluentHandlers() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 2)
            docCProcessTheResponse(service: makeService(sandbox), printed)
            docCResponseBeside(service: makeService(sandbox), printed)
            #expect(await printed.complete.wait())
            #expect(printed.all.sorted() == ["2 application/json", "Pittsburgh"])
        }
    }

    @Test("the form goes up with its progress; the sandbox got the avatar as image/png")
    func uploadAForm() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await Self.withTemporaryDirectory { directory in
                let avatarURL = directory.appendingPathComponent("avatar.png")
                try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: avatarURL)
                let printed = PrintedLines(expecting: 0)
                let report = try await docCUploadAForm(service: makeService(sandbox), avatarURL: avatarURL, printed)
                #expect(report["parts.1.filename"]?.stringValue == "avatar.png")
                #expect(report["parts.1.contentType"]?.stringValue == "image/png")
                #expect(report["parts.1.size"]?.intValue == 8)
                let total = report["bodyLength"]?.intValue ?? -1
                #expect(printed.all.last == "\(total) of \(total)")
            }
        }
    }

    @Test("the service's interceptor refreshes the token once; a request's own adds its header")
    func serviceInterceptors() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 1)
            let text = try await docCServiceInterceptors(base: sandbox.baseURL.absoluteString, printed)
            #expect(text == "Hello me.1")
            #expect(await printed.complete.wait())
            #expect(printed.all.first?.contains("X-Trace") == true)
            #expect(sandbox.bearerRefreshCount(forKey: "me") == 1)
        }
    }

    @Test("the awaited twins: the stores of 15217, all stores, validated models")
    func awaited() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (stores, json, models, status) = try await docCAwait(service: makeService(sandbox))
            #expect(stores == storesIn15217)
            #expect(json.arrayValue?.count == models.count)
            #expect(status == 200)
        }
    }

    @Test("the body as chunks adds up to the whole")
    func fluentStream() async throws {
        try await Sandbox.withSandbox { sandbox in
            let printed = PrintedLines(expecting: 0)
            let total = try await docCFluentStream(service: makeService(sandbox), printed)
            #expect(total == 1_048_576)
            let chunks = printed.all.filter { $0.hasPrefix("200 ") }.compactMap { Int($0.dropFirst(4)) }
            #expect(chunks.reduce(0, +) == 1_048_576)
            #expect(printed.all.last == "1048576 of 1048576 bytes")
        }
    }

    @Test("a service on a MockSession decodes the stub, and the mock kept the query")
    func mockSession() async throws {
        let (stores, queries) = try await docCMockSession()
        #expect(stores.map(\.name) == ["Shadyside"])
        #expect(queries == ["zip=15217"])
    }

    // MARK: - JewzruxinSandbox

    @Test("a route of one's own answers before the built-in endpoints")
    func route() async throws {
        try await Sandbox.withSandbox { sandbox in
            docCRoute(sandbox)
            // A session of its own: the default one stores the route's cookie in the process's shared
            // storage, where every later default-configured session in the process would send it.
            let session = HTTPSession(configuration: .ephemeral)
            let cycle = try await HTTPCycle.post(sandbox.baseURL.absoluteString + "/login", session: session)
            #expect(cycle.response.text == #"{"token":"abc"}"#)
            #expect(cycle.response.value(forHTTPHeaderField: "Set-Cookie") == "session=1")
        }
    }
}
