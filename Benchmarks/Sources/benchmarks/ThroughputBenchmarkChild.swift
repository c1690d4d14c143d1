import AsyncHTTPClient
import NIOSSL
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Synchronization
import CLibcurlDirect
#if canImport(Glibc)
import Glibc
#endif

// The child side of the throughput benchmark: one client, one mode, one process.

extension ThroughputBenchmark {
    /// `benchmarks --throughput-child <client> <in-flight> <base URL> [requests] [warm-up]`: makes
    /// the warm-up requests, then the timed ones, `in-flight` at a time, prints one line of JSON (a
    /// ``ThroughputResult``) and exits.
    static func runChild(_ arguments: [String]) -> Never {
        guard (3...5).contains(arguments.count), let client = Client(rawValue: arguments[0]),
              let inFlight = Int(arguments[1]), inFlight > 0
        else {
            let clients = Client.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: benchmarks --throughput-child \(clients) IN-FLIGHT http://server [requests] [warm-up]\n".utf8))
            exit(2)
        }
        let requests = arguments.count > 3 ? Int(arguments[3]) ?? defaultRequests : defaultRequests
        let warmUp = arguments.count > 4 ? Int(arguments[4]) ?? defaultWarmUp : defaultWarmUp
        var result = ThroughputResult(client: client.rawValue, inFlight: inFlight, requests: requests, warmUp: warmUp)
        let watchdogResult = result
        DispatchQueue.global().asyncAfter(deadline: .now() + childTimeout) {
            var timedOut = watchdogResult
            timedOut.error = "no result after \(childTimeout) s"
            timedOut.peakRSSKiB = ProcessMemory.peakKiB
            emit(timedOut)
            exit(3)
        }
        let base = arguments[2]
        let drive = client.makeDriver(base)
        result.startRSSKiB = ProcessMemory.currentKiB
        let warm = drive(warmUp, inFlight)
        if let error = warm.firstError { result.error = "warm-up: \(error)" }
        let before = CPUUsage.now()
        let start = DispatchTime.now().uptimeNanoseconds
        let timed = drive(requests, inFlight)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let used = CPUUsage.now() - before
        result.seconds = seconds
        result.userSeconds = used.user
        result.systemSeconds = used.system
        result.voluntarySwitches = used.voluntarySwitches
        result.involuntarySwitches = used.involuntarySwitches
        result.failures = timed.failures
        result.bodyBytes = timed.bytes
        if result.error == nil, let error = timed.firstError { result.error = error }
        result.peakRSSKiB = ProcessMemory.peakKiB
        result.endRSSKiB = ProcessMemory.currentKiB
        result.threads = ProcessMemory.statusField("Threads") ?? 0
        emit(result)
        exit(0)
    }

    static func emit(_ result: ThroughputResult) {
        let data = (try? JSONEncoder().encode(result)) ?? Data("{\"error\":\"unencodable\"}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    // MARK: Lanes

    /// Makes one request and calls `finished` once with the body bytes it got (its check), or an
    /// error; may call it on any thread.
    typealias Runner = @Sendable (_ finished: @escaping @Sendable (_ bytes: Int, _ error: String?) -> Void) -> Void

    /// Sends `total` requests, `inFlight` at a time, and tells what they got; called for the
    /// warm-up, then for the timed run.
    typealias Driver = (_ total: Int, _ inFlight: Int) -> Tally

    /// What a series of requests got.
    struct Tally {
        var failures = 0
        var bytes = 0
        var firstError: String?
    }

    /// `total` requests, `inFlight` at a time: each lane sends its next request from the
    /// completion of its previous one, where the client delivers it (a callback on its queue, or
    /// the Swift task that awaited it), so no thread of the benchmark's own stands in between.
    static func drive(_ run: @escaping Runner, total: Int, inFlight: Int) -> Tally {
        guard total > 0 else { return Tally() }
        let lanes = Lanes(total: total, run: run)
        for _ in 0..<min(inFlight, total) { lanes.next() }
        lanes.done.wait()
        return lanes.tally.withLock { $0 }
    }

    final class Lanes: Sendable {
        let total: Int
        let run: Runner
        let claimed = Atomic<Int>(0)
        let completed = Atomic<Int>(0)
        let tally = Mutex(Tally())
        let done = DispatchSemaphore(value: 0)

        init(total: Int, run: @escaping Runner) {
            self.total = total
            self.run = run
        }

        /// Sends the next request, if any is left.
        func next() {
            guard claimed.wrappingAdd(1, ordering: .relaxed).newValue <= total else { return }
            run { [self] bytes, error in
                record(bytes, error)
                next()
            }
        }

        func record(_ bytes: Int, _ error: String?) {
            tally.withLock { t in
                t.bytes += bytes
                if let error {
                    t.failures += 1
                    if t.firstError == nil { t.firstError = error }
                }
            }
            if completed.wrappingAdd(1, ordering: .relaxed).newValue == total { done.signal() }
        }
    }

    // MARK: Clients

    /// A serial queue for handlers, like an app's own (not main: nothing services it here).
    static func serialQueue(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// The configuration of every URLSession-based client: the default one.
    static var configuration: URLSessionConfiguration { .default }

    /// `URLSession.dataTask(with:completionHandler:)`, handler on a serial queue; with `parses`,
    /// the body parsed with `JSON(data:)` in the handler.
    static func urlSessionRunner(parses: Bool) -> @Sendable (String) -> Runner {
        { base in
            let url = URL(string: base + path)!
            let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: serialQueue("benchmarks.urlsession"))
            return { finished in
                session.dataTask(with: url) { data, response, error in
                    if let error { return finished(0, String(describing: error)) }
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    guard status == 200, let data else { return finished(0, "status \(status)") }
                    if parses {
                        guard let json = try? JSON(data: data), json["id"]?.intValue == Model.expected.id else {
                            return finished(0, "not the expected JSON")
                        }
                    }
                    finished(data.count, nil)
                }.resume()
            }
        }
    }

    /// A data task whose session delegate collects the body (``CollectingDelegate``).
    @Sendable static func urlSessionDelegateRunner(base: String) -> Runner {
        let url = URL(string: base + path)!
        let delegate = CollectingDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: serialQueue("benchmarks.urlsession"))
        return { finished in
            let task = session.dataTask(with: url)
            delegate.register(task, finished)
            task.resume()
        }
    }

    /// `HTTPCycle.get(_:session:completionHandler:)` on the session `session()` makes.
    static func cycleRunner(session makeSession: @escaping @Sendable () -> HTTPSession) -> @Sendable (String) -> Runner {
        { base in
            let urlString = base + path
            let session = makeSession()
            return { finished in
                do {
                    try HTTPCycle.get(urlString, session: session) { cycle, error in
                        if let error { return finished(0, String(describing: error)) }
                        finished(cycle.response.data.count, nil)
                    }
                } catch {
                    finished(0, String(describing: error))
                }
            }
        }
    }

    /// `try await HTTPCycle.get(_:session:)`, a detached Swift task per request, as an async caller
    /// has.
    static func asyncCycleRunner(session makeSession: @escaping @Sendable () -> HTTPSession) -> @Sendable (String) -> Runner {
        { base in
            let urlString = base + path
            let session = makeSession()
            return { finished in
                Task.detached {
                    do {
                        let cycle = try await HTTPCycle.get(urlString, session: session)
                        finished(cycle.response.data.count, nil)
                    } catch {
                        finished(0, String(describing: error))
                    }
                }
            }
        }
    }

    /// The ways of reading a `WebService` response.
    enum ServiceForm: Sendable {
        /// `.response { response, data in }`
        case response
        /// `.responseJSON { json in }`
        case json
        /// `.responseJSON(Model.self) { model in }`
        case decodable
    }

    /// `WebService.GET(path)` read as `form`, on the session `session()` makes.
    static func serviceRunner(_ form: ServiceForm, session makeSession: @escaping @Sendable () -> HTTPSession) -> @Sendable (String) -> Runner {
        { base in
            let service = WebService(baseURLString: base, session: makeSession())
            switch form {
            case .response:
                return { finished in
                    service.GET(path)
                        .response { _, data in finished(data.count, nil) }
                        .responseError { error in finished(0, String(describing: error)) }
                }
            case .json:
                return { finished in
                    service.GET(path)
                        .responseJSON { json in
                            finished(json["id"]?.intValue == Model.expected.id ? Model.body.count : 0, nil)
                        }
                        .responseError { error in finished(0, String(describing: error)) }
                }
            case .decodable:
                return { finished in
                    service.GET(path)
                        .responseJSON(Model.self) { model in
                            finished(model == Model.expected ? Model.body.count : 0, nil)
                        }
                        .responseError { error in finished(0, String(describing: error)) }
                }
            }
        }
    }

    /// `try await WebService.GET(path).json()` in a Swift task per request, as AsyncHTTPClient's
    /// runner awaits its response, on the session `session()` makes.
    static func asyncServiceRunner(session makeSession: @escaping @Sendable () -> HTTPSession) -> @Sendable (String) -> Runner {
        { base in
            let service = WebService(baseURLString: base, session: makeSession())
            return { finished in
                Task.detached {
                    do {
                        let json = try await service.GET(path).json()
                        finished(json["id"]?.intValue == Model.expected.id ? Model.body.count : 0, nil)
                    } catch {
                        finished(0, String(describing: error))
                    }
                }
            }
        }
    }

    /// AsyncHTTPClient: `HTTPClient.shared.execute(_:timeout:)`, then the body collected.
    /// `HTTPClient.shared`, or a client trusting ``trustedCAFile`` (HTTP/2 where the server offers it,
    /// as by default).
    static let asyncHTTPClient: HTTPClient = {
        guard let file = trustedCAFile else { return HTTPClient.shared }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(file)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
    }()

    @Sendable static func asyncHTTPClientRunner(base: String) -> Runner {
        let urlString = base + path
        let client = asyncHTTPClient
        return { finished in
            // A Swift task per request, as an async caller has; detached: top-level code is
            // on the main actor, which nothing services here.
            Task.detached {
                do {
                    var request = HTTPClientRequest(url: urlString)
                    request.method = .GET
                    let response = try await client.execute(request, timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 1 << 20)
                    guard response.status == .ok else { return finished(0, "status \(response.status.code)") }
                    finished(body.readableBytes, nil)
                } catch {
                    finished(0, String(describing: error))
                }
            }
        }
    }

    /// ``Client/libcurlDirect``: libcurl's multi interface driven from C on the calling thread
    /// (`CLibcurlDirect`), handles and connections kept from the warm-up to the timed run.
    @Sendable static func libcurlDirectDriver(base: String) -> Driver {
        let url = base + path
        let maximumConnections = HTTPSession.Configuration(configuration).httpMaximumConnectionsPerHost
        var state: UnsafeMutableRawPointer?
        return { total, inFlight in
            var tally = libcurl_direct_tally()
            let code = libcurl_direct_run(&state, url, trustedCAFile, Int32(inFlight), total, maximumConnections > 0 ? maximumConnections : 6, &tally)
            let error = withUnsafeBytes(of: tally.first_error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if code != 0 { return Tally(failures: total, bytes: 0, firstError: error) }
            return Tally(failures: tally.failures, bytes: Int(tally.body_bytes), firstError: error.isEmpty ? nil : error)
        }
    }

    /// The library's session as an app would make it, with handlers on a serial queue of its own.
    @Sendable static func librarySession() -> HTTPSession {
        HTTPSession(configuration: libraryConfiguration, delegateQueue: serialQueue("benchmarks.delegate"))
    }

    /// The same on the native transport.
    @Sendable static func nativeSession() -> HTTPSession {
        HTTPSession(configuration: libraryConfiguration, delegateQueue: serialQueue("benchmarks.delegate"), transport: .native)
    }

    /// The same on the curl transport.
    @Sendable static func curlSession() -> HTTPSession {
        HTTPSession(configuration: libraryConfiguration, delegateQueue: serialQueue("benchmarks.delegate"), transport: .curl)
    }

    /// The curl session with one loop thread for all its transfers.
    @Sendable static func curlOneLoopSession() -> HTTPSession {
        var options = CurlTransport.Options()
        options.maximumLoops = 1
        return HTTPSession(configuration: libraryConfiguration, delegateQueue: serialQueue("benchmarks.delegate"), transport: .curl(options))
    }

    /// `session` with its handlers run at `place`: the delivery modes side by side.
    @Sendable static func delivering(_ place: @escaping @Sendable () -> HandlerQueue, _ session: @escaping @Sendable () -> HTTPSession) -> @Sendable () -> HTTPSession {
        {
            let made = session()
            made.handlerQueue = place()
            return made
        }
    }

    /// A serial dispatch queue for the handlers of the `-dispatch` rows.
    @Sendable static func dispatchHandlers() -> HandlerQueue {
        .queue(DispatchQueue(label: "benchmarks.handlers"))
    }

    /// The same on the URLSession transport.
    /// (Without TLS settings, which URLSession can't apply: it trusts the test CA through the system
    /// bundle of the child's mount namespace, see `launchChild`.)
    @Sendable static func urlSessionTransportSession() -> HTTPSession {
        HTTPSession(configuration: configuration, delegateQueue: serialQueue("benchmarks.delegate"), transport: .urlSession)
    }

    /// The CA certificate of an https server the children measure (`BENCH_CA_FILE`): the library's
    /// sessions and AsyncHTTPClient trust it through their settings; URLSession can't be told (L12)
    /// and finds it in the system bundle of the child's own mount namespace (`launchChild`).
    static var trustedCAFile: String? { ProcessInfo.processInfo.environment["BENCH_CA_FILE"] }

    /// ``configuration`` for the library, trusting ``trustedCAFile``.
    static var libraryConfiguration: HTTPSession.Configuration {
        var settings = HTTPSession.Configuration(configuration)
        if let file = trustedCAFile {
            settings.tls.additionalTrustedCertificates = [.file(URL(fileURLWithPath: file))]
        }
        return settings
    }
}

/// A session delegate that collects each task's body and reports it when the task completes, as
/// the library's transport does (its callbacks routed by task identifier).
final class CollectingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Entry {
        var data = Data()
        let finished: @Sendable (Int, String?) -> Void
    }

    private let entries = Mutex([Int: Entry]())

    func register(_ task: URLSessionTask, _ finished: @escaping @Sendable (Int, String?) -> Void) {
        entries.withLock { $0[task.taskIdentifier] = Entry(finished: finished) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        entries.withLock { $0[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error { return entry.finished(0, String(describing: error)) }
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        entry.finished(status == 200 ? entry.data.count : 0, status == 200 ? nil : "status \(status)")
    }
}

/// The body of `/small.json`, as a Decodable model.
struct Model: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var active: Bool
    var score: Double
    var tags: [String]

    static let expected = Model(id: 4_217, name: "Jewzruxin throughput", active: true, score: 98.5, tags: ["swift", "http", "loopback"])
    /// About 100 bytes of JSON.
    static let body = Data(#"{"id":4217,"name":"Jewzruxin throughput","active":true,"score":98.5,"tags":["swift","http","loopback"]}"#.utf8)
}

/// getrusage(RUSAGE_SELF): CPU time and context switches of the whole process.
struct CPUUsage {
    var user: Double
    var system: Double
    var voluntarySwitches: Int
    var involuntarySwitches: Int

    static func now() -> CPUUsage {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return CPUUsage(
            user: seconds(usage.ru_utime), system: seconds(usage.ru_stime),
            voluntarySwitches: usage.ru_nvcsw, involuntarySwitches: usage.ru_nivcsw)
    }

    static func - (lhs: CPUUsage, rhs: CPUUsage) -> CPUUsage {
        CPUUsage(
            user: lhs.user - rhs.user, system: lhs.system - rhs.system,
            voluntarySwitches: lhs.voluntarySwitches - rhs.voluntarySwitches,
            involuntarySwitches: lhs.involuntarySwitches - rhs.involuntarySwitches)
    }
}
