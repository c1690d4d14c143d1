import Foundation

/// The text of `help`, `help COMMAND`, the welcome screen and `--help`.
enum CommandHelp {
    /// One command's documentation.
    struct Entry: Sendable, Hashable {
        /// The names `help NAME` finds it by, lowercased; the first is the main one.
        let names: [String]
        /// The section of `help` it is listed in.
        let group: String
        /// The full syntax, shown by `help NAME` and in usage errors.
        let usage: String
        /// A short form of the syntax for the `help` list.
        let synopsis: String
        /// What it does, in a few words.
        let summary: String
        /// More lines for `help NAME`: options, rules and examples.
        let details: [String]
    }

    /// Every command, in the order `help` lists them.
    static let entries: [Entry] = [
        Entry(
            names: ["get", "head", "delete"], group: "Requests",
            usage: "GET|HEAD|DELETE path-or-url [key=value ...]",
            synopsis: "GET|HEAD|DELETE path [k=v ...]", summary: "send a request; k=v items are query parameters",
            details: [
                "A path is joined to the base URL; a full http(s) URL is used as it is.",
                "key=value and key==value items are added to the query (percent-encoded, sorted by key).",
                "Prints the status line: status, reason, time and body size.",
                "example: GET /echo/ content=hi code==201",
            ]),
        Entry(
            names: ["post", "put", "patch"], group: "Requests",
            usage: "POST|PUT|PATCH path-or-url [key=value ...] [key:=json ...] [key@file ...] [key==value ...] [--json]",
            synopsis: "POST|PUT|PATCH path [k=v ...]", summary: "send a form body; --json or k:=json for JSON",
            details: [
                "key=value items make an application/x-www-form-urlencoded body, in order (HTTPFormProcessor).",
                "With --json, or any key:=json item, the items make a JSON object instead (HTTPJSONProcessor);",
                "key:=json takes a raw JSON value: n:=42, ok:=true, x:=null, tags:='[\"a\",\"b\"]'.",
                "With any key@file item, the body is multipart/form-data: key=value fields and files, in order,",
                "each file streamed from disk as it is sent (curl's -F key=@file).",
                "key==value items go in the query.",
                "example: POST /inspect/ name='Jane Doe' age:=42",
                "example: POST /dumpupload/ name=Jane file@notes.txt",
            ]),
        Entry(
            names: ["download"], group: "Requests",
            usage: "download path-or-url FILE", synopsis: "download path FILE",
            summary: "stream the body to FILE, with a progress bar",
            details: [
                "The body goes to FILE.partial as it arrives, so memory stays flat, and replaces FILE only",
                "when the whole body arrived with a 2xx status. A download that fails or is interrupted",
                "(Ctrl-C) keeps FILE.partial: download --resume asks for the rest (Range, If-Range).",
                "example: download /bytes/1048576 blob.bin",
                "example: download /range/1048576?drop_after=50000 blob.bin; download --resume",
            ]),
        Entry(
            names: ["base"], group: "Requests",
            usage: "base URL [http(s)://host[:port][/path] | sandbox]", synopsis: "base URL [url | sandbox]",
            summary: "print the base URL, or switch to another server",
            details: [
                "Paths are joined to the base URL. base URL sandbox comes back to the embedded sandbox.",
                "The word URL may be left out: base http://127.0.0.1:8080 and base sandbox do the same.",
                "A URL that is not a valid http(s) URL with a host is refused; the base URL stays as it was.",
                "example: base URL http://127.0.0.1:8080/api",
            ]),
        Entry(
            names: ["transport"], group: "Session",
            usage: "transport [urlsession | native | curl]", synopsis: "transport [urlsession | native | curl]",
            summary: "print the transport, or switch between URLSession, the native one and libcurl",
            details: [
                "native speaks HTTP/1.1 itself over sockets (http:// only; https:// still goes to URLSession);",
                "curl runs on the system's libcurl, loaded at run time (http:// and https://, HTTP/2);",
                "urlsession is Foundation's URLSession. The library's default starts (curl on Linux when",
                "libcurl loads). Headers and auth carry over.",
                "example: transport curl",
            ]),
        Entry(
            names: ["timing"], group: "Session",
            usage: "timing [on | off]", synopsis: "timing [on | off]",
            summary: "a line of timings after each request; alone, say whether it is on",
            details: [
                "The line: protocol, remote address, new or reused connection, then the name lookup, connect,",
                "TLS handshake, first byte and total times, from the start of the request.",
                "The curl and native transports measure them; on urlsession the line says so.",
                "example: transport curl; timing on; GET /hello/",
            ]),
        Entry(
            names: ["header"], group: "Session",
            usage: "header [Name: value | Name:]", synopsis: "header [Name: value | Name:]",
            summary: "send a header with every request; Name: alone stops; no argument lists them",
            details: [
                "Setting a header again replaces it. Name: with nothing after the colon stops sending it",
                "(as curl's -H 'Name:'); so does unheader Name.",
                "example: header Accept: application/json",
                "example: header Accept:",
            ]),
        Entry(
            names: ["unheader"], group: "Session",
            usage: "unheader Name", synopsis: "unheader Name", summary: "stop sending a header (as header Name:)", details: []),
        Entry(
            names: ["timeout"], group: "Session",
            usage: "timeout [SECONDS | default]", synopsis: "timeout [SECONDS | default]",
            summary: "how long a request may wait for any progress; alone, print it",
            details: [
                "An idle timeout: a request fails with \"timed out\" when no byte is sent or received for",
                "that long (a slow download that keeps moving goes on). Fractions are fine: timeout 0.5.",
                "timeout default (or timeout off) comes back to the default, \(defaultTimeout) s. Headers, auth and cookies stay.",
                "example: timeout 2; GET /echo/?delay=5",
            ]),
        Entry(
            names: ["cookies"], group: "Session",
            usage: "cookies [clear]", synopsis: "cookies [clear]",
            summary: "list the cookies the servers set, or forget them",
            details: [
                "One line each: name=value, domain and path, until when (or for this session), secure.",
                "They go back with the requests they match, on every transport, and stay when the transport changes.",
                "example: GET /echo/ header==\"Set-Cookie:k=v; Path=/\"; cookies",
            ]),
        Entry(
            names: ["auth"], group: "Session",
            usage: "auth [user password | off]", synopsis: "auth [user password | off]",
            summary: "answer Basic and Digest challenges (BasicAuthentication)",
            details: [
                "The credentials are only sent in answer to a 401 challenge; Digest is preferred when offered.",
                "example: auth test 12345, then GET /digest_auth/auth/MD5/",
            ]),
        Entry(
            names: ["headers"], group: "Last response",
            usage: "headers", synopsis: "headers", summary: "its headers, sorted by name (Date left out)", details: []),
        Entry(
            names: ["text"], group: "Last response",
            usage: "text", synopsis: "text", summary: "its body as text, in the charset it names", details: []),
        Entry(
            names: ["json"], group: "Last response",
            usage: "json [key.path]", synopsis: "json [key.path]",
            summary: "its body as JSON, or the value at a key path",
            details: [
                "Pretty-printed with sorted keys. A key path names object keys and array indices: stores.0.name.",
            ]),
        Entry(
            names: ["curl"], group: "Last response",
            usage: "curl", synopsis: "curl", summary: "the request as a curl command (curlDescription)", details: []),
        Entry(
            names: ["metrics"], group: "Last response",
            usage: "metrics", synopsis: "metrics",
            summary: "how it went on the wire: protocol, addresses, times, sizes",
            details: [
                "The protocol (HTTP/1.1 or HTTP/2), the remote and local addresses, whether the connection was",
                "reused, the name lookup, connect, TLS handshake, request sent, first byte and total times,",
                "and the bytes sent and received (response.metrics). The curl and native transports measure them.",
            ]),
        Entry(
            names: ["save"], group: "Last response",
            usage: "save FILE", synopsis: "save FILE", summary: "write its body to FILE", details: []),
        Entry(
            names: ["template"], group: "Library",
            usage: "template TEMPLATE [key=value ...] [key:=json ...]", synopsis: "template TEMPLATE [k=v ...]",
            summary: "expand an RFC 6570 URI template",
            details: [
                "A repeated key, or key:='[...]', is a list; key:='{...}' is an associative array.",
                "example: template '/search{?q,tags*}' q='swift http' tags=a tags=b",
            ]),
        Entry(
            names: ["service"], group: "Library",
            usage: "service FILE", synopsis: "service FILE", summary: "load an HTTPService profile (plist or JSON)",
            details: [
                "A profile has a BaseURL and Resources, each with a Name, a URITemplate and a Method (GET by default).",
                "Without a BaseURL, or with only a path, the resources are joined to the playground's base URL.",
            ]),
        Entry(
            names: ["call"], group: "Library",
            usage: "call NAME [key=value ...] [--json]", synopsis: "call NAME [k=v ...]",
            summary: "request a resource of the loaded service",
            details: [
                "Items named after template variables expand the resource's URI template;",
                "the others make the body, as for POST (form, or JSON with --json or key:=json).",
                "example: call store zip=15217",
            ]),
        Entry(
            names: ["help"], group: "Shell",
            usage: "help [COMMAND]", synopsis: "help [COMMAND]", summary: "this list, or one command in detail", details: []),
        Entry(
            names: ["history"], group: "Shell",
            usage: "history", synopsis: "history", summary: "the lines entered so far", details: []),
        Entry(
            names: ["quit", "exit"], group: "Shell",
            usage: "quit", synopsis: "quit | exit | Ctrl-D", summary: "leave the playground", details: []),
    ]

    /// The playground's default idle timeout, as `help timeout` writes it.
    private static var defaultTimeout: String { Playground.seconds(Playground.Configuration.defaultTimeout) }

    /// The entry `help NAME` shows, found by any of its names, case-insensitively.
    ///
    /// - Parameter name: A command name, such as `POST` or `json`.
    /// - Returns: The entry, or `nil` when no command has that name.
    static func entry(named name: String) -> Entry? {
        let name = name.lowercased()
        return entries.first { $0.names.contains(name) }
    }

    /// The text of `help`: every command with its synopsis, grouped, then the editing keys.
    static var overview: String {
        var lines: [String] = []
        var group = ""
        let width = entries.map(\.synopsis.count).max() ?? 0
        for entry in entries {
            if entry.group != group {
                group = entry.group
                lines.append(group)
            }
            lines.append("  " + entry.synopsis.padding(toLength: width + 2, withPad: " ", startingAt: 0) + entry.summary)
        }
        lines.append("Several commands fit on one line: GET /hello/; text. help COMMAND tells more.")
        return lines.joined(separator: "\n")
    }

    /// The text of `help NAME`.
    ///
    /// - Parameter entry: The command.
    /// - Returns: Its usage, summary and details.
    static func detail(_ entry: Entry) -> String {
        ([entry.usage, "  " + entry.summary] + entry.details.map { "  " + $0 }).joined(separator: "\n")
    }

    /// The welcome screen.
    ///
    /// - Parameters:
    ///   - version: The playground's version.
    ///   - baseURL: The base URL requests go to.
    /// - Returns: A few lines with example commands.
    static func welcome(version: String, baseURL: String) -> String {
        """
        Jewzruxin playground \(version): try the library against a sandbox server, or any other.
        Base URL: \(baseURL) (the embedded sandbox; base URL http://host:port switches)

          GET /hello/                         then: text, headers, curl, metrics
          GET /stores/ zip=15217              then: json, json 0.name
          POST /dumpupload/ name=Jane         a form body (age:=42 or --json: JSON)
          auth test 12345                     then: GET /digest_auth/auth/MD5/
          download /bytes/1048576 blob.bin    a progress bar, a file
          template '/repos{/owner,repo}' owner=apple repo=swift

        help lists every command; quit or Ctrl-D leaves.
        """
    }

    /// The text of `playground --help`.
    ///
    /// - Parameter version: The playground's version.
    /// - Returns: How to run the executable.
    static func commandLineUsage(version: String) -> String {
        """
        playground \(version): a REPL to explore the Jewzruxin HTTP library, with an embedded sandbox server.

        usage: playground [--quiet] [-c "command; command"] [SCRIPT]

          (no argument)   read commands from the terminal (line editing, history) or from piped input
          -c COMMANDS     run these commands (separated by ;) and exit
          SCRIPT          run the commands in this file, one or more a line (# starts a comment), and exit
          -q, --quiet     leave out the welcome screen
          -h, --help      print this help and exit
          --version       print the version and exit

        Requests go to a sandbox server started on a free loopback port, unless `base URL` says otherwise.
        Exit status: 0 when every command succeeded, 1 when one failed, 2 for a bad command line.
        Environment: NO_COLOR turns colour off; JEWZRUXIN_PLAYGROUND_HISTORY sets the history file
        (~/.jewzruxin_playground_history by default).
        Type help at the prompt for the commands.
        """
    }
}
