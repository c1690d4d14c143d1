import Foundation
@testable import Jewzruxin
import Testing
@testable import PlaygroundKit

/// What is drawn on a terminal (a console that redraws lines) and what is printed elsewhere.
@Suite("Console, DownloadProgress and Spinner")
struct TerminalOutputTests {
    @Test("error lines go to standard error; colours only when asked")
    func console() {
        let output = CapturedOutput()
        let plain = Console(sink: output)
        let colored = Console(sink: output, colors: true)

        plain.error("bad")
        plain.line("ok")
        colored.error("bad")

        #expect(output.standardError == "error: bad\n\u{1B}[31merror:\u{1B}[0m bad\n")
        #expect(output.standardOutput == "ok\n")
        #expect(colored.paint("x", .green) == "\u{1B}[32mx\u{1B}[0m")
        #expect(plain.paint("x", .green) == "x")
    }

    @Test("not on a terminal, a download prints only its final line")
    func progressNotOnATerminal() {
        let output = CapturedOutput()
        let progress = DownloadProgress(console: Console(sink: output))

        progress.update(written: 10, expected: 100)
        progress.update(written: 100, expected: 100)
        progress.finish(written: 100, expected: 100, succeeded: true)

        #expect(PlaygroundExecutable.masked(output.all) == "[####################] 100%  100 B / 100 B  RATE/s  done\n")
    }

    @Test("on a terminal, the line is redrawn in place with \\r, at most every 100 ms, then ended")
    func progressOnATerminal() {
        let output = CapturedOutput()
        let progress = DownloadProgress(console: Console(sink: output, redraws: true))

        progress.update(written: 10, expected: 100)
        progress.update(written: 20, expected: 100)  // within 100 ms: not drawn
        progress.finish(written: 100, expected: 100, succeeded: true)
        progress.update(written: 100, expected: 100)  // after the end: not drawn

        let lines = PlaygroundExecutable.masked(output.all)
        #expect(lines.hasPrefix("\r[##------------------]  10%  10 B / 100 B  RATE/s  ETA "))
        #expect(lines.hasSuffix("\u{1B}[K\r[####################] 100%  100 B / 100 B  RATE/s  done\u{1B}[K\n"))
        #expect(lines.components(separatedBy: "\r").count == 3)
    }

    @Test("a failed download erases its progress line")
    func progressFailure() {
        let output = CapturedOutput()
        let progress = DownloadProgress(console: Console(sink: output, redraws: true))

        progress.update(written: 10, expected: 100)
        progress.finish(written: 10, expected: 100, succeeded: false)

        #expect(output.all.hasSuffix("\u{1B}[K\r\u{1B}[K"))
        #expect(!output.all.contains("\n"))
    }

    @Test("the spinner turns while the indicator is active and it is armed, then erases itself")
    func spinner() async throws {
        let output = CapturedOutput()
        let spinner = Spinner(console: Console(sink: output, redraws: true))
        let indicator = NetworkActivityIndicator()
        spinner.observe(indicator)

        spinner.arm(label: "GET /drip/")
        indicator.increase()
        let secondFrame = "\r\(Spinner.frames[1]) GET /drip/\u{1B}[K"
        try await waitUntil { output.all.contains(secondFrame) }
        indicator.decrease()
        try await waitUntil { output.all.hasSuffix("\r\u{1B}[K") }
        let drawn = output.all
        spinner.disarm()

        #expect(drawn.hasPrefix("\r\(Spinner.frames[0]) GET /drip/\u{1B}[K" + secondFrame))
        #expect(drawn.hasSuffix("\r\u{1B}[K"))
        output.clear()
        indicator.increase()
        try await Task.sleep(for: .milliseconds(300))
        indicator.decrease()
        #expect(output.all == "", "a disarmed spinner draws nothing")
    }

    @Test("the spinner draws nothing when the console doesn't redraw lines")
    func spinnerNotOnATerminal() async throws {
        let output = CapturedOutput()
        let spinner = Spinner(console: Console(sink: output))
        let indicator = NetworkActivityIndicator()
        spinner.observe(indicator)

        spinner.arm(label: "GET /")
        indicator.increase()
        try await Task.sleep(for: .milliseconds(300))
        indicator.decrease()
        spinner.disarm()

        #expect(output.all == "")
    }
}

/// Waits, polling, until `condition` holds; fails after `timeout`.
func waitUntil(timeout: Duration = .seconds(3), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition did not hold within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
