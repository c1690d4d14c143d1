import Foundation
import HTTPTypes
import Jewzruxin
import JewzruxinHTTPTypes
import JewzruxinLogging
import JewzruxinMetrics
import JewzruxinOpenAPI
import JewzruxinSandbox
import JewzruxinTracing
import Logging
import OpenAPIRuntime
import Synchronization
import Tracing

// The Swift examples of the bridges' DocC pages and of the README's bridge examples,
// word for word between the markers (`ExampleAgreementTests` checks it), where the compiler sees
// them; `ExampleTests` runs them against the sandbox. `print` is the one that records its lines.

func docOpenAPI(_ sandbox: Sandbox, _ print: PrintedLines) async throws {
    // Bridge example begin
    // `Client` is what swift-openapi-generator made of your OpenAPI document.
    let client = Client(serverURL: sandbox.baseURL, transport: JewzruxinClientTransport())
    switch try await client.listStores(query: .init(zip: "abc")) {
    case .ok(let ok): print(try ok.body.json.map(\.name))
    case .badRequest(let refused): print(try refused.body.json.code) // invalidZipCode
    case .undocumented(let status, _): print("status", status)
    }
    // Bridge example end
}

func docOpenAPIRetries(_ sandbox: Sandbox, _ print: PrintedLines) async throws {
    // Bridge example begin
    let configuration = JewzruxinClientTransport.Configuration { cycle, operationID in
        if operationID == "postFlaky" { cycle.retryableMethods = [.post] } // the server dedupes these
    }
    let resending = Client(serverURL: sandbox.baseURL, transport: JewzruxinClientTransport(configuration: configuration))
    let answer = try await resending.postFlaky(query: .init(key: "order-1", fail: 1)) // a 503, resent
    print(try await String(collecting: answer.ok.body.plainText, upTo: 1024)) // ok after 1 failures
    // Bridge example end
}

func docHTTPTypes(_ sandbox: Sandbox, _ print: PrintedLines) async throws {
    // Bridge example begin
    typealias LibraryRequest = Jewzruxin.HTTPRequest

    let request = HTTPTypes.HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("/status/404"))
    let (response, body) = try await HTTPSession.default.send(request)
    print(response.status.code, String(decoding: body, as: UTF8.self)) // 404 status 404

    let converted = try LibraryRequest(request) // the library's request, to give to a cycle
    print(converted.method, converted.url?.path ?? "") // GET /status/404
    // Bridge example end
}

func docHTTPTypesStream(_ sandbox: Sandbox, _ print: PrintedLines) async throws {
    // Bridge example begin
    let download = HTTPTypes.HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("/bytes/1048576"))
    let (head, bytes) = try await HTTPSession.default.stream(download)
    var total = 0
    for try await chunk in bytes { total += chunk.count } // break or cancel: the request is cancelled
    print(head.status.code, total) // 200 1048576
    // Bridge example end
}

func docLogging(_ sandbox: Sandbox) async throws {
    // Bridge example begin
    var logger = Logger(label: "http")
    logger.logLevel = .debug
    let session = HTTPSession()
    let logging = LoggingMonitor.Configuration(redactedHeaders: ["X-Api-Key"], redactedQueryItems: ["token"])
    session.eventMonitors.append(LoggingMonitor(logger: logger, configuration: logging))

    let cycle = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/hello/"), session: session)
    cycle.request.setValue("s3cret", forHTTPHeaderField: "X-Api-Key")
    try await cycle.start()
    // 2026-12-02T13:47:32+0000 debug http: http.request.attempt=1 http.request.headers=["X-Api-Key": "<redacted>", "User-Agent": "Jewzruxin", "Host": "127.0.0.1:38607", "Accept": "*/*", "Accept-Encoding": "zstd, br, gzip, deflate"] http.request.method=GET request.id=e395058e8e6f8bde url.full=http://127.0.0.1:38607/hello/ [JewzruxinLogging] → GET http://127.0.0.1:38607/hello/
    // 2026-12-02T13:47:32+0000 info http: http.client.request.duration=0.003271 http.request.attempt=1 http.request.method=GET http.response.body.size=11 http.response.headers=["Content-Type": "text/plain; charset=utf-8", "Content-Length": "11"] http.response.status_code=200 request.id=e395058e8e6f8bde url.full=http://127.0.0.1:38607/hello/ [JewzruxinLogging] GET http://127.0.0.1:38607/hello/ → 200
    // Bridge example end
}

func docMetrics(_ sandbox: Sandbox) async throws {
    // Bridge example begin
    // MetricsSystem.bootstrap(yourBackend) once per process (swift-otel, swift-prometheus, …);
    // until then the metrics go nowhere.
    let session = HTTPSession()
    session.eventMonitors.append(MetricsMonitor())
    try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session)
    // http.client.request.duration{http.request.method=GET, http.response.status_code=200, server.address=127.0.0.1, …}
    // Bridge example end
}

func docTracing(_ sandbox: Sandbox) async throws {
    // Bridge example begin
    // InstrumentationSystem.bootstrap(yourTracer) once per process (swift-otel, …);
    // until then no span is recorded.
    let session = HTTPSession()
    TracingMonitor().install(on: session)
    try await withSpan("checkout") { _ in
        _ = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/inspect/", session: session)
    }
    // checkout
    // └─ GET (internal: the request, retries and waits included)
    //    └─ GET (client: the attempt; its context went out in the request's headers)
    // Bridge example end
}

func readmeMonitors(_ sandbox: Sandbox, _ print: PrintedLines) async throws {
    // Bridge example begin
    let session = HTTPSession()
    session.eventMonitors += [LoggingMonitor(logger: Logger(label: "http")), MetricsMonitor()]
    TracingMonitor().install(on: session)
    let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session)
    print(cycle.response.statusCode ?? 0) // 200: logged, measured and traced
    // Bridge example end
}

/// What an example prints, one line per call, as `print` would write it.
final class PrintedLines: Sendable {
    private let lines = Mutex<[String]>([])

    func callAsFunction(_ items: Any...) {
        let line = items.map { String(describing: $0) }.joined(separator: " ")
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}
