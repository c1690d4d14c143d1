import Foundation
import Synchronization

/// The `sandbox` section: the requests per second the sandbox serves to wrk (one thread, 1 and 32
/// connections), so that the throughput section's numbers are known to be the clients', not the
/// server's; nginx the same way when it is installed, for scale.
enum SandboxLoad {
    static let connections = [1, 32]
    static var seconds: Int { Settings.quick ? 2 : 5 }
    /// What the sandbox served, for the summary's comparison with the clients.
    static let results = Mutex<[WrkRun.Result]>([])
    /// The sandbox should serve wrk at least this many times the fastest client's rate.
    static let headroomTarget = 1.5

    static func run() -> Bool {
        print("")
        print("Sandbox: requests per second it serves to wrk -t1 -c1 / -c32 -d\(seconds)s, GET \(ThroughputBenchmark.path) (\(Model.body.count) B)")
        guard let wrk = ExternalTools.wrk else {
            let note = "skipped: wrk not installed (\(ExternalTools.installHint))"
            print(note)
            Results.shared.note("sandbox section " + note)
            return true
        }
        var runs: [WrkRun.Result] = []
        do {
            let server = try SandboxProcess()
            for count in connections {
                runs.append(WrkRun.run(wrk, url: server.baseURL + ThroughputBenchmark.path, server: "sandbox", connections: count, seconds: seconds))
            }
            _ = server.stop()
        } catch {
            print("the sandbox process didn't start: \(error)")
            return false
        }
        if let nginx = ExternalTools.nginx {
            do {
                let server = try NginxServer(executable: nginx)
                for count in connections {
                    runs.append(WrkRun.run(wrk, url: server.baseURL + ThroughputBenchmark.path, server: "nginx", connections: count, seconds: seconds))
                }
                server.stop()
            } catch {
                print("nginx didn't start: \(error)")
                Results.shared.note("nginx didn't start for the sandbox section: \(error)")
            }
        } else {
            print("nginx: skipped: nginx not installed (\(ExternalTools.installHint))")
        }
        print("server".padded(10) + "connections".leftPadded(12) + "req/s".leftPadded(10) + "latency".leftPadded(10) + "vs nginx".leftPadded(10))
        for run in runs {
            let nginx = runs.first { $0.server == "nginx" && $0.connections == run.connections }?.requestsPerSecond
            let ratio = run.server == "nginx" ? nil : run.requestsPerSecond.flatMap { rate in nginx.map { rate / $0 } }
            print(
                ("  " + run.server).padded(10) + String(run.connections).leftPadded(12)
                    + Format.rate(run.requestsPerSecond, "").leftPadded(10) + (run.latency ?? "—").leftPadded(10) + Format.ratio(ratio).leftPadded(10)
                    + (run.errors.isEmpty ? "" : "  " + run.errors.joined(separator: "; ")))
            if let output = run.output { print("    wrk said: \(output.suffix(400))") }
        }
        results.withLock { $0 = runs }
        Results.shared.record("sandbox", runs)
        return runs.allSatisfy { $0.requestsPerSecond != nil && $0.errors.isEmpty }
    }

    /// Summary lines: what the sandbox served to wrk against the fastest client of the throughput
    /// section at the same concurrency (when that section ran), and against nginx.
    static func summarize() {
        let runs = results.withLock { $0 }
        let clientRows = ThroughputBenchmark.summaries.withLock { $0["sandbox"] ?? [] }
        for run in runs where run.server == "sandbox" {
            let mode = run.connections
            let fastest = clientRows.filter { $0.inFlight == mode }.compactMap { row in row.requestsPerSecond.map { (row.label, $0) } }
                .max { $0.1 < $1.1 }
            let nginx = runs.first { $0.server == "nginx" && $0.connections == mode }?.requestsPerSecond
            var value = Format.rate(run.requestsPerSecond, "req/s")
            if let nginx { value += " (nginx \(Format.rate(nginx, "req/s")))" }
            let ratio = fastest.flatMap { fastest in run.requestsPerSecond.map { $0 / fastest.1 } }
            Results.shared.add(SummaryEntry(
                section: "sandbox", name: "served to wrk, \(mode) connection\(mode == 1 ? "" : "s")", value: value,
                ratio: Format.ratio(ratio), baseline: fastest.map { "the fastest client, \($0.0)" },
                target: fastest == nil ? nil : String(format: "≥ %.1fx fastest client", headroomTarget),
                met: ratio.map { $0 >= headroomTarget }, note: fastest == nil ? "throughput section not run" : "the sandbox may limit the clients",
                counts: false))
        }
    }
}
