import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin
import JewzruxinSandbox
import Synchronization

// The child side of the content benchmark: one download per process.
//
// Diagnostics, through the environment: BENCH_TIMELINE=1 prints RSS and the delegate queue's backlog
// every 100 ms on stderr; BENCH_SMAPS=1 prints the mappings holding the most memory at the end;
// BENCH_TRIM=1 calls malloc_trim(0) every 100 ms; BENCH_NO_BACKLOG=1 doesn't read the backlog.

extension ContentBenchmark {
    /// `benchmarks --child <kind> <path> [server]`: runs one case in this process, prints its
    /// result as one line of JSON and exits. Without `server` the process starts its own sandbox.
    static func runChild(_ arguments: [String]) -> Never {
        guard (2...3).contains(arguments.count), let kind = Kind(rawValue: arguments[0]) else {
            let kinds = Kind.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: benchmarks --child \(kinds) /path [http://server]\n".utf8))
            exit(2)
        }
        let path = arguments[1]
        let server = arguments.count == 3 ? arguments[2] : nil
        var result = ChildResult(kind: kind.rawValue, path: path)
        let watchdogResult = result
        DispatchQueue.global().asyncAfter(deadline: .now() + childTimeout) {
            var timedOut = watchdogResult
            timedOut.error = "no result after \(childTimeout) s"
            timedOut.peakRSSKiB = ProcessMemory.peakKiB
            emit(timedOut)
            exit(3)
        }
        do {
            try runCase(kind, path: path, server: server, into: &result)
        } catch {
            result.error = "setup failed: \(error)"
        }
        emit(result)
        exit(0)
    }

    /// `benchmarks --serve`: starts a sandbox, prints its base URL, serves until stdin closes, then
    /// prints its own start and peak RSS as JSON (to split a download's memory between the sides).
    static func serve() -> Never {
        do {
            let sandbox = try Sandbox.start()
            ThroughputBenchmark.addRoutes(to: sandbox)
            let start = ProcessMemory.currentKiB
            FileHandle.standardOutput.write(Data((sandbox.baseURL.absoluteString + "\n").utf8))
            _ = FileHandle.standardInput.readDataToEndOfFile()
            let result = ServerResult(startRSSKiB: start, peakRSSKiB: ProcessMemory.peakKiB)
            sandbox.stop()
            FileHandle.standardOutput.write(((try? JSONEncoder().encode(result)) ?? Data()) + Data("\n".utf8))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("the sandbox didn't start: \(error)\n".utf8))
            exit(1)
        }
    }

    static func emit(_ result: ChildResult) {
        let data = (try? JSONEncoder().encode(result)) ?? Data("{\"error\":\"unencodable\"}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// - Parameter server: The base URL of a sandbox in another process, or `nil` to start one here.
    static func runCase(_ kind: Kind, path: String, server: String?, into result: inout ChildResult) throws {
        let sandbox = server == nil ? try Sandbox.start() : nil
        defer { sandbox?.stop() }
        let sent = ByteCounter()
        if kind.stopsAtCap, let sandbox { serveCountedBytes(on: sandbox, counter: sent) }
        guard let url = sandbox?.url(path) ?? URL(string: (server ?? "") + path) else {
            throw BenchmarkError(description: "bad path \(path)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("jewzruxin-benchmarks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("download.bin")

        result.startRSSKiB = ProcessMemory.currentKiB
        let outcome: Outcome
        switch kind {
        case .urlsessionFile: outcome = rawDataTask(url, delegate: FileHandleDelegate(destination: destination))
        case .fileWriter: outcome = cycleDownload(url, handler: FileWriter(url: destination))
        case .fileWriterNative: outcome = cycleDownload(url, handler: FileWriter(url: destination), native: true)
        case .fileWriterCurlHTTPS:
            var configuration = HTTPSession.Configuration()
            if let file = ThroughputBenchmark.trustedCAFile {
                configuration.tls.additionalTrustedCertificates = [.file(URL(fileURLWithPath: file))]
            }
            let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl)
            outcome = cycleDownload(url, handler: FileWriter(url: destination), session: session)
        case .accumulator: outcome = cycleDownload(url, handler: ProbedAccumulator(maximumSize: cap))
        case .urlsessionCancel: outcome = rawDataTask(url, delegate: CappedDelegate(cap: cap, cancelsElsewhere: false))
        case .urlsessionCancelAsync: outcome = rawDataTask(url, delegate: CappedDelegate(cap: cap, cancelsElsewhere: true))
        case .urlsessionDiscard: outcome = rawDataTask(url, delegate: CountingDelegate())
        case .urlsessionDownload: outcome = rawDataTask(url, delegate: CountingDelegate(destination: destination), download: true)
        }
        result.bytes = outcome.bytes
        result.offeredBytes = outcome.offered
        result.seconds = outcome.seconds
        result.secondsUntilHandlerThrew = outcome.secondsUntilStop
        result.cancelReturnedSeconds = outcome.cancelReturned
        result.sampledMaxRSSKiB = outcome.sampled.maximumRSSKiB
        result.secondsAtSampledMax = outcome.sampled.secondsAtMaximum
        result.maximumBacklog = outcome.sampled.maximumBacklog
        if let error = outcome.error {
            result.error = String(describing: error)
            result.errorType = String(reflecting: type(of: error))
            result.errorCode = (error as? ContentHandlerError)?.code.rawValue
        }
        if kind.stopsAtCap, let sandbox {
            result.serverSent = sent.value.load(ordering: .relaxed)
            Thread.sleep(forTimeInterval: 1)
            result.serverSentOneSecondLater = sent.value.load(ordering: .relaxed)
            result.openConnectionsOneSecondLater = sandbox.openConnectionCount
        }
        // The peak before the checks below read the file.
        result.peakRSSKiB = ProcessMemory.peakKiB
        result.maxrssKiB = ProcessMemory.maxrssKiB
        if kind.writesFile {
            let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path)
            result.fileSize = (attributes?[.size] as? NSNumber)?.int64Value
            result.patternOK = checkPattern(destination, size: result.fileSize ?? 0)
            try? FileManager.default.removeItem(at: destination)
        }
        if ProcessInfo.processInfo.environment["BENCH_SMAPS"] != nil { printLargestMappings() }
        result.leftovers = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        result.endRSSKiB = ProcessMemory.currentKiB
    }

    /// Serves `/bytes/N` as the built-in endpoint does (same headers, body and framing, `chunked`
    /// and `chunk` included), counting the body bytes handed to the socket.
    static func serveCountedBytes(on sandbox: Sandbox, counter: ByteCounter) {
        sandbox.route("/bytes/*") { request in
            guard let count = request.path.split(separator: "/").last.flatMap({ Int64($0) }) else {
                return .error(400, "/bytes/N needs N")
            }
            let body = SandboxBody(count: count) { offset, length in
                counter.value.store(offset + Int64(length), ordering: .relaxed)
                return SandboxBody.expectedPattern(offset: offset, count: length)
            }
            var response = SandboxResponse(headers: ["Content-Type": "application/octet-stream"], body: body)
            if ["1", "true", "yes"].contains(request.queryValue("chunked")?.lowercased() ?? "") {
                response.transferEncoding = .chunked(chunkSize: request.queryValue("chunk").flatMap { Int($0) } ?? 16 << 10)
            }
            return response
        }
    }

    /// Whether the first and last MiB of the file are the sandbox's pattern.
    static func checkPattern(_ url: URL, size: Int64) -> Bool {
        guard size > 0, let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let span = Int(min(size, 1 << 20))
        for offset in [Int64(0), size - Int64(span)] {
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let data = try? handle.read(upToCount: span),
                  data == SandboxBody.expectedPattern(offset: offset, count: span)
            else { return false }
        }
        return true
    }

    /// BENCH_SMAPS=1: the mappings holding the most resident memory, on stderr.
    static func printLargestMappings() {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"), let data = try? handle.readToEnd() else { return }
        var mappings: [(String, Int)] = []
        var current = ""
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.first?.isHexDigit == true, line.contains("-") {
                current = String(line)
            } else if line.hasPrefix("Rss:") {
                let kib = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                mappings.append((current, kib))
            }
        }
        let total = mappings.reduce(0) { $0 + $1.1 }
        var lines = ["resident \(total) KiB in \(mappings.count) mappings; largest:"]
        for (name, kib) in mappings.sorted(by: { $0.1 > $1.1 }).prefix(10) { lines.append("  \(kib) KiB  \(name)") }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    struct Outcome {
        var bytes: Int64
        var offered: Int64?
        var seconds: Double
        var error: (any Error)?
        var secondsUntilStop: Double?
        var cancelReturned: Double?
        var sampled: MemorySampler.Summary
    }

    /// One HTTPCycle on its own session (URLSession, or the native transport); its completion
    /// handler runs on a private queue.
    static func cycleDownload(_ url: URL, handler: any ContentHandler, native: Bool = false, session: HTTPSession? = nil) -> Outcome {
        let session = session ?? HTTPSession(delegateQueue: OperationQueue(), transport: native ? .native : nil)
        session.networkActivityIndicator = nil
        let networkQueue = session.core?.delegateQueue
        let sampler = MemorySampler { networkQueue?.operationCount ?? 0 }
        let cycle = HTTPCycle(requestURL: url, session: session)
        cycle.contentHandler = handler
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        (handler as? ProbedAccumulator)?.start = start
        cycle.start { _, error in
            failure.withLock { $0 = error }
            done.signal()
        }
        done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let sampled = sampler.stop()
        let probe = handler as? ProbedAccumulator
        return Outcome(
            bytes: (handler as? FileWriter)?.bytesWritten ?? probe?.accepted ?? 0, offered: probe?.offered,
            seconds: seconds, error: failure.withLock { $0 }, secondsUntilStop: probe?.secondsUntilThrow, sampled: sampled)
    }

    /// One URLSession task (a data task, or a download task) with `delegate` on a serial queue,
    /// like HTTPSession's network queue.
    static func rawDataTask(_ url: URL, delegate: some RawDelegate, download: Bool = false) -> Outcome {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
        let sampler = MemorySampler { queue.operationCount }
        let start = DispatchTime.now().uptimeNanoseconds
        delegate.start = start
        (download ? session.downloadTask(with: url) as URLSessionTask : session.dataTask(with: url)).resume()
        delegate.done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let sampled = sampler.stop()
        session.finishTasksAndInvalidate()
        var outcome = delegate.outcome
        outcome.seconds = seconds
        outcome.sampled = sampled
        return outcome
    }
}

/// A delegate for ``ContentBenchmark/rawDataTask(_:delegate:download:)``.
protocol RawDelegate: URLSessionDataDelegate, Sendable {
    var start: UInt64 { get set }
    var done: DispatchSemaphore { get }
    /// What happened; the parent fills in the time and memory.
    var outcome: ContentBenchmark.Outcome { get }
}

/// Writes each chunk to a FileHandle as it arrives, nothing else: the baseline.
final class FileHandleDelegate: NSObject, RawDelegate {
    struct State {
        var start: UInt64 = 0
        var handle: FileHandle?
        var bytes: Int64 = 0
        var error: (any Error)?
    }

    let destination: URL
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    init(destination: URL) {
        self.destination = destination
    }

    var start: UInt64 {
        get { state.withLock { $0.start } }
        set { state.withLock { $0.start = newValue } }
    }

    var outcome: ContentBenchmark.Outcome {
        state.withLock { ContentBenchmark.Outcome(bytes: $0.bytes, seconds: 0, error: $0.error, sampled: .init()) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let handle = FileHandle(forWritingAtPath: destination.path)
        state.withLock { $0.handle = handle }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { s in
            do {
                try s.handle?.write(contentsOf: data)
                s.bytes += Int64(data.count)
            } catch {
                s.error = error
                dataTask.cancel()
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { s in
            try? s.handle?.close()
            s.handle = nil
            if s.error == nil { s.error = error }
        }
        done.signal()
    }
}

/// Counts the bytes of a data task; or, for a download task, the bytes written, and moves the file.
final class CountingDelegate: NSObject, RawDelegate, URLSessionDownloadDelegate {
    struct State {
        var start: UInt64 = 0
        var bytes: Int64 = 0
        var error: (any Error)?
    }

    let destination: URL?
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    init(destination: URL? = nil) {
        self.destination = destination
    }

    var start: UInt64 {
        get { state.withLock { $0.start } }
        set { state.withLock { $0.start = newValue } }
    }

    var outcome: ContentBenchmark.Outcome {
        state.withLock { ContentBenchmark.Outcome(bytes: $0.bytes, seconds: 0, error: $0.error, sampled: .init()) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.bytes += Int64(data.count) }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        state.withLock { $0.bytes = totalBytesWritten }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let destination else { return }
        do {
            try FileManager.default.moveItem(at: location, to: destination)
        } catch {
            state.withLock { $0.error = error }
            try? FileManager.default.removeItem(at: location)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { if $0.error == nil { $0.error = error } }
        done.signal()
    }
}

/// Keeps the body in memory up to a cap and cancels the task beyond it, as the library does:
/// `task.cancel()` from inside the callback, or dispatched to a global queue.
final class CappedDelegate: NSObject, RawDelegate {
    struct State {
        var start: UInt64 = 0
        var data = Data()
        var offered: Int64 = 0
        var cancelled = false
        var secondsUntilCancel: Double?
        var cancelReturned: Double?
        var capError: (any Error)?
        var transportError: (any Error)?
    }

    let cap: Int
    let cancelsElsewhere: Bool
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    init(cap: Int, cancelsElsewhere: Bool) {
        self.cap = cap
        self.cancelsElsewhere = cancelsElsewhere
    }

    var start: UInt64 {
        get { state.withLock { $0.start } }
        set { state.withLock { $0.start = newValue } }
    }

    var outcome: ContentBenchmark.Outcome {
        state.withLock { s in
            ContentBenchmark.Outcome(
                bytes: Int64(s.data.count), offered: s.offered, seconds: 0, error: s.capError ?? s.transportError,
                secondsUntilStop: s.secondsUntilCancel, cancelReturned: s.cancelReturned, sampled: .init())
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let announced = response.expectedContentLength
        if announced > cap { cancelOutsideLock(dataTask, "Content-Length \(announced)") }
        completionHandler(.allow)  // L1: .cancel would be ignored
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.offered += Int64(data.count)
            if s.data.count + data.count > cap { return true }
            s.data.append(data)
            return false
        }
        if over { cancelOutsideLock(dataTask, "more than \(cap) bytes") }
    }

    /// Records the decision under the lock, then cancels outside it (cancel() may block).
    private func cancelOutsideLock(_ task: URLSessionTask, _ reason: String) {
        let proceed = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.cancelled = true
            s.data = Data()
            s.secondsUntilCancel = Double(DispatchTime.now().uptimeNanoseconds - s.start) / 1e9
            s.capError = BenchmarkError(description: "cancelled: \(reason)")
            return true
        }
        guard proceed else { return }
        let start = start
        let cancel: @Sendable () -> Void = { [self] in
            task.cancel()
            let returned = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            state.withLock { $0.cancelReturned = returned }
        }
        if cancelsElsewhere { DispatchQueue.global().async(execute: cancel) } else { cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.transportError = error }
        done.signal()
    }
}

/// An Accumulator that counts the bytes offered to it and notes when it first threw.
final class ProbedAccumulator: Accumulator, @unchecked Sendable {
    var start: UInt64 = 0
    private(set) var offered: Int64 = 0
    private(set) var accepted: Int64 = 0
    private(set) var secondsUntilThrow: Double?

    override func prepare(for response: HTTPResponse) throws {
        do { try super.prepare(for: response) } catch { noteThrow(); throw error }
    }

    override func append(_ chunk: Data) throws {
        offered += Int64(chunk.count)
        do { try super.append(chunk) } catch { noteThrow(); throw error }
        accepted += Int64(chunk.count)
    }

    private func noteThrow() {
        if secondsUntilThrow == nil {
            secondsUntilThrow = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
    }
}

/// Body bytes the sandbox has handed out, shared with its route handler.
final class ByteCounter: Sendable {
    let value = Atomic<Int64>(0)
}
