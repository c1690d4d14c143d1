import Foundation
import JewzruxinTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `playground` executable on a pseudo-terminal: the prompt, line editing, history and
/// colour, and the terminal's settings put back at the end.
///
/// Opt-in (`JEWZRUXIN_PTY_TESTS=1 swift test --filter InteractiveTerminalTests`): under the full
/// parallel suite on 2 cores the prompt test is timing-sensitive and has hung; kept out of the default
/// run until it waits on events only.
@Suite(
    "playground executable on a terminal",
    .enabled(if: PseudoTerminal.isAvailable && ProcessInfo.processInfo.environment["JEWZRUXIN_PTY_TESTS"] == "1")
)
struct InteractiveTerminalTests {
    private func runInteractive(environment: [String: String] = [:], _ session: (PseudoTerminal) async throws -> Void)
        async throws -> (status: Int32, output: String, history: String?, modesBefore: tcflag_t, modesAfter: tcflag_t) {
        let terminal = try PseudoTerminal()
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let historyFile = directory.appendingPathComponent("history")
        var variables = ProcessInfo.processInfo.environment
        variables["JEWZRUXIN_PLAYGROUND_HISTORY"] = historyFile.path
        variables["TERM"] = "xterm"
        variables.removeValue(forKey: "NO_COLOR")
        variables.merge(environment) { _, new in new }
        let modesBefore = terminal.localModes
        let process = try ChildProcess(
            try PlaygroundExecutable.url().path, environment: variables, directory: directory,
            input: terminal.secondary, output: terminal.secondary, error: terminal.secondary)
        terminal.startReading()
        try await session(terminal)
        // Blocking waits go to a thread of their own: on 2 cores, a blocked cooperative thread or GCD
        // worker starves the other suites' tasks and timers.
        let (status, modesAfter) = await withHandover { (continuation: Handover<(Int32, tcflag_t), Never>) in
            Thread.detachNewThread {
                let status = process.waitUntilExit()
                let modes = terminal.localModes
                close(terminal.secondary)
                terminal.waitForEnd()
                close(terminal.primary)
                continuation.resume(returning: (status, modes))
            }
        }
        return (status, terminal.text, try? String(contentsOf: historyFile, encoding: .utf8), modesBefore, modesAfter)
    }

    @Test("a prompt with line editing, history kept in the dotfile, colour; Ctrl-D leaves and the terminal is restored")
    func session() async throws {
        let run = try await runInteractive { terminal in
            try await terminal.waitFor("quit or Ctrl-D leaves.")
            terminal.type("GET /hel")
            terminal.type("lo/\r")
            try await terminal.waitFor("11 bytes")
            terminal.type("tex\u{03}")       // Ctrl-C clears the line
            terminal.type("TEXT\u{1B}[D\u{1B}[D\u{7F}\u{7F}\u{01}\u{0B}text\r")  // edits, Ctrl-A, Ctrl-K
            try await terminal.waitFor("Hello World")
            terminal.type("\u{1B}[A\u{1B}[A\r")  // up twice: GET /hello/ again
            try await terminal.waitFor("11 bytes", count: 2)
            terminal.type("\u{04}")  // Ctrl-D
        }

        #expect(run.status == 0)
        #expect(run.history == "GET /hello/\ntext\nGET /hello/\n")
        #expect(run.output.contains("\u{1B}[32m200 OK\u{1B}[0m"))
        #expect(run.output.contains("\r\u{1B}[36m>\u{1B}[0m GET /hello/\u{1B}[K"))
        #expect(run.output.contains("\r\nHello World\r\n"))
        #expect(run.modesBefore & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO))
        #expect(run.modesAfter == run.modesBefore)
    }

    @Test("NO_COLOR turns colour off on a terminal; quit leaves")
    func noColor() async throws {
        let run = try await runInteractive(environment: ["NO_COLOR": "1"]) { terminal in
            try await terminal.waitFor("\r> ")
            terminal.type("GET /status/404\rquit\r")
        }

        #expect(run.status == 0)
        #expect(run.output.contains("\r\n404 Not Found  "))
        #expect(!run.output.contains("\u{1B}[3"))
        #expect(run.modesAfter == run.modesBefore)
    }
}
