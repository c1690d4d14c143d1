import Foundation
import JewzruxinTestSupport
import Testing

/// The built `playground` executable, run as a user would run it.
///
/// The executable is found, in order: at `$PLAYGROUND_EXECUTABLE`; next to the running test
/// binary (SwiftPM puts every product of a build in one directory, whatever the scratch path);
/// then in the build directories of this package (`.build*/debug`, `.build*/<triple>/debug`).
enum PlaygroundExecutable {
    /// What a run of the executable produced.
    struct Run: Sendable {
        /// The exit status (128 + the signal number when a signal ended it).
        var status: Int32
        /// Standard output and standard error together, in the order they were written.
        var output: String
        /// Standard output alone (empty when the streams were merged).
        var standardOutput: String
        /// Standard error alone (empty when the streams were merged).
        var standardError: String

        /// ``output`` with the varying parts masked (see ``PlaygroundExecutable/masked(_:)``).
        var masked: String { PlaygroundExecutable.masked(output) }
    }

    /// The executable's URL.
    static func url() throws -> URL {
        let fileManager = FileManager.default
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["PLAYGROUND_EXECUTABLE"], fileManager.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        var directories: [URL] = []
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            directories.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let scratch = (try? fileManager.contentsOfDirectory(atPath: packageRoot.path))?.filter { $0.hasPrefix(".build") }.sorted() ?? []
        for name in scratch {
            let root = packageRoot.appendingPathComponent(name)
            directories.append(root.appendingPathComponent("debug"))
            let triples = (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? []
            directories += triples.map { root.appendingPathComponent($0).appendingPathComponent("debug") }
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("playground")
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               fileManager.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw ExecutableNotFound(searched: directories.map(\.path))
    }

    struct ExecutableNotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String { "no playground executable in: " + searched.joined(separator: ", ") }
    }

    /// Runs the executable to its end.
    ///
    /// - Parameters:
    ///   - arguments: The arguments.
    ///   - input: What standard input reads (a pipe, so the executable is not on a terminal).
    ///   - directory: The working directory; a new temporary one by default.
    ///   - environment: Variables added to the test's environment.
    ///   - mergingStreams: Whether standard output and error go to one pipe, keeping their order.
    ///   - interruptAfterOutput: Text after which SIGINT is sent (0.2 s after it appears), if any.
    /// - Returns: The status and output.
    static func run(
        _ arguments: [String] = [], input: String = "", directory: URL? = nil, environment: [String: String] = [:],
        mergingStreams: Bool = true, interruptAfterOutput: String? = nil
    ) async throws -> Run {
        let executable = try url()
        let workingDirectory = try directory ?? temporaryDirectory()
        // A directory made here goes when the run ends; one passed in is the caller's to remove.
        defer { if directory == nil { removeTemporaryDirectory(workingDirectory) } }
        // A thread of its own: the run blocks for its whole length, and a blocked GCD worker on 2
        // cores stalls the delegate queues and timers of the suites running alongside.
        return try await withThrowingHandover { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try runBlocking(
                        executable, arguments, input, workingDirectory, environment, mergingStreams, interruptAfterOutput))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private static func runBlocking(
        _ executable: URL, _ arguments: [String], _ input: String, _ directory: URL, _ environment: [String: String],
        _ mergingStreams: Bool, _ interruptAfterOutput: String?
    ) throws -> Run {
        var variables = ProcessInfo.processInfo.environment
        variables["JEWZRUXIN_PLAYGROUND_HISTORY"] = directory.appendingPathComponent("history").path
        variables.merge(environment) { _, new in new }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = mergingStreams ? stdout : Pipe()
        let process = try ChildProcess(
            executable.path, arguments, environment: variables, directory: directory,
            input: stdin.fileHandleForReading.fileDescriptor, output: stdout.fileHandleForWriting.fileDescriptor,
            error: stderr.fileHandleForWriting.fileDescriptor)
        // The child has its copies: the pipes' ends end when it does.
        try stdin.fileHandleForReading.close()
        try stdout.fileHandleForWriting.close()
        if !mergingStreams { try stderr.fileHandleForWriting.close() }
        var trigger: (@Sendable (String) -> Bool)?
        if let expected = interruptAfterOutput { trigger = { $0.contains(expected) } }
        let output = PipeCollector(stdout, trigger: trigger) { _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { process.send(SIGINT) }
        }
        let errors = mergingStreams ? nil : PipeCollector(stderr)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let outputText = String(decoding: output.wait(), as: UTF8.self)
        let errorText = String(decoding: errors?.wait() ?? Data(), as: UTF8.self)
        let status = process.waitUntilExit()
        return Run(
            status: status, output: mergingStreams ? outputText : outputText + errorText,
            standardOutput: mergingStreams ? "" : outputText, standardError: errorText)
    }

    /// A new empty directory; remove it with ``removeTemporaryDirectory(_:)`` (tests leave nothing
    /// behind in the temporary directory).
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("PlaygroundTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes a directory ``temporaryDirectory()`` made, and what is in it.
    static func removeTemporaryDirectory(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// Output with what varies from run to run masked: the sandbox port (`PORT`; ephemeral ports
    /// have four or five digits, so `127.0.0.1:1` stays as it is), times
    /// (`N ms`) and transfer rates (`RATE/s`).
    static func masked(_ text: String) -> String {
        text.replacing(#/127\.0\.0\.1:\d{4,}/#, with: "127.0.0.1:PORT")
            .replacing(#/\d+ ms/#, with: "N ms")
            .replacing(#/\d+(\.\d)? (B|KiB|MiB|GiB)\/s/#, with: "RATE/s")
    }
}
