import Foundation

/// The throughput section's clients counted in instructions rather than seconds: each runs under
/// `valgrind --tool=callgrind` twice, with ``small`` and ``large`` timed requests, and the difference
/// divided by the difference in requests is what one request costs in user space, start-up and
/// warm-up cancelled out. Unlike seconds, the counts barely move from one run to the next (1–2%,
/// from timing-dependent paths in libcurl and Dispatch) whatever else the machine does, so they show
/// overheads that the shared machine's noise hides in the `throughput` section (kernel time and
/// waits are not counted: they stay that section's business).
///
/// Also counted per request, from the calls callgrind records: allocations (`malloc`, `calloc`,
/// `realloc`), operations run by Foundation's `OperationQueue` (each a hop from one queue to
/// another), and `NSLock` acquisitions (corelibs' `OperationQueue` takes dozens per operation).
/// Sequential requests only: 32 in flight costs the same per request (checked by hand: within 1%).
enum ThroughputInstructions {
    static let small = 1_000
    static let large = 3_000
    static let warmUp = 200

    /// What callgrind counted in one child.
    struct Profile: Codable {
        var instructions = 0
        var allocations = 0
        var operations = 0
        var locks = 0
    }

    /// What one request costs with one client.
    struct Row: Codable {
        var client: ThroughputBenchmark.Client
        var label: String
        var instructions: Double
        var instructionsRatio: Double?
        var allocations: Double
        var operations: Double
        var locks: Double
    }

    static let mallocs: Set<Substring> = ["malloc", "calloc", "realloc"]
    /// `OperationQueue._schedule(_:)` runs each operation once; `NSLock.lock()`.
    static let schedule = "$s10Foundation14OperationQueueC9_scheduleyyAA0B0CF"
    static let lock = "$s10Foundation6NSLockC4lockyyF"

    static func run() -> Bool {
        print("")
        print("Throughput in instructions: each client under callgrind with \(small) and \(large) sequential GETs of \(ThroughputBenchmark.path)")
        print("(after \(warmUp) to warm up); per request = the difference / \(large - small). User-space instructions only.")
        guard ThroughputBenchmark.Machine.command(["valgrind", "--version"]) != nil else {
            print("valgrind is not installed (apt-get install -y valgrind)")
            return false
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("jewzruxin-callgrind-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // valgrind 3.19 gives up on the DWARF 5 that Swift writes: a copy without it keeps the symbols.
        let stripped = directory.appendingPathComponent("benchmarks")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        } catch {
            print("no temporary directory: \(error)")
            return false
        }
        guard ThroughputBenchmark.Machine.command(["objcopy", "--strip-debug", ContentBenchmark.executable, stripped.path]) != nil else {
            print("objcopy --strip-debug failed (binutils)")
            return false
        }
        let server: SandboxProcess
        do {
            server = try SandboxProcess()
        } catch {
            print("the sandbox process didn't start: \(error)")
            return false
        }
        var rows: [Row] = []
        var failures: [String] = []
        for client in ThroughputBenchmark.Client.allCases {
            do {
                let few = try profile(client, requests: small, binary: stripped, server: server.baseURL, directory: directory)
                let many = try profile(client, requests: large, binary: stripped, server: server.baseURL, directory: directory)
                let count = Double(large - small)
                rows.append(Row(
                    client: client, label: client.label, instructions: Double(many.instructions - few.instructions) / count,
                    allocations: Double(many.allocations - few.allocations) / count,
                    operations: Double(many.operations - few.operations) / count, locks: Double(many.locks - few.locks) / count))
            } catch {
                failures.append("  \(client.label): \(error)")
            }
        }
        _ = server.stop()
        let base = rows.first { $0.client == .urlsession }?.instructions
        for index in rows.indices { rows[index].instructionsRatio = base.map { rows[index].instructions / $0 } }
        print(
            "client".padded(42) + "instr./req".leftPadded(12) + "vs raw".leftPadded(8) + "allocs".leftPadded(8)
                + "OpQueue ops".leftPadded(13) + "NSLocks".leftPadded(9))
        for row in rows {
            print(
                ("  " + row.label).padded(42) + String(format: "%.0f", row.instructions).leftPadded(12)
                    + ThroughputBenchmark.format(row.instructionsRatio, "%.2fx").leftPadded(8)
                    + String(format: "%.0f", row.allocations).leftPadded(8) + String(format: "%.1f", row.operations).leftPadded(13)
                    + String(format: "%.0f", row.locks).leftPadded(9))
        }
        print("allocs: malloc + calloc + realloc; OpQueue ops: operations OperationQueue ran (queue hops); NSLocks: NSLock.lock() calls.")
        for failure in failures { print("child failed: \(failure)") }
        struct Report: Codable {
            var date: String
            var machine: ThroughputBenchmark.Machine
            var small: Int
            var large: Int
            var warmUp: Int
            var rows: [Row]
            var childFailures: [String]
        }
        let report = Report(
            date: ISO8601DateFormatter().string(from: Date()), machine: .current, small: small, large: large, warmUp: warmUp,
            rows: rows, childFailures: failures)
        let file = Results.directory.appendingPathComponent("instructions.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(report).write(to: file, options: .atomic)
            print("Results written to \(file.path).")
        } catch {
            print("The results could not be written: \(error)")
        }
        return failures.isEmpty
    }

    /// Runs one child under callgrind and reads its output file.
    static func profile(
        _ client: ThroughputBenchmark.Client, requests: Int, binary: URL, server: String, directory: URL
    ) throws -> Profile {
        let output = directory.appendingPathComponent("callgrind.\(client.rawValue).\(requests)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=\(output.path)", binary.path,
            "--throughput-child", client.rawValue, "1", server, String(requests), String(warmUp),
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let result = try? JSONDecoder().decode(ThroughputResult.self, from: Data(line.utf8)),
              result.failures == 0, result.error == nil
        else {
            throw BenchmarkError(description: "valgrind exit status \(process.terminationStatus), child said: \(text)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        return try parse(output)
    }

    /// The total instructions and the calls into the functions counted, from a callgrind file
    /// (function names are compressed: `(12) name` the first time, `(12)` afterwards).
    static func parse(_ file: URL) throws -> Profile {
        let text = try String(contentsOf: file, encoding: .utf8)
        var names: [Substring: Substring] = [:]
        var callee: Substring = ""
        var profile = Profile()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("cfn=") {
                let name = line.dropFirst(4)
                if name.hasPrefix("("), let close = name.firstIndex(of: ")") {
                    let id = name[..<close]
                    let rest = name[name.index(after: close)...].drop { $0 == " " }
                    if !rest.isEmpty { names[id] = rest }
                    callee = names[id] ?? ""
                } else {
                    callee = name
                }
            } else if line.hasPrefix("fn=") {
                let name = line.dropFirst(3)
                if name.hasPrefix("("), let close = name.firstIndex(of: ")") {
                    let rest = name[name.index(after: close)...].drop { $0 == " " }
                    if !rest.isEmpty { names[name[..<close]] = rest }
                }
            } else if line.hasPrefix("calls=") {
                let count = line.dropFirst(6).split(separator: " ").first.flatMap { Int($0) } ?? 0
                if mallocs.contains(callee) { profile.allocations += count }
                else if callee == schedule { profile.operations += count }
                else if callee == lock { profile.locks += count }
            } else if line.hasPrefix("totals:") || line.hasPrefix("summary:") {
                profile.instructions = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            }
        }
        return profile
    }
}
