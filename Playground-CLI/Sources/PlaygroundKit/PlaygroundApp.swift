import Foundation
import JewzruxinSandbox

/// The `playground` executable: reads the command line, starts the embedded sandbox, and runs
/// commands until the input ends or `quit`.
///
/// - On a terminal (standard input and output both): a prompt with line editing, a history file
///   (`$JEWZRUXIN_PLAYGROUND_HISTORY`, else `~/.jewzruxin_playground_history`), colour unless `NO_COLOR` is set, a spinner while
///   requests run, and a progress bar redrawn in place.
/// - Otherwise — piped input, `-c "cmd; cmd"`, or a script file: plain output, and the exit
///   status says whether every command succeeded.
public enum PlaygroundApp {
    /// The exit status when every command succeeded.
    private static let success: Int32 = 0
    /// The exit status when a command failed (in a script or piped input).
    private static let failure: Int32 = 1
    /// The exit status for a bad command line.
    private static let usageError: Int32 = 2
    /// The exit status after Ctrl-C stopped a script.
    private static let interrupted: Int32 = 130

    /// Runs the playground with the process's environment, writing to standard output and error.
    ///
    /// - Parameter arguments: The command-line arguments, without the executable's name.
    /// - Returns: The exit status: 0 when every command succeeded, 1 when a command in a script or
    ///   piped input failed, 2 for a bad command line, and 130 after Ctrl-C stopped a script.
    public static func main(arguments: [String]) async -> Int32 {
        await main(arguments: arguments, environment: ProcessInfo.processInfo.environment, sink: StandardStreams())
    }

    /// Runs the playground.
    ///
    /// - Parameters:
    ///   - arguments: The command-line arguments, without the executable's name.
    ///   - environment: The environment (`NO_COLOR`, `TERM`, `JEWZRUXIN_PLAYGROUND_HISTORY`, `HOME`).
    ///   - sink: Where output goes.
    /// - Returns: The exit status.
    static func main(arguments: [String], environment: [String: String], sink: any OutputSink) async -> Int32 {
        let options: LaunchOptions
        do {
            options = try LaunchOptions.parse(arguments)
        } catch {
            Console(sink: sink).error(error.message)
            return usageError
        }
        switch options.action {
        case .help:
            Console(sink: sink).line(CommandHelp.commandLineUsage(version: Playground.version))
            return success
        case .version:
            Console(sink: sink).line("playground \(Playground.version)")
            return success
        case .run:
            return await run(options, environment: environment, sink: sink)
        }
    }

    private static func run(_ options: LaunchOptions, environment: [String: String], sink: any OutputSink) async -> Int32 {
        let outputIsTerminal = Terminal.isTerminal(STDOUT_FILENO)
        let interactive = !options.isBatch && Terminal.isTerminal(STDIN_FILENO) && outputIsTerminal
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        let console = Console(sink: sink, colors: outputIsTerminal && !noColor, redraws: outputIsTerminal)

        var source: any LineSource
        if !options.commands.isEmpty {
            source = ScriptLines(text: options.commands.joined(separator: "\n"))
        } else if let path = options.scriptPath {
            guard let data = FileManager.default.contents(atPath: path) else {
                console.error("cannot read the script \(path)")
                return usageError
            }
            source = ScriptLines(text: String(decoding: data, as: UTF8.self))
        } else if interactive {
            source = TerminalLineReader(console: console)
        } else {
            source = PipedLines()
        }

        let sandbox: Sandbox
        do {
            sandbox = try Sandbox.start()
        } catch {
            console.error("cannot start the sandbox: \(error)")
            return failure
        }
        defer { sandbox.stop() }

        let historyURL = History.fileURL(environment: environment)
        let playground = Playground(
            configuration: .init(
                sandboxURL: sandbox.baseURL.absoluteString, console: console, showsSpinner: interactive,
                idleInterrupt: interactive ? .ignore : .exit),
            history: interactive ? History.load(from: historyURL) : History())
        if interactive { Terminal.restoreOnTermination() }
        playground.interrupter.install()
        if !options.isBatch, !options.quiet {
            console.line(CommandHelp.welcome(version: Playground.version, baseURL: playground.baseURL))
        }

        var failed = false
        while let line = await source.nextLine(history: playground.history.entries) {
            let result = await playground.run(line: line)
            if !result.succeeded { failed = true }
            if interactive {
                try? playground.history.save(to: historyURL)
            } else if result.interrupted {
                return interrupted
            }
            if result.quit { break }
        }
        return interactive || !failed ? success : failure
    }
}
