import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The Swift examples of the DocC articles (`Sources/*/*.docc/*.md`), each between
// `// DocC example begin` and `// DocC example end` exactly as its article has it (its `import`
// lines are at the top of this file; an example the README has too is in `ReadmeExamples.swift`).
// `DocCTests` checks that the two agree and runs the examples that can run here; the others are
// compiled only. What an example takes from around it (a `url`, a `session`, a `service`) comes in
// as a parameter; the types it assumes are declared here, outside the regions.

// MARK: - Jewzruxin: the overview

/// The module's overview: a server on a fixed port, so compiled only.
func docCOverview() async throws -> HTTPCycle {
    // DocC example begin
    try HTTPCycle.get("http://127.0.0.1:8080/hello/") { cycle, error in
        if let error { print(error); return }
        print(cycle.response.text ?? "") // Hello World
    }

    let cycle = try await HTTPCycle.get("http://127.0.0.1:8080/echo/", parameters: ["content": "dummy"])
    print(cycle.response.text ?? "") // dummy
    // DocC example end
    return cycle
}

// MARK: - Jewzruxin: Getting Started

/// Compiled only: a fixed port.
func docCGet() throws {
    // DocC example begin
    try HTTPCycle.get("http://127.0.0.1:8080/hello/") { cycle, error in
        if let error { print(error); return }
        print(cycle.response.text ?? "") // Hello World
    }
    // DocC example end
}

/// Compiled only: a fixed port.
func docCGetAwaited() async throws -> HTTPCycle {
    // DocC example begin
    let cycle = try await HTTPCycle.get("http://127.0.0.1:8080/echo/", parameters: ["content": "dummy"])
    // DocC example end
    return cycle
}

func docCTwoSteps(url: URL) {
    // DocC example begin
    let cycle = HTTPCycle(requestURL: url, requestMethod: .post)
    cycle.request.setValue("Jewzruxin/0.1.0", forHTTPHeaderField: "User-Agent")
    cycle.request.data = Data("Hello World".utf8)
    cycle.start { cycle, error in /* … */ }
    // DocC example end
}

/// What the query example gives.
func docCQueryParameters() -> String {
    // DocC example begin
    "/hello/?key2=value2".mergingQueryParameters(["key1": "value1"]) // "/hello/?key1=value1&key2=value2"
    // DocC example end
}

/// A JSON body sent and the JSON answer read, with processors.
func docCProcessors(url: String, _ printed: PrintedLines) throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    try HTTPCycle.post(url, requestObject: ["k1": "v1", "k2": 9] as JSON,
                       requestProcessors: [HTTPJSONProcessor()], responseProcessors: [HTTPJSONProcessor()]) { cycle, error in
        let json = cycle.response.object as? JSON
        print(json?["k2"]?.intValue ?? 0) // 9, from a server that echoes the body
    }
    // DocC example end
}

func docCAuthentication(url: String) throws {
    // DocC example begin
    let auth = BasicAuthentication(username: "test", password: "12345")
    try HTTPCycle.get(url, authentications: [auth]) { cycle, error in /* … */ }
    // DocC example end
}

/// Compiled only: there is no intranet here.
func docCNTLM(url: String) async throws -> HTTPCycle {
    // DocC example begin
    let session = HTTPSession(configuration: .default, transport: .curl)
    let ntlm = NTLMAuthentication(username: "jane", password: "secret", domain: "CORP")
    let cycle = try await HTTPCycle.get(url, authentications: [ntlm], session: session)
    // DocC example end
    return cycle
}

func docCDeadline(url: URL) async throws {
    // DocC example begin
    let cycle = HTTPCycle(requestURL: url)
    cycle.timeoutIntervalForResource = 5
    do {
        try await cycle.start()
    } catch HTTPError.deadlineExceeded(let seconds) {
        print("gave up after \(seconds) s")
    }
    // DocC example end
}

/// Gives `session` a redirect policy that follows none.
func docCRedirects(session: HTTPSession) {
    // DocC example begin
    struct NoRedirects: HTTPRedirectPolicy {
        func action(for response: HTTPResponse, request: HTTPRequest, redirectCount: Int) -> HTTPRedirectAction { .deliver }
    }
    session.redirectPolicy = NoRedirects()
    // DocC example end
}

/// The proxy settings: made, not used.
func docCProxy() throws -> (HTTPSession, HTTPSession.Configuration) {
    // DocC example begin
    var configuration = HTTPSession.Configuration(.ephemeral)
    configuration.proxy = try .init(url: "socks5h://user:secret@127.0.0.1:1080")
    configuration.proxy?.excludedHosts = ["localhost", "10.0.0.0/8"]
    let session = HTTPSession(configuration: configuration, transport: .curl)
    // DocC example end
    return (session, configuration)
}

func docCUploadAndDownload(url: String, fileURL: URL) throws {
    // DocC example begin
    try HTTPCycle.upload(url, source: .file(fileURL), didSendBodyDataHandler: { cycle, sent, total, expected in }) { cycle, error in }
    try HTTPCycle.download(url, didWriteDataHandler: { cycle, written, total, expected in },
                           downloadFileHandler: { cycle, location in /* move the file */ }) { cycle, error in }
    // DocC example end
}

func docCResumableDownload(url: String) async throws {
    // DocC example begin
    do {
        try await HTTPCycle.resumableDownload(url) { _, location in /* move the file */ }
    } catch let interrupted as DownloadInterruptedError {
        let saved = try JSONEncoder().encode(interrupted.resumeData) // Codable: survives a relaunch
        let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
        try await HTTPCycle.download(resumingFrom: resumeData) { _, location in /* move the file */ }
    }
    // DocC example end
}

/// A form of a field, a file, bytes and a stream, sent to the sandbox, which reports what it got.
func docCMultipart(_ sandbox: Sandbox, reportURL: URL, logURL: URL, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    var form = MultipartFormData()
    form.append("Jane", name: "name")
    form.append(fileAt: reportURL, name: "report") // application/pdf for report.pdf
    form.append(Data("a,b\n".utf8), name: "table", filename: "t.csv", contentType: "text/csv")
    form.append(name: "log", filename: "app.log", length: nil) { InputStream(url: logURL) ?? InputStream(data: Data()) }
    let cycle = try await HTTPCycle.upload(sandbox.baseURL.absoluteString + "/multipart/", source: .multipart(form))
    print(cycle.response.text ?? "") // the sandbox's report of each part: name, file name, type, size, SHA-256
    // DocC example end
}

/// The body of `/bytes/1048576` streamed, and the progress.
func docCStream(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/bytes/1048576"))
    let progress = cycle.downloadProgress
    let (response, bytes) = try await cycle.stream()
    var total = 0
    for try await chunk in bytes { total += chunk.count }
    for await step in progress { print(step.fractionCompleted ?? 0) }
    print(response.statusCode ?? 0, total) // 200 1048576
    // DocC example end
}

func docCHandlerQueues(session: HTTPSession, url: URL) {
    // DocC example begin
    session.handlerQueue = .queue(DispatchQueue(label: "handlers"))
    let cycle = HTTPCycle(requestURL: url, session: session)
    cycle.handlerQueue = .inline
    cycle.start { cycle, error in /* on the transport's thread */ }
    // DocC example end
}

func docCLogging(session: HTTPSession) {
    // DocC example begin
    session.eventMonitors.append(HTTPLogger())               // one line per request
    session.eventMonitors.append(HTTPLogger(level: .debug))  // and each request as a curl command
    // DocC example end
}

/// Compiled only: it prints to the standard output, for requests slower than a second.
func docCEventMonitor(session: HTTPSession) {
    // DocC example begin
    struct SlowRequests: HTTPEventMonitor {
        func cycle(_ cycle: HTTPCycle, didCollect metrics: HTTPTransferMetrics) {
            if metrics.total > 1 { print("slow:", cycle.request.url?.absoluteString ?? "") }
        }
    }
    session.eventMonitors.append(SlowRequests())
    // DocC example end
}

/// Cookies stored from a response, then ended with Max-Age=0.
func docCCookies(_ sandbox: Sandbox, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    let session = HTTPSession(configuration: .ephemeral)
    let base = sandbox.baseURL.absoluteString
    // The sandbox's /echo/ answers with the header it is given: a cookie for an hour, for every path.
    _ = try await HTTPCycle.get(base + "/echo/", parameters: ["header": "Set-Cookie:theme=dark; Path=/; Max-Age=3600"], session: session)
    for cookie in session.configuration.httpCookieStorage?.cookies ?? [] {
        print(cookie.name, cookie.value, cookie.expiresDate != nil) // theme dark true
    }
    // Every later request to that host and path carries it, until it expires or the server ends it.
    _ = try await HTTPCycle.get(base + "/echo/", parameters: ["header": "Set-Cookie:theme=; Path=/; Max-Age=0"], session: session)
    print(session.configuration.httpCookieStorage?.cookies?.count ?? 0) // 0
    // DocC example end
}

// MARK: - Jewzruxin: Handling response content

/// A JSON body parsed as it arrives, a value read from it by key path.
func docCContentHandler(url: URL, _ printed: PrintedLines) async throws {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    let cycle = HTTPCycle(requestURL: url)
    cycle.contentHandler = JSONParser()
    try await cycle.start()
    if let json = cycle.response.content as? JSON {
        print(json["store.address.zip"]?.stringValue ?? "")
    }
    // DocC example end
}

/// What `StoreParser` makes.
struct Store: Sendable, Equatable {
    let name: String
}

// DocC example begin
final class StoreParser: JSONParser, @unchecked Sendable {
    override func content(from json: JSON) throws -> (any Sendable)? {
        guard let name = json["store.name"]?.stringValue else {
            throw ContentHandlerError(.unparsableContent, reason: "no store name")
        }
        return Store(name: name)
    }
}
// DocC example end

// MARK: - JewzruxinFluent: the overview

/// Compiled only: `storelocator` is no host here.
func docCFluentOverview() {
    // DocC example begin
    WebService(baseURLString: "https://storelocator/")
        .GET("/stores", parameters: ["zip": "15217"])
        .responseJSON([StoreModel].self) { stores in
            // update the UI with the stores
        }
        .responseError { error in
            // I am error
        }
    // DocC example end
}

// MARK: - JewzruxinFluent: Getting Started

/// Compiled only: `storelocator` is no host here.
func docCSendARequest() {
    // DocC example begin
    let service = WebService(baseURLString: "https://storelocator/")

    service
        .GET("/stores", parameters: ["zip": "15217"])
        .response { (response: HTTPResponse, data: Data) in
            // process the response data
        }
        .responseError { error in
            // I am error
        }
    // DocC example end
}

func docCProcessTheResponse(service: WebService, _ printed: PrintedLines) {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    service
        .GET("/stores", parameters: ["zip": "15217"])
        .response { response, data in
            // the raw response
        }
        .responseJSON { json in
            print(json["0.address.city"]?.stringValue ?? "")  // a JSON value, read with key paths: Pittsburgh
        }
        .responseJSON([StoreModel].self) { stores in
            // the body decoded with JSONDecoder
        }
        .responseString { text in
            // the body as text, in the charset the response names
        }
    // DocC example end
}

func docCErrorHandlers(service: WebService) {
    // DocC example begin
    struct APIError: Decodable, Sendable {
        let code: String
        let message: String
    }

    service
        .GET("/stores", parameters: ["zip": "bad"])
        .responseJSON([StoreModel].self) { stores in
            // not called: the server answered 400
        }
        .responseError(APIError.self) { apiError in
            // the error document the server sent, decoded
        }
        .responseError { response, error in
            // response is nil when none arrived (a transport error, an invalid URL)
        }
    // DocC example end
}

func docCResponseBeside(service: WebService, _ printed: PrintedLines) {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    service
        .GET("/stores", parameters: ["zip": "15217"])
        .responseJSON([StoreModel].self) { stores, response in
            print(stores.count, response.value(forHTTPHeaderField: "Content-Type") ?? "")
        }
        .responseJSON { (json: JSON, response: HTTPResponse) in
            // the JSON value and its response
        }
    // DocC example end
}

func docCValidate(service: WebService) {
    // DocC example begin
    service
        .GET("/stores", parameters: ["zip": "15217"], options: [.header(Request.Headers.accept, "application/json")])
        .validate()
        .responseJSON([StoreModel].self) { stores in
            // a 2xx JSON response
        }
        .responseError { error in
            guard let refused = error as? ResponseValidationError else { return }
            switch refused.reason {
            case .unacceptableStatusCode(let status): print("status", status)
            case .unacceptableContentType(let type, _): print("got", type)
            case .missingContentType: print("no Content-Type")
            case .customValidationFailed(let reason): print(reason)
            }
        }
    // DocC example end
}

/// Why a report is refused.
private enum ReportError: Error {
    case incomplete
}

func docCCustomValidation(service: WebService) {
    // DocC example begin
    service
        .GET("/report")
        .validate(statusCode: [200])                 // a 204 is refused
        .validate(contentType: ["application/*"])
        .validate { response in
            guard response.value(forHTTPHeaderField: "X-Complete") == "yes" else { throw ReportError.incomplete }
        }
        .responseJSON { json in }
    // DocC example end
}

// The custom handler and request of the article are the store locator's (see `StoreLocator.swift`).
// DocC example begin
enum StoreError: Error {
    case modelSerializationFailure
}

extension ServiceTask {
    func responseAsStoresModels(_ handler: @escaping @Sendable ([StoreModel]) -> Void) -> Self {
        responseJSON { json in
            if let models = StoreModel.models(from: json) {
                handler(models)
            } else {
                self.throwError(StoreError.modelSerializationFailure)
            }
        }
    }
}
// DocC example end

// DocC example begin
extension WebService {
    func searchStores(zipCode: String) -> ServiceTask {
        GET("/stores", parameters: ["zip": zipCode])
    }
}
// DocC example end

func docCCustomRequest(service: WebService) {
    // DocC example begin
    service
        .searchStores(zipCode: "15217")
        .responseAsStoresModels { stores in
            // update the UI
        }
        .responseError { error in
            // a failed request, or JSON that isn't stores
        }
    // DocC example end
}

func docCParameters(service: WebService) {
    // DocC example begin
    let parameters = ["foo": "bar", "percentEncoded": "this needs percent encoded"]
    service.GET("/get", parameters: parameters)
    // GET /get?foo=bar&percentEncoded=this%20needs%20percent%20encoded

    service.POST("/post", parameters: parameters)
    // POST /post, Content-Type: application/x-www-form-urlencoded
    // foo=bar&percentEncoded=this%20needs%20percent%20encoded

    service.POST("/post", parameters: ["foo": "bar", "number": 42], options: [
        .parameterEncoding(.json),
        .header("custom-header", "12345"),
        .header(Request.Headers.userAgent, "my app ua"),
    ])
    // POST /post, Content-Type: application/json
    // {"foo":"bar","number":42}

    service.DELETE("/stores/7", parameters: ["force": true], options: [.parameterEncoding(.query)])
    // DELETE /stores/7?force=true, no body
    // DocC example end
}

func docCEncodableParameters(service: WebService) {
    // DocC example begin
    struct StoreQuery: Encodable, Sendable { let zip: String; let open: Bool? }
    service.GET("/stores/", parameters: StoreQuery(zip: "15217", open: nil)) // ?zip=15217

    struct NewEvent: Encodable, Sendable { let startDate: Date }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    service.POST("/events", parameters: NewEvent(startDate: .now), encoder: encoder, options: [.parameterEncoding(.json)])
    // DocC example end
}

/// A form of a field and an image file, sent to the sandbox; its report of the parts.
func docCUploadAForm(service: WebService, avatarURL: URL, _ printed: PrintedLines) async throws -> JSON {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    var form = MultipartFormData()
    form.append("Jane", name: "name")
    form.append(fileAt: avatarURL, name: "avatar") // image/png for avatar.png
    let report = try await service.upload(multipart: form, to: "/multipart/", progress: { _, _, sent, total in
        print(sent, "of", total)
    }).json()
    // DocC example end
    return report
}

/// A service with a bearer token refreshed once, and a request with a header of its own.
func docCServiceInterceptors(base: String, _ printed: PrintedLines) async throws -> String {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    let auth = AuthenticationInterceptor(token: BearerToken(accessToken: "stale")) { _ in
        let json = try await WebService(baseURLString: base).POST("/bearer/refresh/?key=me").json()
        return BearerToken(accessToken: json["access_token"]?.stringValue ?? "")
    }
    let api = WebService(baseURLString: base, interceptors: [auth])
    let text = try await api.GET("/bearer/", parameters: ["key": "me"]).string() // Hello me.1

    api.GET("/inspect/")
        .interceptors([RequestInterceptor.header("X-Trace", "on")]) // this request only
        .responseJSON { json in print(json) }
    // DocC example end
    return text
}

func docCHandlerQueue(service: WebService) {
    // DocC example begin
    service
        .GET("/stores", parameters: ["zip": "15217"])
        .response(.queue(DispatchQueue.global(qos: .background))) { response, data in
            // off the main queue
        }
        .responseJSON { json in
            // back on the main queue, after the handler above has returned
        }
    // DocC example end
}

/// What the inline handler hands its JSON to.
final class JSONCache: Sendable {
    func store(_ json: JSON) {}
}

func docCInlineHandler(service: WebService, cache: JSONCache) {
    // DocC example begin
    service.session.handlerQueue = .inline   // every handler of this session without a queue
    service.GET("/stores").responseJSON(.inline) { json in
        cache.store(json)                     // quick, thread-safe, never blocks
    }
    // DocC example end
}

func docCContentShortcuts(service: WebService, path: String) {
    // DocC example begin
    service.GET("/stores").asJSON().responseJSON { json in }          // parsed as it arrives
    service.GET("/catalog.zip").downloadToFile(path).response { _, _ in } // streamed to a file
    service.GET("/avatars/42.png").asImage().responseImage { image in }  // an image/* body read as an image
    // DocC example end
}

func docCResumeToFile(service: WebService, path: String) {
    // DocC example begin
    let resumeFile = URL(fileURLWithPath: path + ".resume")
    let savedResumeData = try? JSONDecoder().decode(DownloadResumeData.self, from: Data(contentsOf: resumeFile))
    service.GET("/catalog.zip")
        .downloadToFile(path, resumingFrom: savedResumeData) // nil for a first try
        .responseError { error in
            if let interrupted = error as? DownloadInterruptedError {
                try? JSONEncoder().encode(interrupted.resumeData).write(to: resumeFile)
            }
        }
    // DocC example end
}

/// Compiled only: the sandbox has no `/avatars/`.
func docCImage(service: WebService) async throws {
    @Sendable func print(_ items: Any...) {}
    // DocC example begin
    let image = try await service.GET("/avatars/42.png").asImage().image()
    print(image.format, image.width, image.height)   // png 64 64
    // UIImage(data: image.data) on iOS
    // DocC example end
}

/// The awaited twins, on the store locator.
func docCAwait(service: WebService) async throws -> (stores: [StoreModel], json: JSON, models: [StoreModel], status: Int?) {
    // DocC example begin
    let stores = try await service.searchStores(zipCode: "15217").decode([StoreModel].self)
    let json = try await service.GET("/stores").json()
    let (models, response) = try await service.GET("/stores").validate().decodeWithResponse([StoreModel].self)
    // DocC example end
    return (stores, json, models, response.statusCode)
}

/// `/bytes/1048576` as a sequence of chunks, twice; the first total.
func docCFluentStream(service: WebService, _ printed: PrintedLines) async throws -> Int {
    @Sendable func print(_ items: Any...) { printed.add(items) }
    // DocC example begin
    var total = 0
    for try await chunk in service.GET("/bytes/1048576").bytes { total += chunk.count }

    let task = service.GET("/bytes/1048576")
    let progress = task.downloadProgress
    let (response, bytes) = try await task.stream()
    for try await chunk in bytes { print(response.statusCode ?? 0, chunk.count) }
    for await step in progress { print(step) }
    // DocC example end
    return total
}

/// A service on a `MockSession`; the stores it got, and the queries the mock was sent.
func docCMockSession() async throws -> (stores: [StoreModel], queries: [String?]) {
    // DocC example begin
    let mock = MockSession()
    mock.stub(.get, "/stores", status: 200, headers: ["Content-Type": "application/json"], body: Data("""
        [{"name": "Shadyside", "zip": "15232",
          "address": {"street": "5600 Walnut St", "city": "Pittsburgh", "zip": "15232"}}]
        """.utf8))
    let service = WebService(baseURLString: "https://storelocator/", session: HTTPSession(transport: mock))

    let stores = try await service.searchStores(zipCode: "15217").decode([StoreModel].self)
    let queries = mock.requests.map(\.url?.query)   // ["zip=15217"]
    // DocC example end
    return (stores, queries)
}

// MARK: - JewzruxinSandbox

/// The examples that are tests.
extension DocCTests {
    // DocC example begin
    @Test func helloWorld() async throws {
        let sandbox = try Sandbox.start()          // 127.0.0.1, free port
        defer { sandbox.stop() }
        let url = try #require(sandbox.url("/hello/"))
        let (data, _) = try await URLSession.shared.data(from: url)
        #expect(String(decoding: data, as: UTF8.self) == "Hello World")
    }
    // DocC example end

    // DocC example begin
    @Test func storesAreRequestedByZip() async throws {
        let mock = MockSession()
        mock.stub(.get, "/stores", status: 200, headers: ["Content-Type": "application/json"],
                  body: Data(#"[{"name":"Shadyside"}]"#.utf8))
        let session = HTTPSession(transport: mock)

        let cycle = try await HTTPCycle.get("https://api.example.com/stores?zip=15217", session: session)

        #expect(cycle.response.statusCode == 200)
        #expect(mock.requests.map(\.url?.query) == ["zip=15217"])
    }
    // DocC example end
}

/// Compiled only: no client goes through the proxy here.
func docCSOCKSProxy() throws {
    // DocC example begin
    let proxy = try SOCKSProxy(credentials: .init(username: "user", password: "secret"),
                               hosts: ["sandbox.test": "127.0.0.1"])
    defer { proxy.stop() }
    // … a client configured with the proxy at 127.0.0.1:\(proxy.port) requests
    // http://sandbox.test:\(sandbox.port)/hello/ …
    #expect(proxy.handshakes.first?.target?.addressType == .domainName)
    #expect(proxy.handshakes.first?.username == "user")
    // DocC example end
}

/// Compiled only: no client goes through the proxy here.
func docCHTTPConnectProxy() async throws {
    // DocC example begin
    try await HTTPConnectProxy.withProxy(credentials: .init(username: "us:er", password: "secret")) { proxy in
        // … a client configured with the HTTP proxy 127.0.0.1:\(proxy.port) requests
        // https://localhost:<port>/ of a TLS server …
        #expect(proxy.tunnels.first?.target == "localhost:<port>")
        #expect(proxy.tunnels.first?.userPass == "us:er:secret")
    }
    // DocC example end
}

/// A route of one's own on the sandbox.
func docCRoute(_ sandbox: Sandbox) {
    // DocC example begin
    sandbox.route("/login") { request in
        guard request.method == "POST" else { return .error(405, "POST only") }
        var response = SandboxResponse.json(Data(#"{"token":"abc"}"#.utf8))
        response.headers.add("Set-Cookie", "session=1")
        return response
    }
    // DocC example end
}

// The Transports article (moved from the README).

/// TLS and proxy settings: made, not sent anywhere.
func transportsConfiguration(certURL: URL, keyURL: URL) throws -> (HTTPSession, HTTPSession.Configuration) {
    // DocC example begin
    var configuration = HTTPSession.Configuration(.ephemeral)
    configuration.tls.additionalTrustedCertificates = [.file(URL(fileURLWithPath: "/etc/myapp/ca.pem"))]
    configuration.tls.pinnedPublicKeys = ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
    configuration.tls.clientCertificate = .init(certificate: .file(certURL), privateKey: .file(keyURL))
    configuration.tls.minimumVersion = .tls1_2
    let session = HTTPSession(configuration: configuration) // curl on Linux
    // DocC example end
    // DocC example begin
    configuration.proxy = .init(.http, host: "proxy.internal", port: 3128)
    configuration.proxy = try .init(url: "socks5h://user:secret@127.0.0.1:1080") // the proxy resolves names
    configuration.proxy?.excludedHosts = ["localhost", ".intranet.example", "10.0.0.0/8"]
    // DocC example end
    return (session, configuration)
}

/// NTLM on an intranet: compiled only, there is no intranet here.
func transportsNTLM() async throws -> HTTPCycle {
    // DocC example begin
    let session = HTTPSession(configuration: .ephemeral, transport: .curl)
    session.authentications = [NTLMAuthentication(username: "jane", password: "secret", domain: "CORP")]
    let report = try await HTTPCycle.get("http://intranet.corp/report", session: session)
    // DocC example end
    return report
}
