import Testing
@testable import PlaygroundKit

@Suite("LaunchOptions: the playground's command line")
struct LaunchOptionsTests {
    @Test("no argument reads standard input, with the welcome")
    func bare() throws {
        let options = try LaunchOptions.parse([])
        #expect(options == LaunchOptions())
        #expect(!options.isBatch)
        #expect(!options.quiet)
    }

    @Test("-c, --command and a script")
    func batch() throws {
        var expected = LaunchOptions()
        expected.commands = ["GET /hello/; text", "headers"]
        expected.quiet = true
        #expect(try LaunchOptions.parse(["-c", "GET /hello/; text", "-q", "--command", "headers"]) == expected)

        var script = LaunchOptions()
        script.scriptPath = "-odd-name.txt"
        #expect(try LaunchOptions.parse(["--", "-odd-name.txt"]) == script)
        #expect(try LaunchOptions.parse(["run.txt"]).isBatch)
    }

    @Test("--help and --version win over anything else")
    func helpAndVersion() throws {
        #expect(try LaunchOptions.parse(["-c", "x", "--help"]).action == .help)
        #expect(try LaunchOptions.parse(["-h", "--bogus"]).action == .help)
        #expect(try LaunchOptions.parse(["--version"]).action == .version)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option --bogus (playground --help lists the options)"),
        (["-c"], #"-c needs commands: -c "GET /hello/; text""#),
        (["a.txt", "b.txt"], "one script at a time: a.txt and b.txt"),
        (["-c", "GET /", "a.txt"], "give commands with -c or in a script, not both"),
    ])
    func errors(arguments: [String], message: String) {
        #expect(throws: PlaygroundError(message)) { try LaunchOptions.parse(arguments) }
    }
}
