/// What the `playground` command line asks for.
///
/// ```
/// playground [--quiet] [-c "command; command"] [SCRIPT]
/// playground --help | --version
/// ```
struct LaunchOptions: Sendable, Hashable {
    /// What to do.
    enum Action: Sendable, Hashable {
        /// Run commands: from `-c`, a script, or standard input.
        case run
        /// Print the usage and exit.
        case help
        /// Print the version and exit.
        case version
    }

    /// What to do.
    var action = Action.run
    /// The commands given with `-c` (several `-c` are run one after the other).
    var commands: [String] = []
    /// The script file to run.
    var scriptPath: String?
    /// Whether to leave out the welcome screen.
    var quiet = false

    /// Whether commands come from `-c` or a script rather than standard input.
    var isBatch: Bool { !commands.isEmpty || scriptPath != nil }

    /// Creates the options of a bare `playground`.
    init() {}

    /// Parses the arguments (without the executable's name).
    ///
    /// `--help` and `--version` win over everything else; `--` ends the options.
    /// - Parameter arguments: The arguments.
    /// - Returns: The options.
    /// - Throws: ``PlaygroundError`` for an unknown option, a `-c` without its commands, more than
    ///   one script, or both `-c` and a script.
    static func parse(_ arguments: [String]) throws(PlaygroundError) -> LaunchOptions {
        var options = LaunchOptions()
        var index = arguments.startIndex
        var optionsEnded = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if !optionsEnded, argument.hasPrefix("-"), argument != "-" {
                switch argument {
                case "-h", "--help": return LaunchOptions(action: .help)
                case "--version": return LaunchOptions(action: .version)
                case "-q", "--quiet": options.quiet = true
                case "--": optionsEnded = true
                case "-c", "--command":
                    guard index < arguments.endIndex else { throw PlaygroundError("\(argument) needs commands: -c \"GET /hello/; text\"") }
                    options.commands.append(arguments[index])
                    index += 1
                default:
                    throw PlaygroundError("unknown option \(argument) (playground --help lists the options)")
                }
                continue
            }
            guard options.scriptPath == nil else {
                throw PlaygroundError("one script at a time: \(options.scriptPath ?? "") and \(argument)")
            }
            options.scriptPath = argument
        }
        if !options.commands.isEmpty, options.scriptPath != nil {
            throw PlaygroundError("give commands with -c or in a script, not both")
        }
        return options
    }

    private init(action: Action) {
        self.action = action
    }
}
