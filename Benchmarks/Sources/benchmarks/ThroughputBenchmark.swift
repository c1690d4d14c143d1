import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinSandbox
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Small GETs, one at a time and 32 in flight, through each client against a raw URLSession data
/// task with a completion handler (the baseline, measured in the same run), from the sandbox and
/// from nginx when it is installed.
///
/// The sandbox runs in a process of its own (`benchmarks --serve`), so a client's CPU time and peak
/// RSS are its own; every run of every client is a fresh child process (`benchmarks
/// --throughput-child`, see ``ThroughputBenchmark/runChild(_:)``) that warms up, times
/// ``requests`` requests and prints one line of JSON, a ``ThroughputResult``. Runs go round by
/// round, every client once per mode, starting one client later each round, so a slow spell of the
/// machine hits all clients alike. The clients are the descriptors of ``Client/allCases``: a row is
/// one more descriptor there.
enum ThroughputBenchmark {
    static let path = "/small.json"
    static var defaultRequests: Int { Settings.quick ? 1_000 : 5_000 }
    static var defaultWarmUp: Int { Settings.quick ? 100 : 200 }
    /// Rounds of every client and mode: the machine is shared and noisy.
    static var defaultRounds: Int { Settings.quick ? 1 : 5 }
    /// Rounds against nginx, which runs the main clients only (at most this many rounds).
    static var nginxRounds: Int { Settings.quick ? 1 : 3 }
    /// Requests in flight in each mode.
    static let modes = [1, 32]
    /// A child that hasn't finished after this long reports a failure and exits.
    static let childTimeout: TimeInterval = 300
    /// Issue 6's acceptance: the throughput at least, the CPU time per request and peak RSS at most,
    /// this many times the baseline's.
    static let minimumRateRatio = 0.97
    static let maximumCPURatio = 1.05
    static let maximumRSSRatio = 1.10

    /// What a child process measures: a client, described by its name on the command line, its
    /// label, how its row is judged, and how it makes a request.
    ///
    /// To add a row, add a descriptor to ``allCases``; a library client on another transport is its
    /// session factory, e.g.
    ///
    ///     static let serviceJSONNative = Client(
    ///         "ws-json-native", "WebService.GET.responseJSON on native transport", .library, main: true,
    ///         makeRunner: serviceRunner(.json, session: {
    ///             HTTPSession(configuration: configuration, delegateQueue: serialQueue("benchmarks.delegate"), transport: NativeTransport())
    ///         }))
    struct Client: Hashable, Codable, Sendable, CustomStringConvertible {
        /// Its name on a child's command line and in the JSON file.
        let rawValue: String
        let label: String
        let role: Role
        /// One of the issue's rows: in the summary table, and run against nginx too.
        let main: Bool
        /// Makes the function that sends a series of requests, from the server's base URL (in the child).
        let makeDriver: @Sendable (_ base: String) -> Driver

        init(_ rawValue: String, _ label: String, _ role: Role, main: Bool, makeDriver: @escaping @Sendable (_ base: String) -> Driver) {
            self.rawValue = rawValue
            self.label = label
            self.role = role
            self.main = main
            self.makeDriver = makeDriver
        }

        /// A client whose requests are sent one by one by `makeRunner`'s function, each lane's next
        /// from the completion of its previous one (``drive(_:total:inFlight:)``).
        init(_ rawValue: String, _ label: String, _ role: Role, main: Bool, makeRunner: @escaping @Sendable (_ base: String) -> Runner) {
            self.init(rawValue, label, role, main: main) { base in
                let run = makeRunner(base)
                return { total, inFlight in ThroughputBenchmark.drive(run, total: total, inFlight: inFlight) }
            }
        }

        /// The descriptor of that name.
        init?(rawValue: String) {
            guard let client = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = client
        }

        /// Every client, in the order of the tables.
        static let allCases: [Client] = [
            urlsession, urlsessionJSON, urlsessionDelegate, cycle, serviceResponse, serviceJSON, serviceDecodable, asyncHTTPClient,
            cycleNative, serviceJSONNative, serviceJSONAsyncNative, cycleAsyncNative, cycleCurl, serviceJSONCurl, serviceJSONAsyncCurl,
            cycleAsyncCurl,
            serviceJSONURLSession, libcurlDirect,
            serviceJSONNativeInline, serviceJSONNativeDispatch, serviceJSONCurlInline, serviceJSONCurlDispatch,
            serviceJSONCurlOneLoop,
        ]

        /// The clients measured over https: native has no TLS (its session sends https to URLSession).
        static let https: [Client] = [
            urlsession, serviceJSONURLSession, cycleCurl, serviceJSONCurl, serviceJSONAsyncCurl, cycleAsyncCurl, asyncHTTPClient, libcurlDirect,
            serviceJSONCurlInline, serviceJSONCurlDispatch, serviceJSONCurlOneLoop,
        ]

        /// `URLSession.dataTask(with:completionHandler:)`, handler on a serial queue: the baseline.
        static let urlsession = Client("urlsession", "URLSession dataTask (baseline)", .baseline, main: true,
                                       makeRunner: urlSessionRunner(parses: false))
        /// The same, parsing the body with `JSON(data:)` in the handler: the parse alone.
        static let urlsessionJSON = Client("urlsession-json", "URLSession dataTask + JSON(data:)", .reference, main: false,
                                           makeRunner: urlSessionRunner(parses: true))
        /// A data task whose session delegate collects the body and completes it (response, data
        /// and completion each a callback on the delegate queue): the transport the library uses.
        static let urlsessionDelegate = Client("urlsession-delegate", "URLSession data delegate", .reference, main: false,
                                               makeRunner: urlSessionDelegateRunner)
        /// `HTTPCycle.get(_:session:completionHandler:)`.
        static let cycle = Client("cycle", "HTTPCycle.get (callback)", .library, main: true,
                                  makeRunner: cycleRunner(session: librarySession))
        /// `WebService.GET(path).response { response, data in }`.
        static let serviceResponse = Client("ws-response", "WebService.GET.response", .library, main: true,
                                            makeRunner: serviceRunner(.response, session: librarySession))
        /// `WebService.GET(path).responseJSON { json in }`: the acceptance row.
        static let serviceJSON = Client("ws-json", "WebService.GET.responseJSON", .acceptance, main: true,
                                        makeRunner: serviceRunner(.json, session: librarySession))
        /// `WebService.GET(path).responseJSON(Model.self) { model in }`: decoding to a Decodable.
        static let serviceDecodable = Client("ws-decodable", "WebService.GET.responseJSON(Model.self)", .library, main: true,
                                             makeRunner: serviceRunner(.decodable, session: librarySession))
        /// AsyncHTTPClient: `HTTPClient.shared.execute(_:timeout:)`, then the body collected.
        static let asyncHTTPClient = Client("ahc", "AsyncHTTPClient execute + collect", .reference, main: true,
                                            makeRunner: asyncHTTPClientRunner)

        /// `HTTPCycle.get` on a session with the native transport.
        static let cycleNative = Client("cycle-native", "HTTPCycle.get, native transport", .library, main: true,
                                        makeRunner: cycleRunner(session: nativeSession))
        /// `WebService.GET(path).responseJSON` on the native transport: issue 10's row, judged
        /// against AsyncHTTPClient.
        static let serviceJSONNative = Client("ws-json-native", "WebService.GET.responseJSON, native", .library, main: true,
                                              makeRunner: serviceRunner(.json, session: nativeSession))

        /// `HTTPCycle.get` on a session with the curl transport.
        static let cycleCurl = Client("cycle-curl", "HTTPCycle.get, curl transport", .library, main: true,
                                      makeRunner: cycleRunner(session: curlSession))
        /// `WebService.GET(path).responseJSON` on the curl transport.
        static let serviceJSONCurl = Client("ws-json-curl", "WebService.GET.responseJSON, curl", .library, main: true,
                                            makeRunner: serviceRunner(.json, session: curlSession))

        /// `try await WebService.GET(path).json()` on the native transport, a Swift task per request.
        static let serviceJSONAsyncNative = Client("ws-json-async-native", "WebService.GET.json() async, native", .library, main: true,
                                                   makeRunner: asyncServiceRunner(session: nativeSession))
        /// `try await WebService.GET(path).json()` on the curl transport, a Swift task per request:
        /// awaited as AsyncHTTPClient's rows are.
        static let serviceJSONAsyncCurl = Client("ws-json-async-curl", "WebService.GET.json() async, curl", .library, main: true,
                                                 makeRunner: asyncServiceRunner(session: curlSession))

        /// `try await HTTPCycle.get(_:session:)` on the native transport, a Swift task per request.
        static let cycleAsyncNative = Client("cycle-async-native", "HTTPCycle.get async, native", .library, main: true,
                                             makeRunner: asyncCycleRunner(session: nativeSession))
        /// `try await HTTPCycle.get(_:session:)` on the curl transport, a Swift task per request.
        static let cycleAsyncCurl = Client("cycle-async-curl", "HTTPCycle.get async, curl", .library, main: true,
                                           makeRunner: asyncCycleRunner(session: curlSession))

        /// `WebService.GET(path).responseJSON` on the URLSession transport.
        static let serviceJSONURLSession = Client("ws-json-urlsession", "WebService.GET.responseJSON, URLSession", .library, main: true,
                                                  makeRunner: serviceRunner(.json, session: urlSessionTransportSession))

        /// `WebService.GET(path).responseJSON` on the native transport with the session's handlers
        /// inline (`session.handlerQueue = .inline`): no hop after the response.
        static let serviceJSONNativeInline = Client(
            "ws-json-native-inline", "WebService.GET.responseJSON, native, handlers inline", .library, main: true,
            makeRunner: serviceRunner(.json, session: delivering({ .inline }, nativeSession)))
        /// The same with the handlers on a serial `DispatchQueue` rather than the delegate
        /// `OperationQueue`.
        static let serviceJSONNativeDispatch = Client(
            "ws-json-native-dispatch", "WebService.GET.responseJSON, native, handlers on a DispatchQueue", .library, main: true,
            makeRunner: serviceRunner(.json, session: delivering(dispatchHandlers, nativeSession)))
        /// `WebService.GET(path).responseJSON` on the curl transport with the handlers inline.
        static let serviceJSONCurlInline = Client(
            "ws-json-curl-inline", "WebService.GET.responseJSON, curl, handlers inline", .library, main: true,
            makeRunner: serviceRunner(.json, session: delivering({ .inline }, curlSession)))
        /// The same with the handlers on a serial `DispatchQueue`.
        static let serviceJSONCurlDispatch = Client(
            "ws-json-curl-dispatch", "WebService.GET.responseJSON, curl, handlers on a DispatchQueue", .library, main: true,
            makeRunner: serviceRunner(.json, session: delivering(dispatchHandlers, curlSession)))

        /// `WebService.GET(path).responseJSON` on the curl transport held to one loop thread
        /// (`maximumLoops = 1`), as it was before transfers spread over loops: the structural
        /// change measured in the same run.
        static let serviceJSONCurlOneLoop = Client(
            "ws-json-curl-1loop", "WebService.GET.responseJSON, curl, one loop", .library, main: true,
            makeRunner: serviceRunner(.json, session: curlOneLoopSession))

        /// libcurl called directly from C on one thread, its multi interface, the same connection
        /// limit and HTTP versions as the curl transport: the floor under the curl rows.
        static let libcurlDirect = Client("libcurl-direct", "libcurl multi, from C (floor)", .reference, main: true,
                                          makeDriver: libcurlDirectDriver)

        static func == (lhs: Client, rhs: Client) -> Bool { lhs.rawValue == rhs.rawValue }
        func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        var description: String { rawValue }

        init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard let client = Client(rawValue: name) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no client \(name)"))
            }
            self = client
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// A library row judged against a peer's run of the same round: throughput at least
    /// `rates[inFlight]` times the peer's, CPU per request at most `cpu` times (`nil`: not judged).
    /// With no `rates`, the comparison is for information: no verdict.
    struct PeerTarget {
        var client: Client
        var peer: Client = .asyncHTTPClient
        var issue: String
        var rates: [Int: Double]
        var cpu: Double?
        /// Whether the verdict sets the exit status (when the run's do).
        var counts = true
    }

    /// Issue 10's targets for `WebService.GET.responseJSON` on the native transport against
    /// AsyncHTTPClient (≥ 2× sequential, ≥ 1.3× at 32 in flight, CPU ≤ 0.5×); issue 19's for the
    /// curl transport over https (≥ 1.8×, ≥ 1.3×, CPU ≤ 0.5×) and over http against the native
    /// transport (within 10%).
    static let nativeTarget = PeerTarget(client: .serviceJSONNative, issue: "issue 10", rates: [1: 2.0, 32: 1.3], cpu: 0.5)
    static let curlHTTPSTarget = PeerTarget(client: .serviceJSONCurl, issue: "issue 19", rates: [1: 1.8, 32: 1.3], cpu: 0.5)
    static let curlHTTPTarget = PeerTarget(
        client: .serviceJSONCurl, peer: .serviceJSONNative, issue: "issue 19", rates: [1: 0.9, 32: 0.9], cpu: nil, counts: false)
    /// What the engine and the transport add to libcurl itself, and where libcurl alone stands
    /// against the native transport and AsyncHTTPClient: for information.
    static let curlFloorComparisons = [
        PeerTarget(client: .serviceJSONCurl, peer: .libcurlDirect, issue: "the engine's cost", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .libcurlDirect, peer: .serviceJSONNative, issue: "the floor", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .libcurlDirect, peer: .asyncHTTPClient, issue: "the floor", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONAsyncCurl, peer: .asyncHTTPClient, issue: "both awaited", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONAsyncNative, peer: .asyncHTTPClient, issue: "both awaited", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .cycleAsyncCurl, peer: .asyncHTTPClient, issue: "both awaited", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .cycleAsyncNative, peer: .asyncHTTPClient, issue: "both awaited", rates: [:], cpu: nil, counts: false),
    ]

    /// The delivery modes side by side against AsyncHTTPClient: issue 20's target for
    /// `WebService.GET.responseJSON` on the native transport over http (≥ 2× sequential, ≥ 3× at 32
    /// in flight) judged on the inline row, the others for information; and the curl rows.
    static let deliveryTargets = [
        PeerTarget(client: .serviceJSONNativeInline, issue: "issue 20, handlers inline", rates: [1: 2.0, 32: 3.0], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONNativeDispatch, issue: "issue 20, handlers on a DispatchQueue", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONNative, issue: "issue 20, handlers on the delegate queue", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONCurlInline, issue: "delivery, handlers inline", rates: [:], cpu: nil, counts: false),
        PeerTarget(client: .serviceJSONCurlDispatch, issue: "delivery, handlers on a DispatchQueue", rates: [:], cpu: nil, counts: false),
    ]

    /// Prints and records a comparison of `target`'s client against its peer, round by round.
    static func report(_ target: PeerTarget, runs: [ThroughputResult], server: String, counted: Bool) {
        print("")
        print("\(target.client.label) against \(target.peer.label) (\(target.issue)), \(server): medians of each round's ratio")
        for inFlight in modes {
            var rates: [Double] = [], cpus: [Double] = []
            for row in runs where row.inFlight == inFlight && row.client == target.client.rawValue {
                guard let peer = runs.first(where: {
                    $0.inFlight == inFlight && $0.client == target.peer.rawValue && $0.round == row.round
                }), let rate = row.requestsPerSecond, let peerRate = peer.requestsPerSecond else { continue }
                rates.append(rate / peerRate)
                cpus.append(row.cpuSecondsPer1000 / peer.cpuSecondsPer1000)
            }
            guard let rate = ContentBenchmark.median(rates), let cpu = ContentBenchmark.median(cpus) else { continue }
            let mode = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            guard !target.rates.isEmpty else {
                print(String(format: "  %@: req/s %.2fx, CPU %.2fx", mode, rate, cpu))
                Results.shared.add(SummaryEntry(
                    section: "throughput", name: "\(target.client.label) vs \(target.peer.label), \(mode), \(server)",
                    value: String(format: "%.2fx req/s · %.2fx CPU", rate, cpu), ratio: String(format: "%.2fx · %.2fx", rate, cpu),
                    baseline: target.peer.label, target: nil, met: nil, note: nil, counts: false))
                continue
            }
            let rateTarget = target.rates[inFlight] ?? 1
            let met = rate >= rateTarget && target.cpu.map { cpu <= $0 } ?? true
            let cpuTarget = target.cpu.map { String(format: " (target ≤ %.1fx)", $0) } ?? ""
            print(String(format: "  %@: req/s %.2fx (target ≥ %.1fx), CPU %.2fx%@: %@",
                         mode, rate, rateTarget, cpu, cpuTarget, met ? "PASS" : "FAIL"))
            Results.shared.add(SummaryEntry(
                section: "throughput", name: "\(target.client.label) vs \(target.peer.label), \(mode), \(server)",
                value: String(format: "%.2fx req/s · %.2fx CPU", rate, cpu), ratio: String(format: "%.2fx · %.2fx", rate, cpu),
                baseline: target.peer.label,
                target: String(format: "≥ %.1fx", rateTarget) + (target.cpu.map { String(format: " · ≤ %.1fx", $0) } ?? ""), met: met,
                note: nil, counts: counted && target.counts))
        }
    }

    /// How a client's row is judged.
    enum Role: String, Codable, Sendable {
        /// Its numbers are the reference.
        case baseline
        /// Issue 6's acceptance row: its verdict sets the exit status.
        case acceptance
        /// The library's other entry points: judged against the same targets, for information.
        case library
        /// Other clients, for comparison: no target.
        case reference
    }

    /// The summary rows of each server measured in this run (for the `sandbox` section's summary).
    static let summaries = Mutex<[String: [SummaryRow]]>([:])

    // MARK: Table

    /// Runs every client in every mode `rounds` times against the sandbox, then the main clients
    /// against nginx when it is installed, and prints the tables; returns whether the acceptance
    /// rows met their targets against the sandbox (nginx's verdicts are for information).
    static func run(rounds: Int, requests: Int = defaultRequests, warmUp: Int = defaultWarmUp) -> Bool {
        let passed: Bool
        do {
            let server = try SandboxProcess()
            var report = measure(
                server: "sandbox", baseURL: server.baseURL, counts: server.counts, clients: Client.allCases, rounds: rounds,
                requests: requests, warmUp: warmUp, counted: true)
            let served = server.stop()
            report.serverPeakRSSKiB = served?.peakRSSKiB
            if let served {
                print(String(format: "Sandbox process: peak RSS %.1f MB.", Double(served.peakRSSKiB) * 1024 / 1e6))
            }
            Results.shared.record("throughput", report)
            passed = report.passed
        } catch {
            print("the sandbox process didn't start: \(error)")
            return false
        }
        guard let nginx = ExternalTools.nginx else {
            let note = "skipped: nginx not installed (\(ExternalTools.installHint))"
            print("")
            print("Throughput against nginx: " + note)
            Results.shared.note("throughput against nginx " + note)
            return passed
        }
        do {
            let server = try NginxServer(executable: nginx)
            defer { server.stop() }
            var report = measure(
                server: "nginx", baseURL: server.baseURL, counts: nil, clients: Client.allCases.filter(\.main),
                rounds: min(rounds, nginxRounds), requests: requests, warmUp: warmUp, counted: false)
            report.serverVersion = server.version
            Results.shared.record("throughput", report)
        } catch {
            print("nginx didn't start: \(error)")
            Results.shared.note("throughput against nginx: nginx didn't start: \(error)")
        }
        do {
            let server = try NginxServer(executable: nginx, tls: true)
            defer { server.stop() }
            let trust = server.certificateFile?.path ?? ""
            var environment = ["BENCH_CA_FILE": trust]
            let bundle = server.directory.appendingPathComponent("bundle.pem")
            if getuid() == 0, let system = FileManager.default.contents(atPath: systemBundle),
               let certificate = server.certificateFile.flatMap({ FileManager.default.contents(atPath: $0.path) }),
               (try? (system + Data("\n".utf8) + certificate).write(to: bundle)) != nil {
                environment["BENCH_SYSTEM_BUNDLE"] = bundle.path
            } else {
                print("")
                print("note: not root, so URLSession can't be made to trust the test certificate (L12): its https rows fail.")
            }
            var report = measure(
                server: "nginx https", baseURL: server.baseURL, counts: nil, clients: Client.https,
                rounds: min(rounds, nginxRounds), requests: requests, warmUp: warmUp, counted: false, environment: environment)
            report.serverVersion = server.version
            Results.shared.record("throughput", report)
        } catch {
            print("nginx with TLS didn't start: \(error)")
            Results.shared.note("throughput against nginx over https: nginx didn't start: \(error)")
        }
        return passed
    }

    /// Measures `clients` against one server and prints its tables.
    ///
    /// - Parameters:
    ///   - counts: Reads the connections the server accepted and the bodies it served (the sandbox).
    ///   - counted: Whether the acceptance row's verdict counts (sets the exit status).
    static func measure(
        server: String, baseURL: String, counts: (() -> (connections: Int, requests: Int)?)?, clients: [Client], rounds: Int,
        requests: Int, warmUp: Int, counted: Bool, environment: [String: String] = [:]
    ) -> Report {
        print("")
        print("Throughput against \(server): \(requests) GETs of \(path) (\(Model.body.count) B of JSON) from another process, after \(warmUp) to warm up;")
        print("one fresh process per run, \(rounds) round(s) of every client and mode, interleaved; MB = 10^6 bytes")
        var runs: [ThroughputResult] = []
        var failures: [String] = []
        for round in 1...rounds {
            for inFlight in modes {
                // One client later each round, so that no client always runs first.
                let order = clients.indices.map { clients[($0 + round - 1) % clients.count] }
                for client in order {
                    let before = counts?()
                    let load = loadAverage()
                    do {
                        var result = try launchChild([
                            "--throughput-child", client.rawValue, String(inFlight), baseURL, String(requests), String(warmUp),
                        ], environment: environment)
                        result.round = round
                        result.loadAverage = load
                        if let before, let after = counts?() {
                            result.connections = after.connections - before.connections - 1
                            result.served = after.requests - before.requests
                        }
                        runs.append(result)
                    } catch {
                        failures.append("  \(client.label), \(inFlight) in flight, round \(round): \(error)")
                    }
                }
            }
        }

        var rows: [SummaryRow] = []
        for inFlight in modes {
            let ofMode = runs.filter { $0.inFlight == inFlight }
            let base = ofMode.filter { $0.client == Client.urlsession.rawValue }
            for client in clients {
                rows.append(SummaryRow(client: client, inFlight: inFlight, runs: ofMode.filter { $0.client == client.rawValue }, base: base))
            }
        }
        var allPassed = failures.isEmpty
        for inFlight in modes {
            print("")
            print((inFlight == 1 ? "Sequential (1 in flight)" : "\(inFlight) in flight") + ", \(server)")
            print(
                "client".padded(42) + "req/s".leftPadded(8) + "vs raw".leftPadded(8) + "CPU s/1k".leftPadded(10)
                    + "vs raw".leftPadded(8) + "RSS MB".leftPadded(8) + "vs raw".leftPadded(8) + "  " + "result")
            for row in rows where row.inFlight == inFlight && row.runs > 0 {
                if row.client.role == .acceptance, row.passed != true { allPassed = false }
                print(
                    ("  " + row.client.label).padded(42)
                        + format(row.requestsPerSecond, "%.0f").leftPadded(8) + format(row.rateRatio, "%.2fx").leftPadded(8)
                        + format(row.cpuSecondsPer1000, "%.3f").leftPadded(10) + format(row.cpuRatio, "%.2fx").leftPadded(8)
                        + format(row.peakRSSMB, "%.1f").leftPadded(8) + format(row.rssRatio, "%.2fx").leftPadded(8)
                        + "  " + row.verdictText + (counted || row.client.role != .acceptance ? "" : " (info)"))
            }
        }
        print("")
        print("req/s, CPU and RSS are medians over the rounds; \"vs raw\": the median over the rounds of the ratio to the baseline's")
        print("run of the same round and mode (runs a few seconds apart, so a slow spell of the machine weighs on both alike).")
        print("CPU: user + system time of the child (getrusage) around the timed requests, per 1,000 requests.")
        print("RSS: the child's peak (VmHWM), warm-up included; the server is in another process.")
        print(
            "Targets (issue 6), for WebService.GET.responseJSON: req/s ≥ \(minimumRateRatio)x, CPU ≤ \(maximumCPURatio)x, "
                + "peak RSS ≤ \(maximumRSSRatio)x raw URLSession; the other library rows are judged the same way for information"
                + (counted ? "." : "; against \(server), all of them are."))
        print("Runs (req/s and its ratio to the baseline's run of the round; CPU ms/1k; context switches per request, voluntary +")
        print("involuntary; connections opened; threads at the end; the 1-minute load average of the machine when the run began):")
        for inFlight in modes {
            for client in clients {
                let ofClient = runs.filter { $0.inFlight == inFlight && $0.client == client.rawValue }
                guard !ofClient.isEmpty else { continue }
                print("  \(client.label), \(inFlight) in flight:")
                for r in ofClient {
                    let base = runs.first { $0.inFlight == inFlight && $0.client == Client.urlsession.rawValue && $0.round == r.round }
                    print(describe(r, baseline: base))
                }
            }
        }
        for failure in failures { print("child failed: \(failure)") }

        let machine = Machine.current
        print("Machine: \(machine.processors) processors (\(machine.cpu ?? "?")), Linux \(machine.kernel), \(machine.swift ?? "Swift ?"); "
            + "async-http-client \(machine.packages["async-http-client"] ?? "?"), swift-nio \(machine.packages["swift-nio"] ?? "?"); "
            + "library at \(machine.libraryCommit.map { String($0.prefix(10)) } ?? "?")"
            + ((machine.librarySourcesChanged ?? []).isEmpty ? "" : " + \(machine.librarySourcesChanged!.count) changed file(s) under Sources/"))

        summaries.withLock { $0[server] = rows }
        for row in rows where row.client.main && row.runs > 0 {
            let mode = row.inFlight == 1 ? "sequential" : "\(row.inFlight) in flight"
            let value = format(row.requestsPerSecond, "%.0f req/s") + " · " + format(row.cpuSecondsPer1000, "%.3f CPU s/1k")
                + " · " + format(row.peakRSSMB, "%.1f MB")
            let ratio = row.role == .baseline ? "baseline"
                : format(row.rateRatio, "%.2fx") + " · " + format(row.cpuRatio, "%.2fx") + " · " + format(row.rssRatio, "%.2fx")
            let judged = row.role == .acceptance || row.role == .library
            Results.shared.add(SummaryEntry(
                section: "throughput", name: "\(row.client.label), \(mode), \(server)", value: value, ratio: ratio,
                baseline: row.role == .baseline ? nil : Client.urlsession.label,
                target: judged ? String(format: "≥ %.2fx · ≤ %.2fx · ≤ %.2fx", minimumRateRatio, maximumCPURatio, maximumRSSRatio) : nil,
                met: judged ? row.passed : nil, note: row.missed.isEmpty ? nil : row.missed.joined(separator: ", "),
                counts: counted && row.role == .acceptance))
        }
        if clients.contains(Client.serviceJSONNative) {
            report(nativeTarget, runs: runs, server: server, counted: counted)
            report(curlHTTPTarget, runs: runs, server: server, counted: counted)
        } else {
            report(curlHTTPSTarget, runs: runs, server: server, counted: counted)
        }
        for comparison in curlFloorComparisons + deliveryTargets
        where clients.contains(comparison.client) && clients.contains(comparison.peer) {
            report(comparison, runs: runs, server: server, counted: counted)
        }
        return Report(
            server: server, date: ISO8601DateFormatter().string(from: Date()), machine: machine,
            command: CommandLine.arguments.joined(separator: " "), baseURL: baseURL, path: path, bodyBytes: Model.body.count,
            requests: requests, warmUp: warmUp, rounds: rounds, modes: modes,
            targets: .init(minimumRateRatio: minimumRateRatio, maximumCPURatio: maximumCPURatio, maximumRSSRatio: maximumRSSRatio),
            summary: rows, runs: runs, childFailures: failures, passed: allPassed)
    }

    /// The 1-minute load average (/proc/loadavg): how busy the shared machine was.
    static func loadAverage() -> Double? {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.flatMap { Double($0) }
    }

    static func format(_ value: Double?, _ format: String) -> String {
        value.map { String(format: format, $0) } ?? "—"
    }

    /// One line about a run.
    static func describe(_ r: ThroughputResult, baseline: ThroughputResult?) -> String {
        var line = "    round \(r.round ?? 0): "
        if let rate = r.requestsPerSecond {
            line += String(format: "%.0f req/s", rate)
            if let base = baseline?.requestsPerSecond { line += String(format: " (%.2fx)", rate / base) }
        } else {
            line += "—"
        }
        line += String(format: "; CPU %.0f ms/1k (user %.0f, sys %.0f)", r.cpuSecondsPer1000 * 1000,
                       r.userSeconds * 1e6 / Double(max(r.requests, 1)), r.systemSeconds * 1e6 / Double(max(r.requests, 1)))
        line += String(format: "; switches %.1f+%.1f", Double(r.voluntarySwitches) / Double(max(r.requests, 1)),
                       Double(r.involuntarySwitches) / Double(max(r.requests, 1)))
        line += String(format: "; peak %.1f MB (start %.1f)", Double(r.peakRSSKiB) * 1024 / 1e6, Double(r.startRSSKiB) * 1024 / 1e6)
        if let connections = r.connections { line += "; \(connections) connection(s)" }
        if let served = r.served, served != r.requests + r.warmUp { line += "; the sandbox served \(served) bodies" }
        line += "; \(r.threads) threads"
        if let load = r.loadAverage { line += String(format: "; load %.2f", load) }
        if r.failures > 0 { line += "; \(r.failures) FAILED" }
        if let error = r.error { line += "\n       error: \(error)" }
        return line
    }

    // MARK: Children

    /// Runs this executable with `arguments` and decodes the JSON line it prints last.
    /// The CA bundle FoundationNetworking's libcurl reads on Debian and Ubuntu.
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    static func launchChild(_ arguments: [String], environment: [String: String] = [:]) throws -> ThroughputResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ContentBenchmark.executable)
        process.arguments = arguments
        if let bundle = environment["BENCH_SYSTEM_BUNDLE"] {
            // FoundationNetworking can't be told which certificates to trust (L12): the child runs in
            // a mount namespace of its own, where the system's bundle has the test CA too. Root only.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = [
                "-m", "sh", "-c", "mount --bind \"$0\" \(systemBundle) && exec \"$@\"", bundle, ContentBenchmark.executable,
            ] + arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw BenchmarkError(description: "exit status \(process.terminationStatus), no result in: \(text)")
        }
        return try JSONDecoder().decode(ThroughputResult.self, from: Data(line.utf8))
    }

    /// The routes `benchmarks --serve` adds for this benchmark: the body, and how many connections
    /// the sandbox accepted and bodies it served, as `connections requests`.
    static func addRoutes(to sandbox: Sandbox) {
        let served = Atomic<Int>(0)
        sandbox.route(path) { _ in
            served.add(1, ordering: .relaxed)
            return .json(Model.body)
        }
        sandbox.route(statsPath) { [weak sandbox] _ in
            .text("\(sandbox?.acceptedConnectionCount ?? -1) \(served.load(ordering: .relaxed))")
        }
    }

    static let statsPath = "/_throughput/stats"
}

/// `benchmarks --serve` in a child process: a sandbox whose CPU and memory aren't the client's.
final class SandboxProcess {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let baseURL: String

    init() throws {
        process.executableURL = URL(fileURLWithPath: ContentBenchmark.executable)
        process.arguments = ["--serve"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw BenchmarkError(description: "the sandbox process gave no URL") }
            text.append(more)
        }
        baseURL = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The connections the sandbox has accepted, this query's own included (each query opens one),
    /// and the bodies of ``ThroughputBenchmark/path`` it has served.
    func counts() -> (connections: Int, requests: Int)? {
        guard let url = URL(string: baseURL + ThroughputBenchmark.statsPath) else { return nil }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let answer = Mutex<(Int, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: url) { data, _, _ in
            let numbers = String(decoding: data ?? Data(), as: UTF8.self).split(separator: " ").compactMap { Int($0) }
            if numbers.count == 2 { answer.withLock { $0 = (numbers[0], numbers[1]) } }
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return answer.withLock { $0 }
    }

    /// Closes its standard input, which stops it, and returns what it says about itself.
    func stop() -> ServerResult? {
        try? input.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let line = String(decoding: rest, as: UTF8.self).split(separator: "\n").last else { return nil }
        return try? JSONDecoder().decode(ServerResult.self, from: Data(line.utf8))
    }
}

/// What a throughput child measured, printed as one line of JSON.
struct ThroughputResult: Codable {
    var client: String
    var inFlight: Int
    /// Timed requests.
    var requests: Int
    var warmUp: Int
    /// Filled in by the parent.
    var round: Int?
    /// The timed requests, from the first sent to the last completed.
    var seconds = 0.0
    /// getrusage(RUSAGE_SELF) over the timed requests.
    var userSeconds = 0.0
    var systemSeconds = 0.0
    var voluntarySwitches = 0
    var involuntarySwitches = 0
    /// Timed requests that failed, or whose body wasn't the one expected.
    var failures = 0
    /// Body bytes received over the timed requests (those of the expected body, once checked).
    var bodyBytes = 0
    /// VmHWM at the end, in KiB.
    var peakRSSKiB = 0
    /// VmRSS before the warm-up (client made) and at the end, in KiB.
    var startRSSKiB = 0
    var endRSSKiB = 0
    /// Threads of the process at the end.
    var threads = 0
    /// TCP connections the sandbox accepted during the run, and bodies it served (warm-up
    /// included; filled in by the parent).
    var connections: Int?
    var served: Int?
    /// The machine's 1-minute load average when the run began (filled in by the parent).
    var loadAverage: Double?
    var error: String?

    var requestsPerSecond: Double? {
        failures == 0 && error == nil && seconds > 0 ? Double(requests) / seconds : nil
    }

    var cpuSecondsPer1000: Double { (userSeconds + systemSeconds) * 1000 / Double(max(requests, 1)) }
}

extension ThroughputBenchmark {
    /// One row of a table, as written to the JSON file too: medians over the rounds of one client
    /// in one mode, and the medians of its ratios to the baseline's run of the same round.
    struct SummaryRow: Codable, Sendable {
        var client: Client
        var label: String
        var role: Role
        var inFlight: Int
        var runs: Int
        var requestsPerSecond: Double?
        var cpuSecondsPer1000: Double?
        var peakRSSMB: Double?
        var rateRatio: Double?
        var cpuRatio: Double?
        var rssRatio: Double?
        /// The ratios of each round, in the order of the rounds.
        var rateRatios: [Double]
        var cpuRatios: [Double]
        var rssRatios: [Double]
        /// Whether the targets were met; `nil` for rows without any.
        var passed: Bool?
        /// The targets missed.
        var missed: [String]

        init(client: Client, inFlight: Int, runs results: [ThroughputResult], base: [ThroughputResult]) {
            self.client = client
            label = client.label
            role = client.role
            self.inFlight = inFlight
            runs = results.count
            // Only complete runs count: a failed request makes a run's numbers meaningless.
            let complete = results.filter { $0.requestsPerSecond != nil }
            requestsPerSecond = ContentBenchmark.median(complete.compactMap(\.requestsPerSecond))
            cpuSecondsPer1000 = ContentBenchmark.median(complete.map(\.cpuSecondsPer1000))
            peakRSSMB = ContentBenchmark.median(complete.map { Double($0.peakRSSKiB) * 1024 / 1e6 })
            var rates: [Double] = [], cpus: [Double] = [], rsss: [Double] = []
            for result in complete {
                guard let baseline = base.first(where: { $0.round == result.round }), let baseRate = baseline.requestsPerSecond,
                      let rate = result.requestsPerSecond
                else { continue }
                rates.append(rate / baseRate)
                cpus.append(result.cpuSecondsPer1000 / baseline.cpuSecondsPer1000)
                rsss.append(Double(result.peakRSSKiB) / Double(baseline.peakRSSKiB))
            }
            (rateRatios, cpuRatios, rssRatios) = (rates, cpus, rsss)
            rateRatio = ContentBenchmark.median(rates)
            cpuRatio = ContentBenchmark.median(cpus)
            rssRatio = ContentBenchmark.median(rsss)
            missed = []
            guard role == .acceptance || role == .library else { return }
            if (rateRatio ?? 0) < minimumRateRatio { missed.append(String(format: "req/s %.2fx < %.2fx", rateRatio ?? 0, minimumRateRatio)) }
            if (cpuRatio ?? .infinity) > maximumCPURatio { missed.append(String(format: "CPU %.2fx > %.2fx", cpuRatio ?? .infinity, maximumCPURatio)) }
            if (rssRatio ?? .infinity) > maximumRSSRatio { missed.append(String(format: "RSS %.2fx > %.2fx", rssRatio ?? .infinity, maximumRSSRatio)) }
            if results.count != complete.count { missed.append("\(results.count - complete.count) run(s) with failures") }
            passed = missed.isEmpty
        }

        var verdictText: String {
            switch role {
            case .baseline: return "baseline"
            case .reference: return "—"
            case .acceptance, .library:
                let verdict = passed == true ? "PASS" : "FAIL (\(missed.joined(separator: ", ")))"
                return role == .acceptance ? verdict : "info: " + verdict
            }
        }
    }

    /// The JSON file of a run.
    struct Report: Codable {
        struct Targets: Codable {
            var minimumRateRatio: Double
            var maximumCPURatio: Double
            var maximumRSSRatio: Double
        }

        /// "sandbox" or "nginx".
        var server: String
        /// nginx's `-v`.
        var serverVersion: String?
        var date: String
        var machine: Machine
        var command: String
        var baseURL: String
        var path: String
        var bodyBytes: Int
        var requests: Int
        var warmUp: Int
        var rounds: Int
        var modes: [Int]
        var targets: Targets
        var summary: [SummaryRow]
        var runs: [ThroughputResult]
        var childFailures: [String]
        /// The peak RSS of the server process, when known (the sandbox's).
        var serverPeakRSSKiB: Int?
        var passed: Bool
    }

    /// What the numbers were measured on.
    struct Machine: Codable {
        var processors: Int
        var kernel: String
        var cpu: String?
        var memoryKiB: Int?
        var swift: String?
        /// Versions of the packages the benchmarks resolved (Package.resolved).
        var packages: [String: String]
        /// The library's commit, and the files under Sources/ changed since (`git status --porcelain`).
        var libraryCommit: String?
        var librarySourcesChanged: [String]?
        /// `uname -a`.
        var uname: String?

        /// Found once per process (it runs `swift --version` and git).
        static let current = measured

        static var measured: Machine {
            var name = utsname()
            Glibc.uname(&name)
            let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
            let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
                .flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) }
            let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
            let memory = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
                .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            return Machine(
                processors: ProcessInfo.processInfo.activeProcessorCount, kernel: kernel, cpu: cpu, memoryKiB: memory,
                swift: swiftVersion(), packages: resolvedPackages(),
                libraryCommit: command(["git", "-C", root.path, "rev-parse", "HEAD"]).flatMap { $0.split(separator: "\n").first.map(String.init) },
                librarySourcesChanged: command(["git", "--no-optional-locks", "-C", root.path, "status", "--porcelain", "--", "Sources"])
                    .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } },
                uname: command(["uname", "-a"])?.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        /// The root package: the folder above Benchmarks/.
        static var root: URL { Results.directory.deletingLastPathComponent().deletingLastPathComponent() }

        /// The first line of `swift --version`.
        static func swiftVersion() -> String? {
            command(["swift", "--version"])?.split(separator: "\n").first { $0.contains("Swift version") }.map(String.init)
        }

        /// What a command prints, `nil` when it can't run or fails.
        static func command(_ arguments: [String]) -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
        }

        static func resolvedPackages() -> [String: String] {
            struct Resolved: Decodable {
                struct Pin: Decodable {
                    struct State: Decodable { var version: String? }
                    var identity: String
                    var state: State
                }
                var pins: [Pin]
            }
            let file = Results.directory.deletingLastPathComponent().appendingPathComponent("Package.resolved")
            guard let data = try? Data(contentsOf: file), let resolved = try? JSONDecoder().decode(Resolved.self, from: data) else {
                return [:]
            }
            var packages: [String: String] = [:]
            for pin in resolved.pins { packages[pin.identity] = pin.state.version ?? "?" }
            return packages
        }
    }
}
