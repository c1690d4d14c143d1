import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The README's Swift examples, each between `// README example begin` and `// README example end`
// exactly as the README has them (its `import` lines are at the top of this file). `ReadmeTests`
// checks that the two agree and runs the examples; what an example prints is recorded, not written.

/// What an example printed, line by line; ``complete`` fires once it has printed as many lines as
/// expected (some come from callbacks, after the example's code has returned).
final class PrintedLines: Sendable {
    private let lines = Locked<[String]>([])
    private let expected: Int
    let complete = Event()

    init(expecting expected: Int) {
        self.expected = expected
    }

    func add(_ items: [Any]) {
        let count = lines.withLock { lines in
            lines.append(items.map { "\($0)" }.joined(separator: " "))
            return lines.count
        }
        if count == expected { complete.fire() }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// Once a README example: a multipart form of a field and a file, sent to the sandbox, which reports the parts it got;
/// the file is written to the temporary directory and removed when this returns.
func readmeMultipart(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // A file of yours; here one written first.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sales.csv")
    try Data("region,total\nnorth,12\nsouth,7\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }

    var form = MultipartFormData()
    form.append("Jane", name: "name")
    form.append(fileAt: file, name: "report") // text/csv, from the file name; read from disk as it is sent
    let cycle = try await HTTPCycle.upload(sandbox.baseURL.absoluteString + "/multipart/", source: .multipart(form))
    print(cycle.response.text ?? "") // each part as the sandbox received it: name, file name, type, size, SHA-256
}

/// Interceptors: a header on every request, a bearer token refreshed once, a retrier.
func readmeInterceptors(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    struct TokenAnswer: Decodable { let access_token: String; let expires_in: Double }

    // A bearer token, refreshed once for all the requests that find it expired or get a 401.
    let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "stale")) { _ in
        // The refresh goes on a session without the interceptor (here the default one).
        let refreshed = try await HTTPCycle.post(sandbox.baseURL.absoluteString + "/bearer/refresh/?key=me")
        let answer = try JSONDecoder().decode(TokenAnswer.self, from: refreshed.response.data)
        return BearerToken(accessToken: answer.access_token, expiration: Date().addingTimeInterval(answer.expires_in))
    }
    let session = HTTPSession()
    session.interceptors = [
        RequestInterceptor.header("X-Client", "readme"), // every request gets it
        auth,
        // A 429 waits half a second and goes again, twice at most.
        RequestInterceptor(retry: { _, failure in
            failure.statusCode == 429 && failure.retriedCount < 2 ? .retryAfter(0.5) : .doNotRetry
        }),
    ]
    let me = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/bearer/?key=me", session: session)
    print(me.response.text ?? "") // Hello me.1 (sent with a stale token, refused, refreshed, resent)
    // README example end
}

/// The fluent chains: typed handlers, error documents, awaiting; validation, images.
func readmeFluent(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    struct Store: Decodable, Sendable { let name: String; let zip: String }
    struct APIError: Decodable, Sendable { let code: String; let message: String }

    let service = WebService(baseURLString: sandbox.baseURL.absoluteString)
    service.GET("/stores/", parameters: ["zip": "15217"])
        .responseJSON([Store].self) { stores in print(stores.map(\.name)) } // ["Squirrel Hill", "Greenfield"]
        .responseError(APIError.self) { apiError in print(apiError.message) }
        .responseError { error in print(error) }
    service.GET("/stores/", parameters: ["zip": "abc"])
        .responseJSON([Store].self) { stores in print(stores.map(\.name)) }
        .responseError(APIError.self) { apiError in print(apiError.code) } // invalidZipCode

    let stores = try await service.GET("/stores/", parameters: ["zip": "15217"]).decode([Store].self)
    print(stores.count) // 2
    // README example end
    // Once the README's too; now the fluent Getting Started article shows validation and images.
    service.GET("/stores/", parameters: ["zip": "15217"], options: [.header(Request.Headers.accept, "application/json")])
        .validate()
        .responseJSON([Store].self) { stores, response in print(stores.count, response.statusCode ?? 0) } // 2 200
        .responseError { error in if let refused = error as? ResponseValidationError { print(refused.reason) } }

    let (json, response) = try await service.GET("/stores/").validate().jsonWithResponse()
    let image = try await service.GET("/image/png", parameters: ["width": 64, "height": 48]).asImage().image()
    print(image.format, image.width, image.height) // png 64 48
    struct StoreQuery: Encodable, Sendable { let zip: String; let open: Bool? }
    let nearby = try await service.GET("/stores/", parameters: StoreQuery(zip: "15217", open: nil)).decode([Store].self)
    print(nearby.count) // 2
    print("stores listed", json.arrayValue?.count ?? 0, response.statusCode ?? 0)
    _ = await printed.complete.wait()
}

/// Once a README example: a resumable download, cut by the sandbox after 30 000 bytes and resumed; leaves `blob.bin` in the
/// temporary directory, for the test to check and remove.
func readmeResumableDownload(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // A download that keeps its partial file when it fails, and goes on from it later, even after a
    // relaunch: the library's own resume data, the same on every transport.
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("blob.bin")
    let move: HTTPCycle.DownloadFileHandler = { _, location in
        try? FileManager.default.removeItem(at: destination)
        try? FileManager.default.moveItem(at: location, to: destination)
    }
    do {
        // The sandbox cuts this response after 30 000 of its 100 000 bytes.
        try await HTTPCycle.resumableDownload(sandbox.baseURL.absoluteString + "/range/100000?drop_after=30000",
                                              downloadFileHandler: move)
    } catch let interrupted as DownloadInterruptedError {
        let saved = try JSONEncoder().encode(interrupted.resumeData) // Codable: keep it with the file
        let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
        print(resumeData.bytesReceived) // 30000
        // Range: bytes=30000-, If-Range: the ETag (else Last-Modified); the 206 is appended.
        let cycle = try await HTTPCycle.download(resumingFrom: resumeData, downloadFileHandler: move)
        print(cycle.response.statusCode ?? 0) // 206, and blob.bin holds the 100 000 bytes
    }
}

/// The body and the progress as async sequences.
func readmeStreams(_ sandbox: Sandbox, _ printed: PrintedLines) async throws -> Int {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    // The head first, then the body as it arrives, in Data chunks.
    let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/bytes/1048576"))
    let progress = cycle.downloadProgress   // TransferProgress values until the run ends
    let (response, bytes) = try await cycle.stream()
    print(response.statusCode ?? 0, response.expectedContentLength) // 200 1048576
    var total = 0
    for try await chunk in bytes { total += chunk.count }            // break or cancel: the request is cancelled
    for await step in progress { print(step) }                       // "1048576 of 1048576 bytes"

    // The fluent layer: service.GET("/bytes/1048576").bytes, task.stream(), task.downloadProgress.
    // README example end
    return total
}

/// Once a README example: handler queues, a session's, a cycle's (inline), a chain handler's (main).
func readmeHandlerQueues(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // Every cycle of a session: its handlers on a queue of yours, an OperationQueue or a DispatchQueue.
    let handlers = OperationQueue()
    handlers.name = "handlers"
    let session = HTTPSession()
    session.handlerQueue = .queue(handlers)
    try HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session) { cycle, _ in
        print(cycle.response.text ?? "", OperationQueue.current?.name ?? "") // Hello World handlers
    }

    // One cycle: .inline runs its handlers where the request ends (a transport's thread), without a hop.
    let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/hello/"), session: session)
    cycle.handlerQueue = .inline
    cycle.start { cycle, _ in
        print(cycle.response.text ?? "", OperationQueue.current?.name ?? "no queue") // Hello World no queue
    }

    // One handler of a chain: a queue as its first argument (the main queue, say, for the UI).
    WebService(baseURLString: sandbox.baseURL.absoluteString, session: session).GET("/hello/")
        .responseString(.main) { text in print("main queue:", text) } // main queue: Hello World
    // The sandbox stops when this returns: wait for the three handlers first.
    _ = await printed.complete.wait()
}

/// The logger at debug level, its lines printed, on a request with a credential.
func readmeLogging(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    let session = HTTPSession()
    // One line per request; at .debug also each request as a curl command. To the standard error,
    // or wherever `write` puts each line.
    session.eventMonitors.append(HTTPLogger(level: .debug, write: { line in print(line) }))

    let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/hello/"), session: session)
    cycle.request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
    try await cycle.start()
    // → curl -H 'Accept: */*' -H 'Accept-Encoding: zstd, br, gzip, deflate' -H 'Authorization: <redacted>' -H 'Host: 127.0.0.1:…' -H 'User-Agent: Jewzruxin' 'http://127.0.0.1:…/hello/'
    // GET http://127.0.0.1:…/hello/ → 200, 11 bytes, 0.9 ms
    // README example end
    // The end of the run may be heard after the await returns.
    _ = await printed.complete.wait()
}

/// Picking the native transport.
func readmeNativeTransport(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    let session = HTTPSession(configuration: .ephemeral, transport: .native)
    let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session)
    let service = WebService(baseURLString: sandbox.baseURL.absoluteString, session: session)
    print(try await service.GET("/hello/").string()) // Hello World
    // README example end
    print(cycle.response.text ?? "")
}

/// Server-sent events and an NDJSON stream from the sandbox.
func readmeEventStreams(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // README example begin
    let service = WebService(baseURLString: sandbox.baseURL.absoluteString)

    // Server-sent events as they arrive. When the stream ends, the client reconnects with
    // Last-Event-ID after the server's `retry:` time (10 ms here), until the server answers 204.
    for try await event in service.GET("/events/", parameters: ["n": "2", "retry": "10"]).events() {
        print(event.type, event.id ?? "", try event.json()["n"]?.intValue ?? 0) // tick 1 1, then tick 2 2
    }

    // One JSON document per line (NDJSON); a line is at most 1 MiB unless you say otherwise.
    for try await line in service.GET("/stream/2").bytes.lines {
        print(try JSON(data: Data(line.utf8))["id"]?.intValue ?? -1) // 0, then 1
    }
    // README example end
}

// README example begin
@MainActor final class StoreList {
    var names: [String] = []

    func load(from service: WebService) {
        // Runs on the main actor: it sets the list's state directly, in Swift 6 mode.
        service.GET("/stores/").responseJSON(.mainActor) { json in
            self.names = json.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        }
    }
}
// README example end
