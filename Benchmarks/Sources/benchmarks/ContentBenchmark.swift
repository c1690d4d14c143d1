import Foundation
import Jewzruxin

/// Content handlers on a 1 GiB download from the sandbox, against a raw URLSession data delegate
/// that writes each chunk to a FileHandle (the baseline, measured in the same run).
///
/// Peak RSS is process-wide, so every run of every case is a fresh copy of this executable
/// (`benchmarks --child <kind> <path> [server]`, see ``ContentBenchmark/runChild(_:)``) that starts
/// its own sandbox, makes one download and prints one line of JSON, a ``ChildResult``. Runs go round
/// by round (every case once, then again), so a slow spell of the machine hits all cases alike.
enum ContentBenchmark {
    /// 1 GiB; 128 MiB for `--quick`.
    static var size: Int64 { Settings.quick ? 128 << 20 : 1 << 30 }
    static var sizeText: String { size >= 1 << 30 ? "\(size >> 30) GiB" : "\(size >> 20) MiB" }
    static var path: String { "/bytes/\(size)" }
    /// The Accumulator's maximumSize.
    static let cap = 1 << 20
    /// The acceptance target for peak RSS, in MB (10^6 bytes).
    static let rssTargetMB = 64.0
    /// A child that hasn't finished after this long reports a failure and exits.
    static let childTimeout: TimeInterval = 300

    /// What a child process does.
    enum Kind: String, CaseIterable {
        /// URLSession with a data delegate writing each chunk with `FileHandle.write(contentsOf:)`.
        case urlsessionFile = "urlsession-file"
        /// HTTPCycle with `FileWriter(url:)`.
        case fileWriter = "filewriter"
        /// The same on a session with the native transport (reads paced by the writes).
        case fileWriterNative = "filewriter-native"
        /// The same on the curl transport, over https from nginx (HTTP/2), trusting its certificate.
        case fileWriterCurlHTTPS = "filewriter-curl-https"
        /// HTTPCycle with `Accumulator(maximumSize: 1 MiB)`.
        case accumulator
        /// URLSession with a data delegate that keeps up to 1 MiB and calls `task.cancel()` beyond
        /// it from inside the callback, as the library does (Content-Length checked in
        /// `didReceive response`).
        case urlsessionCancel = "urlsession-cancel"
        /// The same, with `task.cancel()` dispatched to a global queue instead.
        case urlsessionCancelAsync = "urlsession-cancel-async"
        /// URLSession with a data delegate that only counts the bytes: the floor for a data task.
        case urlsessionDiscard = "urlsession-discard"
        /// A URLSession download task: FoundationNetworking writes the file itself, on its own
        /// queue, and the delegate moves it into place.
        case urlsessionDownload = "urlsession-download"

        /// Whether the case stops at ``ContentBenchmark/cap`` (its sandbox then counts what it sends).
        var stopsAtCap: Bool { [.accumulator, .urlsessionCancel, .urlsessionCancelAsync].contains(self) }
        /// Whether the case writes the body to a file.
        var writesFile: Bool { [.urlsessionFile, .fileWriter, .fileWriterNative, .fileWriterCurlHTTPS, .urlsessionDownload].contains(self) }
    }

    /// What a case is judged on.
    enum Target {
        /// The baseline: its numbers are the reference, it has no target.
        case baseline
        /// Information only.
        case none
        /// The whole file, intact, with peak RSS ≤ 64 MB.
        case completeFile
        /// `ContentHandlerError` `.contentTooLarge`, at most 1 MiB kept, peak RSS ≤ 64 MB.
        case tooLarge
    }

    struct Case {
        let label: String
        let kind: Kind
        let path: String
        let target: Target
        /// Serve from a sandbox in another process, so the peak RSS is the client's alone.
        var separateServer = false
    }

    /// The `content` section: issue 5's acceptance.
    static let cases = [
        Case(label: "URLSession + FileHandle (baseline)", kind: .urlsessionFile, path: path, target: .baseline),
        Case(label: "FileWriter", kind: .fileWriter, path: path, target: .completeFile),
        Case(label: "FileWriter, native transport", kind: .fileWriterNative, path: path, target: .completeFile),
        Case(label: "FileWriter, curl, https from nginx", kind: .fileWriterCurlHTTPS, path: path, target: .completeFile),
        Case(label: "Accumulator(maximumSize: 1 MiB)", kind: .accumulator, path: path, target: .tooLarge),
        Case(label: "Accumulator(maximumSize: 1 MiB), chunked", kind: .accumulator, path: path + "?chunked=1", target: .tooLarge),
    ]

    /// The `content-extra` section: where the memory goes (slow; some cases take a GB of RAM).
    static let extraCases = [
        Case(label: "URLSession + FileHandle (baseline)", kind: .urlsessionFile, path: path, target: .baseline),
        Case(label: "URLSession, delegate only counts", kind: .urlsessionDiscard, path: path, target: .none),
        Case(label: "URLSession download task", kind: .urlsessionDownload, path: path, target: .none),
        Case(label: "FileWriter", kind: .fileWriter, path: path, target: .completeFile),
        Case(label: "FileWriter, sandbox in another process", kind: .fileWriter, path: path, target: .completeFile, separateServer: true),
        Case(label: "URLSession + FileHandle, sandbox elsewhere", kind: .urlsessionFile, path: path, target: .none, separateServer: true),
        Case(label: "FileWriter, chunked, 64 KiB chunks", kind: .fileWriter, path: path + "?chunked=1&chunk=65536", target: .completeFile),
        Case(label: "FileWriter, chunked, 16 KiB chunks", kind: .fileWriter, path: path + "?chunked=1&chunk=16384", target: .completeFile),
        Case(label: "FileWriter, chunked, 4 KiB chunks", kind: .fileWriter, path: path + "?chunked=1&chunk=4096", target: .completeFile),
        Case(label: "URLSession, cancel() in the callback", kind: .urlsessionCancel, path: path, target: .none),
        Case(label: "URLSession, cancel() on another queue", kind: .urlsessionCancelAsync, path: path, target: .none),
        Case(label: "URLSession, cancel() in callback, chunked", kind: .urlsessionCancel, path: path + "?chunked=1", target: .none),
        Case(label: "URLSession, cancel() elsewhere, chunked", kind: .urlsessionCancelAsync, path: path + "?chunked=1", target: .none),
    ]

    // MARK: Table

    /// Runs every case `runs` times, each in its own process, and prints the table; returns whether
    /// every case met its target in every run.
    static func run(_ cases: [Case], runs: Int, title: String, section: String) -> Bool {
        print("")
        print("\(title): \(sizeText) from the sandbox (\(path)); one fresh process per run, \(runs) run(s) per case; MB = 10^6 bytes")
        var results = Array(repeating: [ChildResult](), count: cases.count)
        var failures: [String] = []
        for round in 1...runs {
            for (index, testCase) in cases.enumerated() {
                do {
                    results[index].append(try launch(testCase))
                } catch {
                    failures.append("  \(testCase.label), run \(round): \(error)")
                }
            }
        }
        let baseline = cases.firstIndex { $0.target == .baseline }.map { results[$0] } ?? []
        let baseRSS = median(baseline.map { Double($0.peakRSSKiB) })
        let baseRate = median(baseline.compactMap(\.rate))

        print(
            "case".padded(44) + "MB/s".leftPadded(7) + "RSS MB".leftPadded(9) + "max".leftPadded(8)
                + "RSS vs base".leftPadded(13) + "MB/s vs base".leftPadded(14) + "  " + "target".padded(30) + "result")
        var allPassed = failures.isEmpty
        for (testCase, runs) in zip(cases, results) where !runs.isEmpty {
            let rate = median(runs.compactMap(\.rate))
            let rss = median(runs.map { Double($0.peakRSSKiB) })
            let verdicts = runs.map { verdict(testCase.target, $0) }
            let passed = verdicts.filter { $0 == true }.count
            let result: String
            switch testCase.target {
            case .baseline, .none: result = "—"
            case .completeFile, .tooLarge:
                result = passed == runs.count ? "PASS" : "FAIL (\(runs.count - passed) of \(runs.count) runs)"
                if passed != runs.count { allPassed = false }
            }
            print(
                ("  " + testCase.label).padded(44)
                    + (rate.map { String(format: "%.0f", $0) } ?? "—").leftPadded(7)
                    + (rss.map { String(format: "%.1f", $0 * 1024 / 1e6) } ?? "—").leftPadded(9)
                    + String(format: "%.1f", Double(runs.map(\.peakRSSKiB).max() ?? 0) * 1024 / 1e6).leftPadded(8)
                    + ratio(rss, baseRSS).leftPadded(13) + ratio(rate, baseRate).leftPadded(14)
                    + "  " + targetText(testCase.target).padded(30) + result)
            if section == "content" {
                let met: Bool? = testCase.target == .baseline || testCase.target == .none ? nil : passed == runs.count
                Results.shared.add(SummaryEntry(
                    section: section, name: "\(testCase.label), \(sizeText)",
                    value: String(format: "%.1f MB peak RSS", (rss ?? 0) * 1024 / 1e6) + (rate.map { String(format: " · %.0f MB/s", $0) } ?? ""),
                    ratio: testCase.target == .baseline ? "baseline" : ratio(rss, baseRSS) + " RSS",
                    baseline: testCase.target == .baseline ? nil : cases.first { $0.target == .baseline }?.label,
                    target: met == nil ? nil : targetText(testCase.target), met: met,
                    note: met == false ? "\(runs.count - passed) of \(runs.count) runs" : nil, counts: met != nil))
            }
        }
        struct Report: Codable {
            struct Row: Codable {
                var label: String
                var path: String
                var target: String
                var runs: [ChildResult]
            }
            var bytes: Int64
            var rssTargetMB: Double
            var cap: Int
            var rows: [Row]
            var childFailures: [String]
            var passed: Bool
        }
        Results.shared.record(section, Report(
            bytes: size, rssTargetMB: rssTargetMB, cap: cap,
            rows: zip(cases, results).map { Report.Row(label: $0.label, path: $0.path, target: targetText($0.target), runs: $1) },
            childFailures: failures, passed: allPassed && failures.isEmpty))
        print("MB/s and RSS are medians over the runs (MB/s only for complete downloads); max: the largest peak RSS.")
        print("Peak RSS: VmHWM of the child process, sandbox included unless it is in another process.")
        print("Runs:")
        for (testCase, runs) in zip(cases, results) where !runs.isEmpty {
            print("  \(testCase.label): GET \(testCase.path)")
            for (number, result) in runs.enumerated() { print(describe(result, run: number + 1)) }
        }
        for failure in failures { print("child failed: \(failure)") }
        return allPassed
    }

    static func targetText(_ target: Target) -> String {
        switch target {
        case .baseline, .none: "—"
        case .completeFile: "≤ 64 MB, \(sizeText) file intact"
        case .tooLarge: "contentTooLarge, ≤ 64 MB"
        }
    }

    /// Whether a run met the target; `nil` when there is none.
    static func verdict(_ target: Target, _ result: ChildResult) -> Bool? {
        let underTarget = Double(result.peakRSSKiB) * 1024 / 1e6 <= rssTargetMB
        switch target {
        case .baseline, .none:
            return nil
        case .completeFile:
            return underTarget && result.error == nil && result.fileSize == size && result.patternOK == true
                && result.leftovers.isEmpty
        case .tooLarge:
            return underTarget && result.errorCode == ContentHandlerError.Code.contentTooLarge.rawValue
                && result.bytes <= Int64(cap) && result.leftovers.isEmpty
        }
    }

    /// One line (two for a failure at the cap) about a run.
    static func describe(_ r: ChildResult, run: Int) -> String {
        func mb(_ kib: Int) -> String { String(format: "%.1f", Double(kib) * 1024 / 1e6) }
        var line = "    \(run): "
        if let rate = r.rate {
            line += String(format: "%.0f MB/s, %.2f s", rate, r.seconds)
        } else {
            line += String(format: "ended after %.1f ms", r.seconds * 1000)
        }
        line += "; peak \(mb(r.peakRSSKiB)) MB (start \(mb(r.startRSSKiB)), end \(mb(r.endRSSKiB)))"
        line += "; most chunks queued for the delegate: \(r.maximumBacklog)"
        if let size = r.fileSize { line += "; file \(size) B, pattern \(r.patternOK == true ? "ok" : "WRONG")" }
        if r.kind == Kind.urlsessionDiscard.rawValue { line += "; \(r.bytes) B counted" }
        if !r.leftovers.isEmpty { line += "; LEFT BEHIND: \(r.leftovers.joined(separator: ", "))" }
        if let server = r.serverPeakRSSKiB { line += "; sandbox process peak \(mb(server)) MB" }
        guard let error = r.error else { return line }
        if !Kind(rawValue: r.kind).map(\.stopsAtCap)! {
            return line + "\n       error: \(error)"
        }
        var second = "       "
        if let code = r.errorCode { second += "ContentHandlerError .\(code == "content too large" ? "contentTooLarge" : code)" }
        else { second += error }
        second += "; kept \(r.bytes) B (\(r.offeredBytes ?? 0) offered)"
        if let threw = r.secondsUntilHandlerThrew {
            let what = r.kind == Kind.accumulator.rawValue ? "the handler threw" : "the delegate cancelled"
            second += String(format: "; \(what) at %.1f ms", threw * 1000)
        }
        if let returned = r.cancelReturnedSeconds { second += String(format: ", cancel() returned at %.1f ms", returned * 1000) }
        if let sent = r.serverSent {
            second += String(format: "; the sandbox sent %.1f MB", Double(sent) / 1e6)
            if let later = r.serverSentOneSecondLater, later != sent { second += String(format: " (%.1f MB 1 s later)", Double(later) / 1e6) }
            second += ", open connections 1 s later: \(r.openConnectionsOneSecondLater ?? -1)"
        }
        return line + "\n" + second
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func ratio(_ value: Double?, _ base: Double?) -> String {
        guard let value, let base, base > 0 else { return "—" }
        return String(format: "%.2fx", value / base)
    }

    // MARK: Children

    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Runs one case in a child process (and its sandbox in another one if asked).
    static func launch(_ testCase: Case) throws -> ChildResult {
        if testCase.kind == .fileWriterCurlHTTPS {
            guard let nginx = ExternalTools.nginx else {
                throw BenchmarkError(description: "nginx not installed (\(ExternalTools.installHint))")
            }
            let server = try NginxServer(executable: nginx, tls: true)
            defer { server.stop() }
            try server.addPatternFile(testCase.path, size: size)
            return try launchChild(
                ["--child", testCase.kind.rawValue, testCase.path, server.baseURL],
                environment: ["BENCH_CA_FILE": server.certificateFile?.path ?? ""])
        }
        guard testCase.separateServer else {
            return try launchChild(["--child", testCase.kind.rawValue, testCase.path])
        }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = ["--serve"]
        let input = Pipe()
        let output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        try server.run()
        defer {
            try? input.fileHandleForWriting.close()
            server.waitUntilExit()
        }
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw BenchmarkError(description: "the sandbox process gave no URL") }
            text.append(more)
        }
        let baseURL = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var result = try launchChild(["--child", testCase.kind.rawValue, testCase.path, baseURL])
        try input.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        if let line = String(decoding: rest, as: UTF8.self).split(separator: "\n").last,
           let served = try? JSONDecoder().decode(ServerResult.self, from: Data(line.utf8)) {
            result.serverPeakRSSKiB = served.peakRSSKiB
        }
        return result
    }

    /// Runs this executable with `arguments` and decodes the JSON line it prints last.
    static func launchChild(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
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
        return try JSONDecoder().decode(ChildResult.self, from: Data(line.utf8))
    }
}

/// What a child measured, printed as one line of JSON.
struct ChildResult: Codable {
    var kind: String
    var path: String
    /// Bytes the consumer took: written to the file, counted, or kept by the accumulator.
    var bytes: Int64 = 0
    /// Bytes offered to the accumulator, the refused chunk included.
    var offeredBytes: Int64?
    /// The size of the file at the destination, when one is written.
    var fileSize: Int64?
    /// Whether the first and last MiB of the file hold the sandbox's pattern.
    var patternOK: Bool?
    /// From the start of the request to the end of the cycle or task.
    var seconds: Double = 0
    /// VmHWM, in KiB (read before the file is checked).
    var peakRSSKiB = 0
    /// getrusage's ru_maxrss, in KiB.
    var maxrssKiB = 0
    /// VmRSS before the request (sandbox started), in KiB.
    var startRSSKiB = 0
    /// VmRSS at the end, in KiB.
    var endRSSKiB = 0
    /// Sampled every 10 ms: the largest RSS and when, and the most `didReceive data` callbacks
    /// waiting on the URLSession delegate queue (a lower bound: bursts between samples are missed).
    var sampledMaxRSSKiB = 0
    var secondsAtSampledMax = 0.0
    var maximumBacklog = 0
    var error: String?
    var errorType: String?
    /// `ContentHandlerError.code`, when the error is one.
    var errorCode: String?
    /// Seconds from the start until the handler threw, or the delegate decided to cancel.
    var secondsUntilHandlerThrew: Double?
    /// Seconds from the start until `task.cancel()` returned (raw URLSession cases).
    var cancelReturnedSeconds: Double?
    /// Body bytes the sandbox handed to its socket when the cycle ended, and one second later.
    var serverSent: Int64?
    var serverSentOneSecondLater: Int64?
    var openConnectionsOneSecondLater: Int?
    /// Files left in the child's temporary directory (partial files).
    var leftovers: [String] = []
    /// The peak RSS of the sandbox process, when it ran in another one (filled in by the parent).
    var serverPeakRSSKiB: Int?

    /// MB/s for a complete download.
    var rate: Double? {
        error == nil && seconds > 0 && bytes > 0 ? Double(bytes) / 1e6 / seconds : nil
    }
}

/// What `benchmarks --serve` prints when its stdin closes.
struct ServerResult: Codable {
    var startRSSKiB: Int
    var peakRSSKiB: Int
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    func padded(_ width: Int) -> String {
        padding(toLength: max(width, count), withPad: " ", startingAt: 0)
    }
}
