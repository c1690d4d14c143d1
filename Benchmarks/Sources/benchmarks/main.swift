import Foundation

// Runs the benchmarks and prints a table per section:
//
//     swift run -c release --package-path Benchmarks benchmarks [section…] [--runs N]
//
// Sections: `uritemplate`, `content` (issue 5: FileWriter and Accumulator on 1 GiB), `throughput`
// (issues 6 and 8: 5,000 small GETs per client, sequential and 32 in flight, written to
// Benchmarks/results/latest.json too), `throughput-instructions` (the same clients counted in
// instructions under valgrind's callgrind, which the machine's noise doesn't move; a few minutes;
// Benchmarks/results/instructions.json) and `content-extra` (where the memory goes; slow, and some
// cases take a GB of RAM). No section: the first three. `--runs N`: runs of each content case (3 by
// default), and rounds of the throughput section (5 by default). The exit status is 1 when a case
// misses its target.

func row(_ name: String, _ rate: Double, _ note: String) -> String {
    name.padding(toLength: 42, withPad: " ", startingAt: 0)
        + String(format: "%14.0f", rate).padding(toLength: 16, withPad: " ", startingAt: 0) + note
}

func runURITemplateSection() {
    print("Benchmark (median of 5 rounds of ~1 s)".padding(toLength: 42, withPad: " ", startingAt: 0) + "ops/s           vs baseline")
    do {
        let rows = try URITemplateBenchmark.run()
        let baseline = rows.last?.1 ?? 1
        print("URI template: \(URITemplateBenchmark.text)")
        for (name, rate) in rows {
            print(row("  " + name, rate, String(format: "%.2fx", rate / baseline)))
        }
    } catch {
        print("URI template benchmark failed: \(error)")
        exit(1)
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
if arguments.first == "--serve" {
    ContentBenchmark.serve()
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
// `--requests N`: timed requests per throughput run (5,000 by default), for a quick look.
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
    ("uritemplate", true, { runURITemplateSection(); return true }),
    ("content", true, { ContentBenchmark.run(ContentBenchmark.cases, runs: runs ?? 3, title: "Content handlers") }),
    ("throughput", true, { ThroughputBenchmark.run(rounds: runs ?? ThroughputBenchmark.defaultRounds, requests: requests) }),
    ("throughput-instructions", false, { ThroughputInstructions.run() }),
    ("content-extra", false, {
        ContentBenchmark.run(ContentBenchmark.extraCases, runs: runs ?? 3, title: "Content handlers, where the memory goes")
    }),
]
let unknown = arguments.filter { name in !sections.contains { $0.name == name } }
guard unknown.isEmpty else {
    print("unknown section \(unknown.joined(separator: ", ")); sections: \(sections.map(\.name).joined(separator: ", "))")
    exit(2)
}
var passed = true
for section in sections where arguments.isEmpty ? section.byDefault : arguments.contains(section.name) {
    passed = section.run() && passed
}
exit(passed ? 0 : 1)
