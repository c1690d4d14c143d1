import Foundation
import Jewzruxin

extension Command {
    /// Parses the words of one command (see ``CommandLexer``).
    ///
    /// Command names are case-insensitive (`get` is `GET`). The syntax of each command is in
    /// ``CommandHelp/entries``; the `--json` option may come anywhere after the target.
    ///
    /// - Parameter words: The command's words; the first is its name.
    /// - Throws: ``PlaygroundError`` for an unknown command or arguments that don't fit it, with
    ///   the command's usage.
    init(words: [String]) throws(PlaygroundError) {
        guard let first = words.first else { throw PlaygroundError("empty command") }
        let arguments = Array(words.dropFirst())
        let name = first.lowercased()
        let method = HTTPMethod(rawValue: first)
        if Self.bodylessMethods.contains(method) || Self.bodyMethods.contains(method) {
            self = try Self.parseRequest(method, arguments)
            return
        }
        switch name {
        case "header": self = try Self.parseHeader(arguments)
        case "unheader":
            guard arguments.count == 1 else { throw Self.usage(of: name) }
            self = .removeHeader(arguments[0].hasSuffix(":") ? String(arguments[0].dropLast()) : arguments[0])
        case "auth": self = try Self.parseAuth(arguments)
        case "cookies":
            switch arguments.map({ $0.lowercased() }) {
            case []: self = .listCookies
            case ["clear"]: self = .clearCookies
            default: throw Self.usage(of: name)
            }
        case "base": self = Self.parseBase(arguments)
        case "transport":
            guard arguments.count <= 1 else { throw Self.usage(of: name) }
            self = .transport(arguments.first)
        case "headers": self = try Self.noArguments(.showResponseHeaders, name, arguments)
        case "text": self = try Self.noArguments(.showText, name, arguments)
        case "json":
            guard arguments.count <= 1 else { throw Self.usage(of: name) }
            self = .showJSON(keyPath: arguments.first)
        case "curl": self = try Self.noArguments(.showCurl, name, arguments)
        case "metrics": self = try Self.noArguments(.showMetrics, name, arguments)
        case "timeout": self = try Self.parseTimeout(arguments)
        case "timing":
            switch arguments.map({ $0.lowercased() }) {
            case []: self = .timing(nil)
            case ["on"]: self = .timing(true)
            case ["off"]: self = .timing(false)
            default: throw Self.usage(of: name)
            }
        case "save":
            guard arguments.count == 1 else { throw Self.usage(of: name) }
            self = .save(path: arguments[0])
        case "download":
            if arguments == ["--resume"] {
                self = .resumeDownload
                break
            }
            guard arguments.count == 2 else { throw Self.usage(of: name) }
            self = .download(target: arguments[0], path: arguments[1])
        case "template":
            guard let template = arguments.first else { throw Self.usage(of: name) }
            let (items, _) = try Self.items(arguments.dropFirst(), allowsJSONFlag: false, command: name)
            self = .template(template, items: items)
        case "service":
            guard arguments.count == 1 else { throw Self.usage(of: name) }
            self = .loadService(path: arguments[0])
        case "call":
            guard let resource = arguments.first, !resource.hasPrefix("-") else { throw Self.usage(of: name) }
            let (items, json) = try Self.items(arguments.dropFirst(), allowsJSONFlag: true, command: name)
            self = .call(resource: resource, items: items, json: json)
        case "help":
            guard arguments.count <= 1 else { throw Self.usage(of: name) }
            self = .help(arguments.first?.lowercased())
        case "history": self = try Self.noArguments(.history, name, arguments)
        case "quit", "exit": self = try Self.noArguments(.quit, name, arguments)
        default:
            throw PlaygroundError("unknown command \(CommandLexer.quoted(first)) (type help for the list)")
        }
    }

    private static func parseRequest(_ method: HTTPMethod, _ arguments: [String]) throws(PlaygroundError) -> Command {
        let usage = bodyMethods.contains(method)
            ? "\(method) path-or-url [key=value ...] [key:=json ...] [--json]"
            : "\(method) path-or-url [key=value ...]"
        guard let target = arguments.first, !target.hasPrefix("--") else { throw PlaygroundError.usage(usage) }
        let (items, json) = try items(arguments.dropFirst(), allowsJSONFlag: bodyMethods.contains(method), command: method.rawValue)
        if bodylessMethods.contains(method), let item = items.first(where: { if case .json = $0 { return true } else { return false } }) {
            throw PlaygroundError("\(item) needs a body: raw JSON values are for POST, PUT and PATCH")
        }
        return .request(method: method, target: target, items: items, json: json)
    }

    /// `header Name: value` sets, `header Name:` (nothing after the colon, as curl's `-H 'Name:'`)
    /// removes, `header` alone lists.
    private static func parseHeader(_ arguments: [String]) throws(PlaygroundError) -> Command {
        guard !arguments.isEmpty else { return .listHeaders }
        let line = arguments.joined(separator: " ")
        guard let colon = line.firstIndex(of: ":") else { throw usage(of: "header") }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard isToken(name) else { throw usage(of: "header") }
        return value.isEmpty ? .removeHeader(name) : .setHeader(name: name, value: value)
    }

    /// `base URL`, as the README and the welcome screen write it, is read as `base`: `base URL
    /// http://h`, `base URL sandbox` and `base URL` alone are `base http://h`, `base sandbox` and
    /// `base`. Several words left are kept together, so that `base not a url` says why it is not one.
    private static func parseBase(_ arguments: [String]) -> Command {
        var words = arguments[...]
        if words.first?.lowercased() == "url" { words = words.dropFirst() }
        return .base(words.isEmpty ? nil : words.joined(separator: " "))
    }

    /// `timeout SECONDS`, `timeout off` or `timeout default`, or `timeout` alone.
    private static func parseTimeout(_ arguments: [String]) throws(PlaygroundError) -> Command {
        guard arguments.count <= 1 else { throw usage(of: "timeout") }
        guard let word = arguments.first else { return .timeout(.show) }
        if ["off", "default"].contains(word.lowercased()) { return .timeout(.reset) }
        let number = word.lowercased().hasSuffix("s") ? String(word.dropLast()) : word
        guard let seconds = TimeInterval(number), seconds.isFinite else {
            throw PlaygroundError("invalid timeout \(CommandLexer.quoted(word)): not a number of seconds (timeout 2.5)")
        }
        guard seconds > 0, seconds <= Command.longestTimeout else {
            throw PlaygroundError(
                "invalid timeout \(CommandLexer.quoted(word)): it must be more than 0 and at most \(Int(Command.longestTimeout)) seconds")
        }
        return .timeout(.set(seconds))
    }

    private static func parseAuth(_ arguments: [String]) throws(PlaygroundError) -> Command {
        switch arguments.count {
        case 0: return .showAuth
        case 1 where arguments[0].lowercased() == "off": return .clearAuth
        case 2: return .setAuth(username: arguments[0], password: arguments[1])
        default: throw usage(of: "auth")
        }
    }

    private static func noArguments(_ command: Command, _ name: String, _ arguments: [String]) throws(PlaygroundError) -> Command {
        guard arguments.isEmpty else { throw PlaygroundError("\(name) takes no arguments") }
        return command
    }

    /// The items of a command and whether `--json` was among them.
    private static func items(
        _ words: ArraySlice<String>, allowsJSONFlag: Bool, command: String
    ) throws(PlaygroundError) -> ([RequestItem], Bool) {
        var items: [RequestItem] = []
        var json = false
        for word in words {
            if word.hasPrefix("--"), !word.contains("=") {
                guard word == "--json", allowsJSONFlag else {
                    throw PlaygroundError("unknown option \(word) for \(command)")
                }
                json = true
                continue
            }
            items.append(try RequestItem(parsing: word))
        }
        return (items, json)
    }

    private static func usage(of name: String) -> PlaygroundError {
        .usage(CommandHelp.entry(named: name)?.usage ?? name)
    }

    /// Whether `name` is an RFC 9110 token, as a header name must be.
    static func isToken(_ name: String) -> Bool {
        let extra = "!#$%&'*+-.^_`|~"
        return !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || extra.unicodeScalars.contains(scalar))
        }
    }
}
