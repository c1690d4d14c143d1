import Foundation
import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A playground session: the state the commands share and the code that carries them out.
///
/// Feed it lines with ``run(line:)``; it parses them (``CommandLexer``, ``Command``), sends requests
/// on the core `HTTPCycle` engine, and writes results and `error: …` lines to its ``Console``. One
/// session is used from one task at a time; what other threads touch (the spinner, the progress
/// line, Ctrl-C) is in `Sendable` helpers.
///
/// ```swift
/// let sandbox = try Sandbox.start()
/// let playground = Playground(configuration: .init(sandboxURL: sandbox.baseURL.absoluteString, console: console))
/// await playground.run(line: "GET /hello/; text")   // 200 OK  3 ms  11 bytes / Hello World
/// ```
final class Playground {
    /// The playground's version, printed by `--version`.
    static let version = "0.1.0"

    /// How a session is set up.
    struct Configuration: Sendable {
        /// The embedded sandbox's URL: the first base URL, and where `base sandbox` goes back to.
        var sandboxURL: String
        /// Where the session writes.
        var console: Console
        /// Whether a spinner turns while requests run (only drawn when the console redraws lines).
        var showsSpinner: Bool
        /// What relative file paths (`save`, `download`, `service`) are relative to.
        var workingDirectory: URL
        /// The idle timeout of requests, in seconds, until `timeout` changes it (and where
        /// `timeout default` goes back to).
        var timeout: TimeInterval
        /// What Ctrl-C does when no request is running.
        var idleInterrupt: Interrupter.IdleAction

        /// The idle timeout of requests when none is given, in seconds.
        static let defaultTimeout: TimeInterval = 30

        /// Creates a configuration.
        init(
            sandboxURL: String, console: Console, showsSpinner: Bool = false,
            workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
            timeout: TimeInterval = defaultTimeout, idleInterrupt: Interrupter.IdleAction = .ignore
        ) {
            self.sandboxURL = sandboxURL
            self.console = console
            self.showsSpinner = showsSpinner
            self.workingDirectory = workingDirectory
            self.timeout = timeout
            self.idleInterrupt = idleInterrupt
        }
    }

    /// What running a line led to.
    struct LineResult: Sendable, Hashable {
        /// Whether every command of the line succeeded.
        var succeeded: Bool
        /// Whether the line asked to leave (`quit`, `exit`).
        var quit: Bool
        /// Whether Ctrl-C interrupted it (the rest of the line was then skipped).
        var interrupted: Bool
    }

    /// The last request and what came of it.
    struct Exchange {
        /// The request as configured and processed (for `curl`).
        var request: HTTPRequest
        /// The response, or `nil` when none arrived.
        var response: HTTPResponse?
        /// Where `download` put the body, which is then not in memory.
        var savedTo: String?
        /// The transport the request ran on, for `metrics`.
        var transport: TransportKind
    }

    /// A service loaded with `service FILE`.
    struct LoadedService {
        var service: HTTPService
        /// The profile's own `BaseURL`: absolute, or joined to the playground's base URL.
        var profileBaseURL: String
    }

    let console: Console
    let configuration: Configuration
    /// The session every request runs on; its handlers run on a private serial queue. `transport`
    /// replaces it with one on the other transport.
    private(set) var session: HTTPSession
    /// The transport ``session`` runs on.
    var transportKind = TransportKind.librarysDefault
    /// Whether a line of timings follows each request's status line (`timing on`).
    var showsTiming = false
    /// The idle timeout of requests, in seconds: the configuration's, or what `timeout` set. The
    /// session's configuration carries it (`timeoutIntervalForRequest`), which every transport honours.
    private(set) var timeout: TimeInterval
    /// Counts this session's cycles in flight and drives the spinner.
    let indicator = NetworkActivityIndicator()
    /// The cookies the servers set, kept in memory across `transport` switches (`cookies` lists them).
    let cookieStorage: HTTPCookieStorage
    let spinner: Spinner?
    /// Cancels the running request on Ctrl-C.
    let interrupter: Interrupter
    let clock = ContinuousClock()

    /// Where paths are sent: the sandbox at first, then what `base` says.
    var baseURL: String
    /// The headers sent with every request, in the order they were set.
    var sessionHeaders: [(name: String, value: String)] = []
    /// The user name given to `auth`, if any.
    var authUsername: String?
    var last: Exchange?
    var loadedService: LoadedService?
    /// The last download that failed or was interrupted with bytes kept, for `download --resume`.
    var interruptedDownload: (resumeData: DownloadResumeData, path: String)?
    /// The lines entered, for `history` and the line editor.
    var history: History

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: The set-up.
    ///   - history: The lines entered before (from the history file), oldest first.
    init(configuration: Configuration, history: History = History()) {
        self.configuration = configuration
        self.console = configuration.console
        self.baseURL = configuration.sandboxURL
        self.timeout = configuration.timeout
        self.history = history
        // An ephemeral configuration's storage: in memory, this playground's own.
        cookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage ?? .shared
        session = Self.makeSession(timeout: configuration.timeout, transport: .librarysDefault, cookies: cookieStorage, indicator: indicator)
        interrupter = Interrupter(whenIdle: configuration.idleInterrupt, onExit: { Terminal.restore() })
        if configuration.showsSpinner, configuration.console.redraws {
            let spinner = Spinner(console: configuration.console)
            spinner.observe(indicator)
            self.spinner = spinner
        } else {
            spinner = nil
        }
    }

    /// A session for the playground: handlers on a private serial queue, no silent retries (each
    /// exchange is shown as it happened), counted by `indicator`.
    /// The transports `transport` switches between.
    enum TransportKind: String, CaseIterable {
        case urlSession = "urlsession"
        case native
        case curl

        /// The library's default (`HTTPSession.defaultTransport`): curl on Linux when libcurl loads.
        static var librarysDefault: TransportKind {
            TransportKind(rawValue: HTTPSession.defaultTransport.name) ?? .urlSession
        }

        /// What to give `HTTPSession(transport:)`.
        var transport: (any HTTPTransport)? {
            switch self {
            case .urlSession: return .urlSession
            case .native: return .native
            case .curl: return .curl
            }
        }
    }

    static func makeSession(
        timeout: TimeInterval, transport: TransportKind, cookies: HTTPCookieStorage, indicator: NetworkActivityIndicator
    ) -> HTTPSession {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = timeout
        sessionConfiguration.httpCookieStorage = cookies
        let delegateQueue = OperationQueue()
        delegateQueue.name = "PlaygroundKit.Playground.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        let session = HTTPSession(configuration: sessionConfiguration, delegateQueue: delegateQueue, transport: transport.transport)
        session.retryPolicy = RetryPolicy(maximumRetryCount: 0)
        session.networkActivityIndicator = indicator
        return session
    }

    /// `transport`: prints the transport, or moves to a new session on the named one, keeping the
    /// authentication and the cookies.
    func transport(_ name: String?) throws(PlaygroundError) {
        guard let name else {
            console.line("transport: \(transportKind.rawValue)")
            return
        }
        let lowered = name.lowercased()
        guard let kind = TransportKind(rawValue: lowered == "url-session" ? "urlsession" : lowered) else {
            throw PlaygroundError("unknown transport \(name) (urlsession, native or curl)")
        }
        if kind == .curl, case .failure(let error) = CurlLibrary.system {
            throw PlaygroundError("the curl transport can't be used: \(error)")
        }
        remakeSession(transport: kind, timeout: timeout)
        console.line("transport: \(kind.rawValue)")
    }

    /// `timeout`: prints the idle timeout of requests, or moves to a new session with another one,
    /// keeping the transport, the authentication and the cookies.
    func timeout(_ change: Command.TimeoutChange) {
        let seconds: TimeInterval
        switch change {
        case .show:
            console.line(timeoutLine)
            return
        case .set(let value): seconds = value
        case .reset: seconds = configuration.timeout
        }
        remakeSession(transport: transportKind, timeout: seconds)
        console.line(timeoutLine)
    }

    /// `timeout: 2.5 s`, with `(the default)` when it is the configuration's.
    private var timeoutLine: String {
        "timeout: \(Self.seconds(timeout)) s" + (timeout == configuration.timeout ? " (the default)" : "")
    }

    /// Seconds as a person writes them: `30`, `2.5`, `0.25` (at most three decimals).
    static func seconds(_ value: TimeInterval) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(format: "%.3f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Replaces ``session`` with a new one on `kind` with `timeout`, carrying the authentication over
    /// (the cookies are in ``cookieStorage``, which every session shares).
    private func remakeSession(transport kind: TransportKind, timeout: TimeInterval) {
        let authentications = session.authentications
        session = Self.makeSession(timeout: timeout, transport: kind, cookies: cookieStorage, indicator: indicator)
        session.authentications = authentications
        transportKind = kind
        self.timeout = timeout
    }

    /// Runs one input line: records it in the history, then runs its commands in order.
    ///
    /// A command that fails prints `error: …` and the next one runs; `quit` stops the line, and
    /// so does Ctrl-C.
    /// - Parameter line: The line as entered; several commands may be separated by `;`.
    /// - Returns: Whether all succeeded, and whether to leave.
    @discardableResult
    func run(line: String) async -> LineResult {
        history.add(line)
        // A Ctrl-C that came while no request ran is not for this line.
        _ = interrupter.takeInterrupted()
        var result = LineResult(succeeded: true, quit: false, interrupted: false)
        let commands: [[String]]
        do {
            commands = try CommandLexer.commands(in: line)
        } catch {
            console.error(error.message)
            result.succeeded = false
            return result
        }
        for words in commands {
            do {
                let command = try Command(words: words)
                if command == .quit {
                    result.quit = true
                    return result
                }
                try await execute(command)
            } catch {
                console.error(error.message)
                result.succeeded = false
            }
            if interrupter.takeInterrupted() {
                result.interrupted = true
                return result
            }
        }
        return result
    }

    /// Carries out one command.
    ///
    /// - Parameter command: Any command but ``Command/quit``, which the caller handles.
    /// - Throws: ``PlaygroundError`` saying why the command failed.
    func execute(_ command: Command) async throws(PlaygroundError) {
        switch command {
        case .request(let method, let target, let items, let json):
            let plan = try RequestPlan(method: method, target: target, items: items, json: json, base: baseURL)
            try await send(plan, label: "\(method) \(target)")
        case .setHeader(let name, let value): setHeader(name, value)
        case .listHeaders: listHeaders()
        case .removeHeader(let name): try removeHeader(name)
        case .setAuth(let username, let password):
            session.authentications = [BasicAuthentication(username: username, password: password)]
            authUsername = username
        case .clearAuth:
            session.authentications = []
            authUsername = nil
        case .showAuth:
            console.line(authUsername.map { "auth: \($0) (answers Basic and Digest challenges)" } ?? "auth: off")
        case .base(let target): try base(target)
        case .timeout(let change): timeout(change)
        case .transport(let name): try transport(name)
        case .showResponseHeaders: try showResponseHeaders()
        case .showText: try showText()
        case .showJSON(let keyPath): try showJSON(keyPath: keyPath)
        case .showCurl: try showCurl()
        case .showMetrics: try showMetrics()
        case .timing(let on): timing(on)
        case .listCookies: listCookies()
        case .clearCookies: clearCookies()
        case .save(let path): try save(to: path)
        case .download(let target, let path): try await download(target, to: path)
        case .resumeDownload: try await resumeDownload()
        case .template(let template, let items): try expand(template, items)
        case .loadService(let path): try loadService(path)
        case .call(let resource, let items, let json): try await call(resource, items, json: json)
        case .help(let name): try help(name)
        case .history: if !history.entries.isEmpty { console.line(history.listing) }
        case .quit: break
        }
    }

    // MARK: Session state

    /// `header Name: value`: sets a session header (replacing one of the same name) and says so.
    private func setHeader(_ name: String, _ value: String) {
        if let index = sessionHeaders.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
            sessionHeaders[index] = (name, value)
        } else {
            sessionHeaders.append((name, value))
        }
        console.line("header \(name): \(value)")
    }

    private func listHeaders() {
        guard !sessionHeaders.isEmpty else {
            console.line("no session headers (header Name: value adds one)")
            return
        }
        for header in sessionHeaders { console.line("\(header.name): \(header.value)") }
    }

    /// `cookies`: one line per stored cookie, by domain, path and name.
    private func listCookies() {
        let cookies = (cookieStorage.cookies ?? []).sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        guard !cookies.isEmpty else {
            console.line("no cookies (a response's Set-Cookie adds them)")
            return
        }
        let formatter = ISO8601DateFormatter()
        for cookie in cookies {
            var line = "\(cookie.name)=\(cookie.value)  \(cookie.domain)\(cookie.path)"
            line += cookie.expiresDate.map { "  until \(formatter.string(from: $0))" } ?? "  for this session"
            if cookie.isSecure { line += "  secure" }
            console.line(line)
        }
    }

    /// `cookies clear`: forgets every stored cookie.
    private func clearCookies() {
        let cookies = cookieStorage.cookies ?? []
        for cookie in cookies { cookieStorage.deleteCookie(cookie) }
        console.line("\(cookies.count) cookie\(cookies.count == 1 ? "" : "s") cleared")
    }

    /// `header Name:` or `unheader Name`: stops sending a session header and says so.
    private func removeHeader(_ name: String) throws(PlaygroundError) {
        guard let index = sessionHeaders.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw PlaygroundError("no session header named \(name) (header lists them)")
        }
        let removed = sessionHeaders.remove(at: index)
        console.line("header \(removed.name) removed")
    }

    /// `base`: prints the base URL, or checks and sets a new one; a URL that is not valid leaves it
    /// as it was.
    private func base(_ target: String?) throws(PlaygroundError) {
        if let target {
            baseURL = target.lowercased() == "sandbox" ? configuration.sandboxURL : try BaseURL.validated(target)
        }
        console.line("base URL: \(baseURL)" + (baseURL == configuration.sandboxURL ? " (the sandbox)" : ""))
    }

    private func help(_ name: String?) throws(PlaygroundError) {
        guard let name else {
            console.line(CommandHelp.overview)
            return
        }
        guard let entry = CommandHelp.entry(named: name) else {
            throw PlaygroundError("no command named \(CommandLexer.quoted(name)) (help lists them)")
        }
        console.line(CommandHelp.detail(entry))
    }

    /// A file path as given (`~` expanded), relative to the working directory.
    func fileURL(_ path: String) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded) }
        return configuration.workingDirectory.appendingPathComponent(expanded)
    }
}

/// A session belongs to the task that runs it: its state is not guarded, so it is not `Sendable`.
@available(*, unavailable)
extension Playground: Sendable {}
