import Foundation

/// Throughput at 32 in flight with the CPU busy (issue 30): against nginx over https and http, each
/// client run quiet and then beside two busy loops (child processes spinning, started and stopped
/// here), round by round with the clients in turn, so that each ratio compares runs made side by
/// side. Every ratio is against AsyncHTTPClient and the libcurl floor of the same round and
/// condition; CPU per request loaded is compared with the same client's quiet figure.
enum LoadedThroughput {
    static let inFlight = 32
    static let busyLoops = 2
    static var defaultRounds: Int { Settings.quick ? 1 : 3 }

    /// The clients of each server: the peers, the floor and the library's rows, the awaited forms
    /// (what most new server code writes) among them.
    static let httpsClients: [ThroughputBenchmark.Client] = [
        .asyncHTTPClient, .libcurlDirect, .serviceJSONCurl, .serviceJSONCurlOneLoop, .serviceJSONCurlInline,
        .serviceJSONAsyncCurl, .cycleAsyncCurl,
    ]
    static let httpClients: [ThroughputBenchmark.Client] = [
        .asyncHTTPClient, .libcurlDirect, .serviceJSONNative, .serviceJSONCurl, .serviceJSONCurlOneLoop,
        .serviceJSONAsyncNative, .cycleAsyncNative,
    ]

    /// Issue 30's targets under load: https `responseJSON` on curl ≥ 1.5× AsyncHTTPClient with CPU
    /// per request ≤ 1.25× its quiet figure; native http ≥ 0.75× the floor.
    static let targets: [(server: String, client: ThroughputBenchmark.Client, peer: ThroughputBenchmark.Client, rate: Double, cpu: Double?)] = [
        ("nginx https", .serviceJSONCurl, .asyncHTTPClient, 1.5, 1.25),
        ("nginx http", .serviceJSONNative, .libcurlDirect, 0.75, nil),
    ]

    enum Condition: String, Codable { case quiet, loaded }

    struct Run: Codable {
        var condition: Condition
        var result: ThroughputResult
        /// Connections nginx accepted during the run (warm-up included).
        var connections: Int?
    }

    struct Row: Codable {
        var client: String
        var label: String
        var quietRate: Double?
        var loadedRate: Double?
        /// Medians over the rounds of the loaded run's ratio to the peer's loaded run.
        var loadedVsAHC: Double?
        var loadedVsFloor: Double?
        var quietVsAHC: Double?
        var quietVsFloor: Double?
        /// Microseconds of CPU (user + system) per request.
        var quietCPU: Double?
        var loadedCPU: Double?
        var cpuGrowth: Double?
        var quietConnections: Double?
        var loadedConnections: Double?
    }

    struct Report: Codable {
        var server: String
        var inFlight: Int
        var busyLoops: Int
        var requests: Int
        var warmUp: Int
        var rounds: Int
        var rows: [Row]
        var runs: [Run]
        var machine: ThroughputBenchmark.Machine
    }

    static func run(rounds: Int, requests: Int, warmUp: Int = ThroughputBenchmark.defaultWarmUp) -> Bool {
        print("")
        print("Throughput under load: \(inFlight) in flight, quiet and beside \(busyLoops) busy loops, \(requests) GETs per run after \(warmUp),")
        print("\(rounds) round(s); every ratio against the peer's run of the same round and condition, medians over the rounds")
        guard let nginx = ExternalTools.nginx else {
            let note = "skipped: nginx not installed (\(ExternalTools.installHint))"
            print(note)
            Results.shared.note("throughput-loaded " + note)
            return false
        }
        var passed = true
        for tls in [true, false] {
            do {
                let server = try NginxServer(executable: nginx, tls: tls)
                defer { server.stop() }
                let environment = server.certificateFile.map { ["BENCH_CA_FILE": $0.path] } ?? [:]
                let name = tls ? "nginx https" : "nginx http"
                let report = measure(
                    server: name, nginx: server, clients: tls ? httpsClients : httpClients, rounds: rounds, requests: requests,
                    warmUp: warmUp, environment: environment)
                Results.shared.record("throughput-loaded", report)
                // Issue 30's verdicts are for information: they don't set the exit status yet.
                _ = judge(report)
                passed = passed && report.runs.allSatisfy { $0.result.error == nil && $0.result.failures == 0 }
            } catch {
                print("nginx\(tls ? " with TLS" : "") didn't start: \(error)")
                Results.shared.note("throughput-loaded: nginx didn't start: \(error)")
                passed = false
            }
        }
        return passed
    }

    static func measure(
        server: String, nginx: NginxServer, clients: [ThroughputBenchmark.Client], rounds: Int, requests: Int, warmUp: Int,
        environment: [String: String]
    ) -> Report {
        var runs: [Run] = []
        for round in 1...rounds {
            for condition in [Condition.quiet, .loaded] {
                let load = condition == .loaded ? BusyLoad(count: busyLoops) : nil
                let order = clients.indices.map { clients[($0 + round - 1) % clients.count] }
                for client in order {
                    let before = nginx.acceptedConnections()
                    do {
                        var result = try ThroughputBenchmark.launchChild([
                            "--throughput-child", client.rawValue, String(inFlight), nginx.baseURL, String(requests), String(warmUp),
                        ], environment: environment)
                        result.round = round
                        let after = nginx.acceptedConnections()
                        // The status request before this one's is counted in `after`.
                        let opened = before.flatMap { b in after.map { $0 - b - 1 } }
                        runs.append(Run(condition: condition, result: result, connections: opened))
                    } catch {
                        print("  \(client.label), \(condition), round \(round): \(error)")
                    }
                }
                load?.stop()
            }
        }
        let rows = clients.map { row(for: $0, runs: runs) }
        print("")
        print("\(server), \(inFlight) in flight:")
        print("client".padded(44) + "quiet".leftPadded(8) + "loaded".leftPadded(8) + "vs AHC".leftPadded(8) + "vs floor".leftPadded(9)
            + "µs CPU q/l".leftPadded(13) + "growth".leftPadded(8) + "conns q/l".leftPadded(11))
        for row in rows {
            print(("  " + row.label).padded(44)
                + ThroughputBenchmark.format(row.quietRate, "%.0f").leftPadded(8)
                + ThroughputBenchmark.format(row.loadedRate, "%.0f").leftPadded(8)
                + ThroughputBenchmark.format(row.loadedVsAHC, "%.2fx").leftPadded(8)
                + ThroughputBenchmark.format(row.loadedVsFloor, "%.2fx").leftPadded(9)
                + (ThroughputBenchmark.format(row.quietCPU, "%.0f") + "/" + ThroughputBenchmark.format(row.loadedCPU, "%.0f")).leftPadded(13)
                + ThroughputBenchmark.format(row.cpuGrowth, "%.2fx").leftPadded(8)
                + (ThroughputBenchmark.format(row.quietConnections, "%.0f") + "/" + ThroughputBenchmark.format(row.loadedConnections, "%.0f")).leftPadded(11))
        }
        print("req/s medians; \"vs\": the loaded run's ratio to the peer's loaded run of the round (quiet ratios in the JSON);")
        print("µs CPU per request (getrusage of the child), quiet / loaded, and loaded ÷ quiet; connections nginx accepted per run.")
        for run in runs {
            let r = run.result
            print("  round \(r.round ?? 0) \(run.condition.rawValue) \(r.client): "
                + ThroughputBenchmark.format(r.requestsPerSecond, "%.0f req/s")
                + String(format: ", %.0f µs CPU", r.cpuSecondsPer1000 * 1000)
                + (run.connections.map { ", \($0) connections" } ?? "")
                + (r.error.map { ", error: \($0)" } ?? "") + (r.failures > 0 ? ", \(r.failures) failures" : ""))
        }
        return Report(
            server: server, inFlight: inFlight, busyLoops: busyLoops, requests: requests, warmUp: warmUp, rounds: rounds,
            rows: rows, runs: runs, machine: .current)
    }

    static func row(for client: ThroughputBenchmark.Client, runs: [Run]) -> Row {
        func of(_ name: String, _ condition: Condition) -> [Run] {
            runs.filter { $0.result.client == name && $0.condition == condition }
        }
        func ratio(to peer: ThroughputBenchmark.Client, _ condition: Condition) -> Double? {
            median(of(client.rawValue, condition).compactMap { run in
                guard let rate = run.result.requestsPerSecond,
                      let peerRate = of(peer.rawValue, condition).first(where: { $0.result.round == run.result.round })?.result.requestsPerSecond
                else { return nil }
                return rate / peerRate
            })
        }
        let quiet = of(client.rawValue, .quiet), loaded = of(client.rawValue, .loaded)
        let quietCPU = median(quiet.map { $0.result.cpuSecondsPer1000 * 1000 })
        let loadedCPU = median(loaded.map { $0.result.cpuSecondsPer1000 * 1000 })
        return Row(
            client: client.rawValue, label: client.label,
            quietRate: median(quiet.compactMap(\.result.requestsPerSecond)), loadedRate: median(loaded.compactMap(\.result.requestsPerSecond)),
            loadedVsAHC: ratio(to: .asyncHTTPClient, .loaded), loadedVsFloor: ratio(to: .libcurlDirect, .loaded),
            quietVsAHC: ratio(to: .asyncHTTPClient, .quiet), quietVsFloor: ratio(to: .libcurlDirect, .quiet),
            quietCPU: quietCPU, loadedCPU: loadedCPU, cpuGrowth: quietCPU.flatMap { q in loadedCPU.map { $0 / q } },
            quietConnections: median(quiet.compactMap { $0.connections.map(Double.init) }),
            loadedConnections: median(loaded.compactMap { $0.connections.map(Double.init) }))
    }

    /// Prints and records issue 30's verdicts for `report`'s server; for information (the exit
    /// status doesn't count them yet).
    static func judge(_ report: Report) -> Bool {
        var passed = true
        for target in targets where target.server == report.server {
            guard let row = report.rows.first(where: { $0.client == target.client.rawValue }) else { continue }
            let rate = target.peer == .asyncHTTPClient ? row.loadedVsAHC : row.loadedVsFloor
            var missed: [String] = []
            if (rate ?? 0) < target.rate { missed.append("rate") }
            if let cpu = target.cpu, (row.cpuGrowth ?? .infinity) > cpu { missed.append("CPU growth") }
            passed = passed && missed.isEmpty
            Results.shared.add(SummaryEntry(
                section: "throughput-loaded", name: "\(target.client.label), \(inFlight) in flight, \(busyLoops) busy loops, \(report.server)",
                value: ThroughputBenchmark.format(row.loadedRate, "%.0f req/s") + " · " + ThroughputBenchmark.format(row.loadedCPU, "%.0f µs CPU"),
                ratio: ThroughputBenchmark.format(rate, "%.2fx") + (target.cpu == nil ? "" : " · " + ThroughputBenchmark.format(row.cpuGrowth, "%.2fx")),
                baseline: target.peer.label, target: "≥ \(target.rate)x" + (target.cpu.map { " · CPU ≤ \($0)x quiet" } ?? ""),
                met: missed.isEmpty, note: missed.isEmpty ? nil : missed.joined(separator: ", "), counts: false))
        }
        return passed
    }

    static func median(_ values: [Double]) -> Double? { ContentBenchmark.median(values) }
}

/// Child processes that spin on the CPU until stopped: a loaded machine.
final class BusyLoad {
    private var processes: [Process] = []

    init(count: Int) {
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ContentBenchmark.executable)
            process.arguments = ["--spin"]
            process.standardOutput = FileHandle.nullDevice
            if (try? process.run()) != nil { processes.append(process) }
        }
        // Let the scheduler see them busy before the first run.
        Thread.sleep(forTimeInterval: 0.5)
    }

    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        processes = []
    }

    deinit { stop() }
}

/// `benchmarks --spin`: spins until terminated.
func spinForever() -> Never {
    var counter: UInt64 = 0
    while true {
        counter &+= 1
        // Never true in practice; keeps the loop from being optimised away.
        if counter == .max { print(counter) }
    }
}
