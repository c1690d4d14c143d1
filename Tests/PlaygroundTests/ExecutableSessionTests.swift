import Foundation
@testable import PlaygroundKit
import Testing

/// The built `playground` executable: the command line, the library commands, errors and exit
/// statuses.
@Suite("playground executable: command line, library commands and errors")
struct ExecutableSessionTests {
    @Test("--version prints the version and exits 0")
    func version() async throws {
        let run = try await PlaygroundExecutable.run(["--version"])

        #expect(run.output == "playground \(Playground.version)\n")
        #expect(run.status == 0)
    }

    @Test("--help prints the usage and exits 0, whatever else is given")
    func help() async throws {
        let run = try await PlaygroundExecutable.run(["-c", "GET /hello/", "--help"])

        #expect(run.output == CommandHelp.commandLineUsage(version: Playground.version) + "\n")
        #expect(run.status == 0)
    }

    @Test("an unknown option is a usage error: status 2, nothing run")
    func unknownOption() async throws {
        let run = try await PlaygroundExecutable.run(["--colour"], mergingStreams: false)

        #expect(run.standardOutput == "")
        #expect(run.standardError == "error: unknown option --colour (playground --help lists the options)\n")
        #expect(run.status == 2)
    }

    @Test("-c runs commands separated by ; without the welcome, and ignores standard input")
    func dashC() async throws {
        let run = try await PlaygroundExecutable.run(["-c", "GET /hello/; text", "-c", "base"], input: "bogus\n")

        #expect(run.masked == "200 OK  N ms  11 bytes\nHello World\nbase URL: http://127.0.0.1:PORT (the sandbox)\n")
        #expect(run.status == 0)
    }

    @Test("a script file runs line by line; # starts a comment; quit stops it")
    func scriptFile() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        try """
            # a script
            GET /echo/ content=hi   # the echo endpoint
            text

            quit
            bogus
            """.write(to: directory.appendingPathComponent("script.txt"), atomically: true, encoding: .utf8)

        let run = try await PlaygroundExecutable.run(["script.txt"], directory: directory)

        #expect(run.masked == "200 OK  N ms  2 bytes\nhi\n")
        #expect(run.status == 0)
    }

    @Test("template expands an RFC 6570 template: lists, associative arrays, undefined values")
    func template() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            template '/repos{/owner,repo}{?q,tags*}' owner=apple repo=swift q='a b' tags=x tags=y
            template '{?keys*}{&none}' keys:='{"b":"2","a":"1"}' none:=null
            template /search{?list} list:='["x", 1, true]'
            template '{x'

            """)

        #expect(run.masked == """
            /repos/apple/swift?q=a%20b&tags=x&tags=y
            ?a=1&b=2
            /search?list=x,1,true
            error: unclosed expression at 0 in "{x"

            """)
        #expect(run.status == 1)
    }

    @Test("service loads a profile; call requests its resources, on the sandbox when it has no BaseURL")
    func serviceCall() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        try """
            {
              "Resources": [
                { "Name": "inspect", "URITemplate": "/inspect/{?zip}" },
                { "Name": "upload", "URITemplate": "/dumpupload/{kind}", "Method": "POST" },
                { "Name": "echo", "URITemplate": "/echo/" }
              ]
            }
            """.write(to: directory.appendingPathComponent("sandbox.json"), atomically: true, encoding: .utf8)

        let run = try await PlaygroundExecutable.run(["-q"], input: """
            service sandbox.json
            call inspect zip=15217
            json query
            call upload kind= a=1 n:=2
            text
            curl
            call echo content=extra
            text
            call nowhere

            """, directory: directory)

        // The size of /inspect/'s report depends on the headers URLSession adds.
        let output = run.masked.replacing(#/\d+ bytes\n"zip/#, with: "BODY bytes\n\"zip")
        #expect(output == """
            loaded sandbox.json: 3 resources, base URL http://127.0.0.1:PORT
              inspect  GET   /inspect/{?zip}
              upload   POST  /dumpupload/{kind}
              echo     GET   /echo/
            200 OK  N ms  BODY bytes
            "zip=15217"
            200 OK  N ms  15 bytes
            {"a":"1","n":2}
            curl -X 'POST' -H 'Content-Type: application/json' --data-binary '{"a":"1","n":2}' 'http://127.0.0.1:PORT/dumpupload/'
            200 OK  N ms  5 bytes
            extra
            error: the service has no resource named "nowhere" (it has inspect, upload, echo)

            """)
    }

    @Test("errors print one line and the session goes on; the status is then 1")
    func errorsDoNotEndTheSession() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            text
            FETCH /hello/
            GET
            POST /dumpupload/ n:=4x2
            GET /hello/ n:=1
            GET ftp://example.com/
            base http://127.0.0.1:1
            GET /hello/
            base sandbox
            header Broken
            json
            help frobnicate
            GET /hello/; text

            """, mergingStreams: false)

        #expect(PlaygroundExecutable.masked(run.standardError) == """
            error: no response yet: send a request first (GET /hello/)
            error: unknown command FETCH (type help for the list)
            error: usage: GET path-or-url [key=value ...]
            error: invalid JSON value in n:=4x2 (quote strings: key:='"text"', or use key=text)
            error: n:=1 needs a body: raw JSON values are for POST, PUT and PATCH
            error: invalid URL ftp://example.com/: the scheme must be http or https
            error: GET http://127.0.0.1:1/hello/: cannot connect to 127.0.0.1:1 (is a server listening?)
            error: usage: header [Name: value | Name:]
            error: the last request got no response
            error: no command named frobnicate (help lists them)

            """)
        #expect(PlaygroundExecutable.masked(run.standardOutput) == """
            base URL: http://127.0.0.1:1
            base URL: http://127.0.0.1:PORT (the sandbox)
            200 OK  N ms  11 bytes
            Hello World

            """)
        #expect(run.status == 1)
    }

    @Test("base URL <url>, as the README writes it, sends the next request there; a bad one changes nothing")
    func baseURLAsTheREADMEWritesIt() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            base URL http://127.0.0.1:1
            GET /hello/
            base URL ht!tp://x
            base URL
            base URL sandbox
            GET /hello/

            """)

        #expect(run.masked == """
            base URL: http://127.0.0.1:1
            error: GET http://127.0.0.1:1/hello/: cannot connect to 127.0.0.1:1 (is a server listening?)
            error: invalid base URL ht!tp://x: ht!tp is not a URL scheme (http or https)
            base URL: http://127.0.0.1:1
            base URL: http://127.0.0.1:PORT (the sandbox)
            200 OK  N ms  11 bytes

            """)
        #expect(run.status == 1)
    }

    @Test("every command succeeding exits 0; quit ends the input early")
    func quitAndSuccess() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: "GET /hello/\nexit\nbogus\n")

        #expect(run.masked == "200 OK  N ms  11 bytes\n")
        #expect(run.status == 0)
    }

    @Test("history lists the lines; the history file is not written when not on a terminal")
    func historyNotOnATerminal() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(["-q"], input: "help text\n\nhistory\n", directory: directory)

        #expect(run.output == """
            text
              its body as text, in the charset it names
                1  help text
                2  history

            """)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("history").path))
    }

    @Test("help lists every command")
    func helpCommand() async throws {
        let run = try await PlaygroundExecutable.run(["-c", "help"])

        #expect(run.output == CommandHelp.overview + "\n")
        for entry in CommandHelp.entries {
            #expect(run.output.contains(entry.synopsis))
        }
    }

    @Test("Ctrl-C (SIGINT) cancels the running request and stops a script with status 130")
    func interrupt() async throws {
        let run = try await PlaygroundExecutable.run(
            ["-c", "GET /hello/; GET /drip/?n=100&interval=0.1; GET /hello/"], interruptAfterOutput: "bytes\n")

        #expect(run.masked == """
            200 OK  N ms  11 bytes
            error: GET http://127.0.0.1:PORT/drip/?n=100&interval=0.1: cancelled

            """)
        #expect(run.status == 130)
    }
}
