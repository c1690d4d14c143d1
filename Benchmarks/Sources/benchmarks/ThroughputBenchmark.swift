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
/// task with a completion handler (the baseline, measured in the same run).
///
/// The sandbox runs in a process of its own (`benchmarks --serve`), so a client's CPU time and peak
/// RSS are its own; every run of every client is a fresh child process (`benchmarks
/// --throughput-child`, see ``ThroughputBenchmark/runChild(_:)``) that warms up, times
/// ``requests`` requests and prints one line of JSON, a ``ThroughputResult``. Runs go round by
/// round, every client once per mode, starting one client later each round, so a slow spell of the
/// machine hits all clients alike. The results also go to `Benchmarks/results/latest.json`.
enum ThroughputBenchmark {
    static let path = "/small.json"
    static let defaultRequests = 5_000
    static let defaultWarmUp = 200
    /// Rounds of every client and mode: the machine is shared and noisy.
    static let defaultRounds = 5
    /// Requests in flight in each mode.
    static let modes = [1, 32]
    /// A child that hasn't finished after this long reports a failure and exits.
    static let childTimeout: TimeInterval = 300
    /// Issue 6's acceptance: the throughput at least, the CPU time per request and peak RSS at most,
    /// this many times the baseline's.
    static let minimumRateRatio = 0.97
    static let maximumCPURatio = 1.05
    static let maximumRSSRatio = 1.10

    /// What a child process measures.
    enum Client: String, CaseIterable, Codable {
        /// `URLSession.dataTask(with:completionHandler:)`, handler on a serial queue: the baseline.
        case urlsession
        /// The same, parsing the body with `JSON(data:)` in the handler: the parse alone.
        case urlsessionJSON = "urlsession-json"
        /// A data task whose session delegate collects the body and completes it (response, data
        /// and completion each a callback on the delegate queue): the transport the library uses.
        case urlsessionDelegate = "urlsession-delegate"
        /// `HTTPCycle.get(_:session:completionHandler:)`.
        case cycle
        /// `WebService.GET(path).response { response, data in }`.
        case serviceResponse = "ws-response"
        /// `WebService.GET(path).responseJSON { json in }`.
        case serviceJSON = "ws-json"
        /// `WebService.GET(path).responseJSON(Model.self) { model in }`.
        case serviceDecodable = "ws-decodable"
        /// AsyncHTTPClient: `HTTPClient.shared.execute(_:timeout:)`, then the body collected.
        case asyncHTTPClient = "ahc"

        var label: String {
            switch self {
            case .urlsession: "URLSession dataTask (baseline)"
            case .urlsessionJSON: "URLSession dataTask + JSON(data:)"
            case .urlsessionDelegate: "URLSession data delegate"
            case .cycle: "HTTPCycle.get (callback)"
            case .serviceResponse: "WebService.GET.response"
            case .serviceJSON: "WebService.GET.responseJSON"
            case .serviceDecodable: "WebService.GET.responseJSON(Model.self)"
            case .asyncHTTPClient: "AsyncHTTPClient execute + collect"
            }
        }

        var role: Role {
            switch self {
            case .urlsession: .baseline
            case .serviceJSON: .acceptance
            case .cycle, .serviceResponse, .serviceDecodable: .library
            case .urlsessionJSON, .urlsessionDelegate, .asyncHTTPClient: .reference
            }
        }
    }

    /// How a client's row is judged.
    enum Role: String, Codable {
        /// Its numbers are the reference.
        case baseline
        /// Issue 6's acceptance row: its verdict sets the exit status.
        case acceptance
        /// The library's other entry points: judged against the same targets, for information.
        case library
        /// Other clients, for comparison: no target.
        case reference
    }

    // MARK: Table

    /// Runs every client in every mode `rounds` times and prints the tables; returns whether the
    /// acceptance rows met their targets.
    static func run(rounds: Int, requests: Int = defaultRequests, warmUp: Int = defaultWarmUp) -> Bool {
        let clients = Client.allCases
        print("")
        print("Throughput: \(requests) GETs of \(path) (\(Model.body.count) B of JSON) from a sandbox in another process, after \(warmUp) to warm up;")
        print("one fresh process per run, \(rounds) round(s) of every client and mode, interleaved; MB = 10^6 bytes")
        let server: SandboxProcess
        do {
            server = try SandboxProcess()
        } catch {
            print("the sandbox process didn't start: \(error)")
            return false
        }
        var runs: [ThroughputResult] = []
        var failures: [String] = []
        for round in 1...rounds {
            for inFlight in modes {
                // One client later each round, so that no client always runs first.
                let order = clients.indices.map { clients[($0 + round - 1) % clients.count] }
                for client in order {
                    let before = server.counts()
                    let load = loadAverage()
                    do {
                        var result = try launchChild([
                            "--throughput-child", client.rawValue, String(inFlight), server.baseURL, String(requests), String(warmUp),
                        ])
                        result.round = round
                        result.loadAverage = load
                        if let before, let after = server.counts() {
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
        let served = server.stop()

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
            print(inFlight == 1 ? "Sequential (1 in flight)" : "\(inFlight) in flight")
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
                        + "  " + row.verdictText)
            }
        }
        print("")
        print("req/s, CPU and RSS are medians over the rounds; \"vs raw\": the median over the rounds of the ratio to the baseline's")
        print("run of the same round and mode (runs a few seconds apart, so a slow spell of the machine weighs on both alike).")
        print("CPU: user + system time of the child (getrusage) around the timed requests, per 1,000 requests.")
        print("RSS: the child's peak (VmHWM), warm-up included; the sandbox is in another process.")
        print(
            "Targets (issue 6), for WebService.GET.responseJSON: req/s ≥ \(minimumRateRatio)x, CPU ≤ \(maximumCPURatio)x, "
                + "peak RSS ≤ \(maximumRSSRatio)x raw URLSession; the other library rows are judged the same way for information.")
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
        if let served {
            print(String(format: "Sandbox process: peak RSS %.1f MB.", Double(served.peakRSSKiB) * 1024 / 1e6))
        }
        for failure in failures { print("child failed: \(failure)") }

        let machine = Machine.current
        print("Machine: \(machine.processors) processors (\(machine.cpu ?? "?")), Linux \(machine.kernel), \(machine.swift ?? "Swift ?"); "
            + "async-http-client \(machine.packages["async-http-client"] ?? "?"), swift-nio \(machine.packages["swift-nio"] ?? "?"); "
            + "library at \(machine.libraryCommit.map { String($0.prefix(10)) } ?? "?")"
            + ((machine.librarySourcesChanged ?? []).isEmpty ? "" : " + \(machine.librarySourcesChanged!.count) changed file(s) under Sources/"))
        let report = Report(
            date: ISO8601DateFormatter().string(from: Date()), machine: machine, command: CommandLine.arguments.joined(separator: " "),
            path: path, bodyBytes: Model.body.count, requests: requests, warmUp: warmUp, rounds: rounds, modes: modes,
            targets: .init(minimumRateRatio: minimumRateRatio, maximumCPURatio: maximumCPURatio, maximumRSSRatio: maximumRSSRatio),
            summary: rows, runs: runs, childFailures: failures, sandboxPeakRSSKiB: served?.peakRSSKiB, passed: allPassed)
        do {
            let file = try report.write()
            print("Results written to \(file.path).")
        } catch {
            print("The results could not be written: \(error)")
        }
        return allPassed
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
    static func launchChild(_ arguments: [String]) throws -> ThroughputResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ContentBenchmark.executable)
        process.arguments = arguments
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
    struct SummaryRow: Codable {
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

        var date: String
        var machine: Machine
        var command: String
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
        var sandboxPeakRSSKiB: Int?
        var passed: Bool

        /// `Benchmarks/results/latest.json`, beside this package's sources.
        static var file: URL {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("results", isDirectory: true).appendingPathComponent("latest.json")
        }

        func write() throws -> URL {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let file = Self.file
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(self).write(to: file, options: .atomic)
            return file
        }
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

        static var current: Machine {
            var name = utsname()
            uname(&name)
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
                librarySourcesChanged: command(["git", "-C", root.path, "status", "--porcelain", "--", "Sources"])
                    .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } })
        }

        /// The root package: the folder above Benchmarks/.
        static var root: URL { Report.file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

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
            let file = Report.file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Package.resolved")
            guard let data = try? Data(contentsOf: file), let resolved = try? JSONDecoder().decode(Resolved.self, from: data) else {
                return [:]
            }
            var packages: [String: String] = [:]
            for pin in resolved.pins { packages[pin.identity] = pin.state.version ?? "?" }
            return packages
        }
    }
}
