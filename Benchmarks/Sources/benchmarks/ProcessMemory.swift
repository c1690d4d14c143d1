import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// glibc's `malloc_trim`, which the Glibc module doesn't export: returns free heap pages to the system.
@_silgen_name("malloc_trim")
func glibcMallocTrim(_ pad: Int) -> Int32

/// The memory of the current process, as the kernel counts it (Linux).
enum ProcessMemory {
    /// The peak resident set size in KiB: `VmHWM` from /proc/self/status, else `ru_maxrss`.
    static var peakKiB: Int { statusField("VmHWM") ?? maxrssKiB }

    /// The resident set size now, in KiB (`VmRSS`).
    static var currentKiB: Int { statusField("VmRSS") ?? 0 }

    /// `getrusage(RUSAGE_SELF).ru_maxrss`, in KiB on Linux.
    static var maxrssKiB: Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
    }

    /// A `Name:   1234 kB` line of /proc/self/status, in KiB.
    static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }

    /// The resident set size now, in KiB, read cheaply from /proc/self/statm (for sampling).
    static func residentKiBFromStatm() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard count > 0 else { return 0 }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

/// Samples the resident set size and a queue's backlog every few milliseconds on its own thread,
/// to show when the peak happens and what was waiting then.
final class MemorySampler: Sendable {
    struct Summary: Sendable {
        /// The largest resident set size sampled, in KiB.
        var maximumRSSKiB = 0
        /// Seconds after the start when it was sampled.
        var secondsAtMaximum = 0.0
        /// The most operations seen waiting on the queue (each a `didReceive data` callback).
        var maximumBacklog = 0
        var samples = 0
    }

    private let state = Mutex(Summary())
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts sampling every `interval` seconds; `backlog` reads the queue's waiting operations.
    init(interval: TimeInterval = 0.01, backlog: @escaping @Sendable () -> Int) {
        // BENCH_NO_BACKLOG=1: don't read the queue (its count walks the queue under its lock).
        let readsBacklog = ProcessInfo.processInfo.environment["BENCH_NO_BACKLOG"] == nil
        let start = DispatchTime.now().uptimeNanoseconds
        // BENCH_TIMELINE=1: print RSS and backlog every tenth sample on stderr.
        let timeline = ProcessInfo.processInfo.environment["BENCH_TIMELINE"] != nil
        // BENCH_TRIM=1: malloc_trim(0) every tenth sample (is the growth free memory kept by malloc?).
        let trims = ProcessInfo.processInfo.environment["BENCH_TRIM"] != nil
        let thread = Thread { [self] in
            var tick = 0
            while running.load(ordering: .relaxed) {
                let rss = ProcessMemory.residentKiBFromStatm()
                let waiting = readsBacklog ? backlog() : 0
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if trims, tick % 10 == 0 { _ = glibcMallocTrim(0) }
                if timeline, tick % 10 == 0 {
                    FileHandle.standardError.write(Data(String(format: "t %.2f rss %.1f MB backlog %d\n", seconds, Double(rss) * 1024 / 1e6, waiting).utf8))
                }
                tick += 1
                state.withLock { s in
                    s.samples += 1
                    if rss > s.maximumRSSKiB { s.maximumRSSKiB = rss; s.secondsAtMaximum = seconds }
                    s.maximumBacklog = max(s.maximumBacklog, waiting)
                }
                Thread.sleep(forTimeInterval: interval)
            }
            finished.signal()
        }
        thread.name = "benchmarks memory sampler"
        thread.start()
    }

    /// Stops sampling and returns what was seen.
    func stop() -> Summary {
        running.store(false, ordering: .relaxed)
        finished.wait()
        return state.withLock { $0 }
    }
}
