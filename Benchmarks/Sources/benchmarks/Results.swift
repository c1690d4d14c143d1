import Foundation
import Synchronization

/// How long and how hard to measure: `--quick` (or `BENCH_QUICK=1`, which the parent sets for its
/// children) is a smoke run with fewer requests, smaller downloads and shorter rounds.
enum Settings {
    static let quick = CommandLine.arguments.contains("--quick") || ProcessInfo.processInfo.environment["BENCH_QUICK"] == "1"
    /// Rounds of each CPU-bound benchmark, and about how long each lasts.
    static var rounds: Int { quick ? 3 : 5 }
    static var roundSeconds: Double { quick ? 0.2 : 0.5 }
}

/// One line of the summary table printed at the end of a run, also written to the JSON file.
struct SummaryEntry: Codable, Sendable {
    var section: String
    var name: String
    /// What was measured, as printed ("1.23 M/s", "814 req/s · 1.02 CPU s/1k · 40.3 MB").
    var value: String
    /// The ratio to the baseline measured in the same run, as printed ("0.64x", "—").
    var ratio: String
    /// The baseline the ratio is against.
    var baseline: String?
    /// The target, as printed; `nil` when the row has none.
    var target: String?
    /// Whether the target was met; `nil` without a target.
    var met: Bool?
    /// The targets missed, or a note.
    var note: String?
    /// Whether a missed target fails the run (exit status 1): the acceptance rows.
    var counts: Bool

    var resultText: String {
        switch met {
        case nil: return "info"
        case true?: return counts ? "met" : "met (info)"
        case false?: return (counts ? "MISSED" : "missed (info)") + (note.map { ": " + $0 } ?? "")
        }
    }
}

/// What every section measured in this run: the summary lines and each section's own report,
/// gathered into one JSON file at the end.
final class Results: Sendable {
    static let shared = Results()

    private struct State {
        var entries: [SummaryEntry] = []
        /// Each section's report, as JSON.
        var sections: [(name: String, json: Data)] = []
        var notes: [String] = []
    }

    private let state = Mutex(State())

    func add(_ entry: SummaryEntry) {
        state.withLock { $0.entries.append(entry) }
    }

    /// A section's report, encoded now; a second report of the same section makes it an array.
    func record(_ section: String, _ report: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(report) else { return }
        state.withLock { $0.sections.append((section, data)) }
    }

    /// A line for the end of the run: something skipped, and why.
    func note(_ text: String) {
        state.withLock { $0.notes.append(text) }
    }

    var entries: [SummaryEntry] { state.withLock { $0.entries } }
    var notes: [String] { state.withLock { $0.notes } }

    // MARK: Table

    /// Prints the summary table; returns whether every counted target was met.
    func printSummary() -> Bool {
        let entries = entries
        print("")
        print("Summary" + (Settings.quick ? " (--quick: smoke run, numbers not comparable)" : ""))
        func width(_ header: String, _ column: (SummaryEntry) -> String) -> Int {
            (entries.map { column($0).count } + [header.count]).max()! + 2
        }
        let widths = (
            section: width("section") { $0.section }, name: width("benchmark") { $0.name }, value: width("value") { $0.value },
            ratio: width("vs baseline") { $0.ratio }, target: width("target") { $0.target ?? "—" })
        print(
            "section".padded(widths.section) + "benchmark".padded(widths.name) + "value".padded(widths.value)
                + "vs baseline".padded(widths.ratio) + "target".padded(widths.target) + "result")
        var lastSection = ""
        for entry in entries {
            let section = entry.section == lastSection ? "" : entry.section
            lastSection = entry.section
            print(
                section.padded(widths.section) + entry.name.padded(widths.name) + entry.value.padded(widths.value)
                    + entry.ratio.padded(widths.ratio) + (entry.target ?? "—").padded(widths.target) + entry.resultText)
        }
        let counted = entries.filter { $0.counts && $0.met != nil }
        let missed = counted.filter { $0.met == false }
        print("Targets: \(counted.count - missed.count) of \(counted.count) met"
            + (missed.isEmpty ? "." : "; missed: " + missed.map { "\($0.section) \($0.name)" }.joined(separator: "; ") + "."))
        print("\"vs baseline\": the ratio to the baseline measured in the same run (see each section's table for which);")
        print("\"(info)\" rows have a target for information only: they don't set the exit status.")
        for note in notes { print("Note: \(note)") }
        return missed.isEmpty
    }

    // MARK: File

    /// `Benchmarks/results`, beside this package's sources.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results", isDirectory: true)
    }

    /// Writes everything to a dated file in `results`, and to `results/latest.json` too when the run
    /// had every default section (`complete`), so that a run of one section doesn't replace the
    /// full one; a `--quick` run, whose numbers aren't for tracking, to `results/quick.json` alone.
    /// Returns the files written.
    func write(sectionsRun: [String], complete: Bool, passed: Bool, started: Date) throws -> [URL] {
        let (entries, sections, notes) = state.withLock { ($0.entries, $0.sections, $0.notes) }
        let date = ISO8601DateFormatter().string(from: started)
        var root: [String: Any] = [
            "date": date,
            "seconds": Date().timeIntervalSince(started),
            "command": CommandLine.arguments.joined(separator: " "),
            "quick": Settings.quick,
            "sectionsRun": sectionsRun,
            "passed": passed,
            "notes": notes,
        ]
        func object(_ value: some Encodable) -> Any? {
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            return (try? encoder.encode(value)).flatMap { try? JSONSerialization.jsonObject(with: $0, options: [.fragmentsAllowed]) }
        }
        root["machine"] = object(ThroughputBenchmark.Machine.current)
        root["summary"] = object(entries)
        var bySection: [String: [Any]] = [:]
        for (name, data) in sections {
            if let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
                bySection[name, default: []].append(value)
            }
        }
        root["sections"] = bySection.mapValues { $0.count == 1 ? $0[0] : $0 as Any }
        let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
        let directory = Self.directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [URL] = []
        if Settings.quick {
            files.append(directory.appendingPathComponent("quick.json"))
        } else {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd'T'HHmmss'Z'"
            if complete { files.append(directory.appendingPathComponent("latest.json")) }
            files.append(directory.appendingPathComponent("\(formatter.string(from: started)).json"))
        }
        for file in files { try data.write(to: file, options: .atomic) }
        return files
    }
}

/// Formatting of the summary's numbers.
enum Format {
    static func rate(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "—" }
        if value >= 1e6 { return String(format: "%.2f M\(unit)", value / 1e6) }
        if value >= 1e4 { return String(format: "%.0f k\(unit)", value / 1e3) }
        return String(format: "%.0f \(unit)", value)
    }

    static func ratio(_ value: Double?) -> String {
        value.map { String(format: "%.2fx", $0) } ?? "—"
    }
}
