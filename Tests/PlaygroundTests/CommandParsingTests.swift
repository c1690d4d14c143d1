import Jewzruxin
import Testing
@testable import PlaygroundKit

@Suite("Command: parsing the words of a command")
struct CommandParsingTests {
    private func parse(_ line: String) throws -> Command {
        try Command(words: CommandLexer.words(in: line))
    }

    @Test("request commands, with any method case, items and --json anywhere after the target")
    func requests() throws {
        #expect(try parse("GET /hello/") == .request(method: .get, target: "/hello/", items: [], json: false))
        #expect(try parse("get /a b=1 c==2") == .request(method: .get, target: "/a", items: [.field("b", "1"), .query("c", "2")], json: false))
        #expect(try parse("Post /a --json n:=1") == .request(method: .post, target: "/a", items: [.json("n", 1)], json: true))
        #expect(try parse("HEAD http://h/") == .request(method: .head, target: "http://h/", items: [], json: false))
        #expect(try parse("delete /x") == .request(method: .delete, target: "/x", items: [], json: false))
        #expect(try parse("PUT /x a=1") == .request(method: .put, target: "/x", items: [.field("a", "1")], json: false))
        #expect(try parse("patch /x") == .request(method: .patch, target: "/x", items: [], json: false))
    }

    @Test("session commands")
    func session() throws {
        #expect(try parse("header X-Token: abc def") == .setHeader(name: "X-Token", value: "abc def"))
        #expect(try parse("header Accept:application/json") == .setHeader(name: "Accept", value: "application/json"))
        #expect(try parse("header") == .listHeaders)
        #expect(try parse("unheader X-Token") == .removeHeader("X-Token"))
        #expect(try parse("unheader X-Token:") == .removeHeader("X-Token"))
        #expect(try parse("auth test 12345") == .setAuth(username: "test", password: "12345"))
        #expect(try parse("auth OFF") == .clearAuth)
        #expect(try parse("auth") == .showAuth)
        #expect(try parse("cookies") == .listCookies)
        #expect(try parse("Cookies CLEAR") == .clearCookies)
        #expect(try parse("header X-Token:") == .removeHeader("X-Token"))
        #expect(try parse("header X-Token: ") == .removeHeader("X-Token"))
        #expect(try parse("base") == .base(nil))
        #expect(try parse("base http://h:1") == .base("http://h:1"))
        #expect(try parse("base URL http://h:1") == .base("http://h:1"))
        #expect(try parse("Base url SANDBOX") == .base("SANDBOX"))
        #expect(try parse("base URL") == .base(nil))
        #expect(try parse("base URL not a url") == .base("not a url"))
        #expect(try parse("timeout") == .timeout(.show))
        #expect(try parse("timeout 0.25") == .timeout(.set(0.25)))
        #expect(try parse("timeout 5s") == .timeout(.set(5)))
        #expect(try parse("timeout OFF") == .timeout(.reset))
        #expect(try parse("timeout default") == .timeout(.reset))
    }

    @Test("views, transfers, library and shell commands")
    func others() throws {
        #expect(try parse("headers") == .showResponseHeaders)
        #expect(try parse("text") == .showText)
        #expect(try parse("json") == .showJSON(keyPath: nil))
        #expect(try parse("json stores.0.name") == .showJSON(keyPath: "stores.0.name"))
        #expect(try parse("curl") == .showCurl)
        #expect(try parse("metrics") == .showMetrics)
        #expect(try parse("timing") == .timing(nil))
        #expect(try parse("timing on") == .timing(true))
        #expect(try parse("Timing OFF") == .timing(false))
        #expect(try parse("save 'my file.txt'") == .save(path: "my file.txt"))
        #expect(try parse("download /bytes/10 out.bin") == .download(target: "/bytes/10", path: "out.bin"))
        #expect(try parse("template '{/a}' a=1 b:=[1]") == .template("{/a}", items: [.field("a", "1"), .json("b", [1])]))
        #expect(try parse("service api.json") == .loadService(path: "api.json"))
        #expect(try parse("call search q=x --json") == .call(resource: "search", items: [.field("q", "x")], json: true))
        #expect(try parse("help") == .help(nil))
        #expect(try parse("help POST") == .help("post"))
        #expect(try parse("history") == .history)
        #expect(try parse("quit") == .quit)
        #expect(try parse("EXIT") == .quit)
    }

    @Test("wrong arguments give the command's usage", arguments: [
        ("GET", "usage: GET path-or-url [key=value ...]"),
        ("POST --json", "usage: POST path-or-url [key=value ...] [key:=json ...] [--json]"),
        ("header NoColon", "usage: header [Name: value | Name:]"),
        ("header Bad Name: x", "usage: header [Name: value | Name:]"),
        ("header : x", "usage: header [Name: value | Name:]"),
        ("timing maybe", "usage: timing [on | off]"),
        ("timing on off", "usage: timing [on | off]"),
        ("unheader", "usage: unheader Name"),
        ("cookies all", "usage: cookies [clear]"),
        ("auth onlyuser", "usage: auth [user password | off]"),
        ("timeout 1 2", "usage: timeout [SECONDS | default]"),
        ("json a b", "usage: json [key.path]"),
        ("save", "usage: save FILE"),
        ("download /x", "usage: download path-or-url FILE"),
        ("template", "usage: template TEMPLATE [key=value ...] [key:=json ...]"),
        ("service", "usage: service FILE"),
        ("call", "usage: call NAME [key=value ...] [--json]"),
        ("help a b", "usage: help [COMMAND]"),
    ])
    func usage(line: String, message: String) {
        #expect(throws: PlaygroundError(message)) { try parse(line) }
    }

    @Test("other mistakes", arguments: [
        ("FETCH /x", "unknown command FETCH (type help for the list)"),
        ("text please", "text takes no arguments"),
        ("quit now", "quit takes no arguments"),
        ("metrics all", "metrics takes no arguments"),
        ("GET /x --json", "unknown option --json for GET"),
        ("POST /x --form", "unknown option --form for POST"),
        ("template /x --json", "unknown option --json for template"),
        ("GET /x n:=1", "n:=1 needs a body: raw JSON values are for POST, PUT and PATCH"),
        ("GET /x oops", "expected key=value, key==value, key:=json or key@file, not oops"),
    ])
    func mistakes(line: String, message: String) {
        #expect(throws: PlaygroundError(message)) { try parse(line) }
    }

    @Test("every command has help, found by each of its names")
    func helpEntries() throws {
        for name in ["get", "HEAD", "delete", "post", "put", "patch", "download", "base", "header", "unheader", "auth",
                     "cookies", "headers", "text", "json", "curl", "metrics", "timing", "timeout", "save", "template", "service", "call", "help", "history", "quit", "exit"] {
            let entry = try #require(CommandHelp.entry(named: name), "no help for \(name)")
            #expect(CommandHelp.detail(entry).hasPrefix(entry.usage + "\n  " + entry.summary))
        }
        #expect(CommandHelp.entry(named: "frobnicate") == nil)
    }
}
