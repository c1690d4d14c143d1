import Foundation

// Runs the benchmarks, prints a table per section and a summary table at the end:
//
//     swift run -c release --package-path Benchmarks benchmarks [section…] [--quick] [--runs N] [--requests N]
//
// No section: every section of issue 8, in this order (about 12 minutes):
//   uritemplate   URI template expansion (level 4) against interpolation + addingPercentEncoding
//   text          response.text on a 10 MB body: UTF-8 and single-byte, charset named or sniffed
//   form          FormData serialization and parsing
//   json          the JSONParser content handler against JSONSerialization, ~1 MB and ~100 B
//   content       FileWriter and Accumulator(maximumSize:) on a 1 GiB download (peak RSS)
//   sandbox       the requests per second the sandbox (and nginx) serve to wrk
//   throughput    5,000 small GETs per client, sequential and 32 in flight, from the sandbox and nginx
// Diagnostics, only when named (or with `all`): `throughput-loaded` (32 in flight against nginx over
// https and http, each client quiet and beside two busy loops; a few minutes), `throughput-instructions` (the throughput clients
// under valgrind's callgrind, a few minutes; results/instructions.json) and `content-extra` (where
// a download's memory goes; slow, and some cases take a GB of RAM).
//
// Every run writes its results, with the machine (uname -a, cores, Swift, the library's commit),
// to a dated file in Benchmarks/results, and to results/latest.json when it ran every default
// section (a run of some sections leaves the last full run there); a `--quick` run (fewer
// requests, a smaller download, shorter rounds: a smoke test) to results/quick.json only.
// nginx and wrk come from Debian's packages (Scripts/bench-servers.sh); without them their rows are
// skipped with a note (BENCH_NGINX / BENCH_WRK: the program to use, or `none`). `--runs N`: runs of each content case (3 by default), rounds of the throughput
// section (5). `--requests N`: timed requests per throughput run (5,000). The exit status is 1 when
// a counted target is missed (see the summary).

func row(_ name: String, _ rate: Double, _ note: String) -> String {
    name.padding(toLength: 42, withPad: " ", startingAt: 0)
        + String(format: "%14.0f", rate).padding(toLength: 16, withPad: " ", startingAt: 0) + note
}

func runURITemplateSection() -> Bool {
    print("")
    print("URI template: \(URITemplateBenchmark.text) (level 4)")
    print("Benchmark (median of \(Settings.rounds) rounds)".padding(toLength: 42, withPad: " ", startingAt: 0) + "ops/s           vs baseline")
    do {
        let rows = try URITemplateBenchmark.run()
        let baseline = rows.last?.1 ?? 1
        for (name, rate) in rows {
            print(row("  " + name, rate, String(format: "%.2fx", rate / baseline)))
        }
        let expansion = rows.first?.1 ?? 0
        let met = expansion >= URITemplateBenchmark.target
        Results.shared.add(SummaryEntry(
            section: "uritemplate", name: "URITemplate.expand (level 4)", value: Format.rate(expansion, "/s"),
            ratio: Format.ratio(expansion / baseline), baseline: rows.last?.0, target: "≥ " + Format.rate(URITemplateBenchmark.target, "/s"),
            met: met, note: nil, counts: true))
        struct Report: Codable {
            var template: String
            var rows: [Measurement]
        }
        Results.shared.record("uritemplate", Report(
            template: URITemplateBenchmark.text,
            rows: rows.map { Measurement(name: $0.0, bytes: 0, operationsPerSecond: $0.1, megabytesPerSecond: nil) }))
        return met
    } catch {
        print("URI template benchmark failed: \(error)")
        return false
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
// Hidden: one content case in a fresh process, so that its peak RSS is its own; a sandbox alone.
if arguments.first == "--child" {
    ContentBenchmark.runChild(Array(arguments.dropFirst()))
}
if arguments.first == "--throughput-child" {
    ThroughputBenchmark.runChild(Array(arguments.dropFirst()))
}
if arguments.first == "--spin" {
    spinForever()
}
if arguments.first == "--serve" {
    ContentBenchmark.serve()
}

if let index = arguments.firstIndex(of: "--quick") {
    arguments.remove(at: index)
    // The children read it from the environment.
    setenv("BENCH_QUICK", "1", 1)
}
var runs: Int?
if let index = arguments.firstIndex(of: "--runs") {
    guard index + 1 < arguments.count, let count = Int(arguments[index + 1]), count > 0 else {
        print("--runs needs a positive number")
        exit(2)
    }
    runs = count
    arguments.removeSubrange(index...(index + 1))
}
var requests = ThroughputBenchmark.defaultRequests
if let index = arguments.firstIndex(of: "--requests") {
    guard index + 1 < arguments.count, let count = Int(arguments[index + 1]), count > 0 else {
        print("--requests needs a positive number")
        exit(2)
    }
    requests = count
    arguments.removeSubrange(index...(index + 1))
}
let sections: [(name: String, byDefault: Bool, run: () -> Bool)] = [
    ("uritemplate", true, { runURITemplateSection() }),
    ("text", true, { TextBenchmark.run() }),
    ("form", true, { FormBenchmark.run() }),
    ("json", true, { JSONBenchmark.run() }),
    ("content", true, {
        ContentBenchmark.run(ContentBenchmark.cases, runs: runs ?? (Settings.quick ? 1 : 3), title: "Content handlers", section: "content")
    }),
    ("sandbox", true, { SandboxLoad.run() }),
    ("throughput", true, { ThroughputBenchmark.run(rounds: runs ?? ThroughputBenchmark.defaultRounds, requests: requests) }),
    ("throughput-loaded", false, { LoadedThroughput.run(rounds: runs ?? LoadedThroughput.defaultRounds, requests: requests) }),
    ("throughput-instructions", false, { ThroughputInstructions.run() }),
    ("content-extra", false, {
        ContentBenchmark.run(
            ContentBenchmark.extraCases, runs: runs ?? (Settings.quick ? 1 : 3), title: "Content handlers, where the memory goes",
            section: "content-extra")
    }),
]
let unknown = arguments.filter { name in name != "all" && !sections.contains { $0.name == name } }
guard unknown.isEmpty else {
    print("unknown section \(unknown.joined(separator: ", ")); sections: \(sections.map(\.name).joined(separator: ", ")), all")
    exit(2)
}
let started = Date()
let chosen = sections.filter { arguments.contains("all") || (arguments.isEmpty ? $0.byDefault : arguments.contains($0.name)) }
print("Benchmarks: \(chosen.map(\.name).joined(separator: ", "))" + (Settings.quick ? " (--quick)" : ""))
var passed = true
for section in chosen {
    let start = Date()
    let ok = section.run()
    print(String(format: "[%@: %.0f s%@]", section.name, Date().timeIntervalSince(start), ok ? "" : ", targets missed or failures"))
    passed = ok && passed
}
if chosen.contains(where: { $0.name == "sandbox" }) { SandboxLoad.summarize() }
let summaryPassed = Results.shared.printSummary()
passed = passed && summaryPassed
print(String(format: "Total: %.0f s.", Date().timeIntervalSince(started)))
do {
    let complete = sections.allSatisfy { section in !section.byDefault || chosen.contains { $0.name == section.name } }
    let files = try Results.shared.write(sectionsRun: chosen.map(\.name), complete: complete, passed: passed, started: started)
    print("Results written to \(files.map(\.path).joined(separator: " and ")).")
} catch {
    print("The results could not be written: \(error)")
}
exit(passed ? 0 : 1)
