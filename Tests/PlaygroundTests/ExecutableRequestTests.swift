import Foundation
import JewzruxinAuth
import JewzruxinSandbox
@testable import PlaygroundKit
import Testing

/// The built `playground` executable, run with scripted input: requests and the views of their
/// responses, checked against the exact output (ports and times masked).
@Suite("playground executable: requests and views")
struct ExecutableRequestTests {
    @Test("piped input shows the welcome, then GET /hello/ prints 200 and Hello World")
    func welcomeThenHello() async throws {
        let run = try await PlaygroundExecutable.run(input: "GET /hello/\ntext\n")

        let welcome = CommandHelp.welcome(version: Playground.version, baseURL: "http://127.0.0.1:PORT")
        #expect(run.masked == welcome + "\n" + """
            200 OK  N ms  11 bytes
            Hello World

            """)
        #expect(run.status == 0)
    }

    @Test("POST sends a form by default; text, headers and curl show the exchange")
    func postForm() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            POST /dumpupload/ a=1 'b=x y' c=ü
            text
            headers
            curl

            """)

        #expect(run.masked == """
            200 OK  N ms  18 bytes
            a=1&b=x+y&c=%C3%BC
            Content-Length: 18
            Content-Type: application/x-www-form-urlencoded
            curl -X 'POST' -H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'a=1&b=x+y&c=%C3%BC' 'http://127.0.0.1:PORT/dumpupload/'

            """)
        #expect(run.status == 0)
    }

    @Test("key:=json values make a JSON body; json pretty-prints it with sorted keys, or follows a key path")
    func jsonBody() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            PUT /dumpupload/ name=Jane age:=42 tags:='["a","b"]' ok:=true none:=null
            json
            json tags.1
            curl
            PATCH /dumpupload/ --json
            text

            """)

        #expect(run.masked == """
            200 OK  N ms  63 bytes
            {
              "age": 42,
              "name": "Jane",
              "none": null,
              "ok": true,
              "tags": [
                "a",
                "b"
              ]
            }
            "b"
            curl -X 'PUT' -H 'Content-Type: application/json' --data-binary '{"age":42,"name":"Jane","none":null,"ok":true,"tags":["a","b"]}' 'http://127.0.0.1:PORT/dumpupload/'
            200 OK  N ms  2 bytes
            {}

            """)
        #expect(run.status == 0)
    }

    @Test("GET, DELETE and HEAD send their items as query parameters")
    func queryParameters() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            GET /inspect/ q=='a b' x=1
            json query
            json method
            DELETE /inspect/ z=9
            json target
            HEAD /hello/
            headers

            """)

        // The size of /inspect/'s report depends on the headers URLSession adds.
        let output = run.masked.replacing(#/\d+ bytes\n"/#, with: "REPORT bytes\n\"")
        #expect(output == """
            200 OK  N ms  REPORT bytes
            "q=a%20b&x=1"
            "GET"
            200 OK  N ms  REPORT bytes
            "/inspect/?z=9"
            200 OK  N ms  0 bytes
            Content-Length: 11
            Content-Type: text/plain; charset=utf-8

            """)
    }

    @Test("a status ≥ 400 is shown like any other response, and its body can be read")
    func errorStatus() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: "GET /status/503\ntext\n")

        #expect(run.masked == "503 Service Unavailable  N ms  10 bytes\nstatus 503\n")
        #expect(run.status == 0)
    }

    @Test("auth answers Basic and Digest challenges until auth off")
    func authentication() async throws {
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            auth
            auth test 12345
            auth
            GET /hello_with_basic_auth/
            GET /digest_auth/auth/MD5/
            text
            auth off
            GET /digest_auth/auth/MD5/

            """)

        #expect(run.masked == """
            auth: off
            auth: test (answers Basic and Digest challenges)
            200 OK  N ms  11 bytes
            200 OK  N ms  11 bytes
            Hello World
            401 Unauthorized  N ms  12 bytes

            """)
    }

    @Test("download streams /bytes/N to a file with a final progress line; the file holds the pattern")
    func download() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(["-q", "-c", "download /bytes/200000 blob.bin"], directory: directory)

        #expect(run.masked == """
            [####################] 100%  195.3 KiB / 195.3 KiB  RATE/s  done
            200 OK  N ms  200000 bytes
            saved 200000 bytes to blob.bin

            """)
        #expect(run.status == 0)
        let data = try Data(contentsOf: directory.appendingPathComponent("blob.bin"))
        #expect(data == SandboxBody.expectedPattern(count: 200_000))
    }

    @Test("a cut download keeps its partial file; download --resume asks for the rest and completes the file")
    func resumeDownload() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(
            ["-q", "-c", "download /range/200000?drop_after=50000 blob.bin; download --resume"], directory: directory)

        #expect(run.masked.contains("kept 50000 bytes in blob.bin.partial: download --resume goes on\n"))
        #expect(run.masked.contains("resuming blob.bin after 50000 bytes\n"))
        #expect(run.masked.hasSuffix("206 Partial Content  N ms  200000 bytes\nsaved 200000 bytes to blob.bin\n"))
        let data = try Data(contentsOf: directory.appendingPathComponent("blob.bin"))
        #expect(data == SandboxBody.expectedPattern(count: 200_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "history" } == ["blob.bin"])
    }

    @Test("download --resume without an interrupted download says so")
    func resumeNothing() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(["-q", "-c", "download --resume"], directory: directory)
        #expect(run.masked == "error: no interrupted download to resume\n")
        #expect(run.status == 1)
    }

    @Test("a download the server refuses leaves no file and fails")
    func refusedDownload() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(["-q", "-c", "download /status/404 missing.bin; text"], directory: directory)

        #expect(run.masked == """
            404 Not Found  N ms  10 bytes
            error: nothing saved: the server answered 404 Not Found
            status 404

            """)
        #expect(run.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "history" } == [])
    }

    @Test("key@file items send a multipart form: fields and the file, byte for byte; a missing file is an error")
    func multipartForm() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        try Data("hello, form\n".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let run = try await PlaygroundExecutable.run(["-q"], input: """
            POST /multipart/ name=Jane file@notes.txt
            json parts.0.name
            json parts.1.filename
            json parts.1.contentType
            json parts.1.size
            json parts.1.sha256
            POST /multipart/ f@missing.txt

            """, directory: directory)

        let lines = run.masked.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 8)
        #expect(lines.first?.hasPrefix("200 OK  N ms  ") == true)
        #expect(Array(lines.dropFirst().prefix(5)) == [
            "\"name\"", "\"notes.txt\"", "\"text/plain\"", "12",
            "\"\(SHA256.hexHash(Data("hello, form\n".utf8)))\"",
        ])
        #expect(lines[6].hasPrefix("error: POST http://127.0.0.1:PORT/multipart/: the file "))
        #expect(lines[6].hasSuffix("missing.txt of the form part \"f\" can't be read: no such file"))
        #expect(run.status == 1)
    }

    @Test("save writes the last body to a file")
    func save() async throws {
        let directory = try PlaygroundExecutable.temporaryDirectory()
        defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
        let run = try await PlaygroundExecutable.run(["-q", "-c", "GET /bytes/300; save body.bin"], directory: directory)

        #expect(run.masked == "200 OK  N ms  300 bytes\nsaved 300 bytes to body.bin\n")
        #expect(try Data(contentsOf: directory.appendingPathComponent("body.bin")) == SandboxBody.expectedPattern(count: 300))
    }
}
