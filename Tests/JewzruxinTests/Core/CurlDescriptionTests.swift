import Foundation
import JewzruxinTestSupport
import Testing
@testable import Jewzruxin

@Suite("curlDescription")
struct CurlDescriptionTests {
    @Test("a GET is just the quoted URL")
    func get() throws {
        let request = HTTPRequest(url: try #require(URL(string: "http://example.com/a?b=c&d=e")))
        #expect(request.curlDescription == "curl 'http://example.com/a?b=c&d=e'")
    }

    @Test("method, headers in name order, and a text body with a quote in it")
    func post() throws {
        var request = HTTPRequest(url: try #require(URL(string: "http://example.com/post")), method: .post)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("it's me", forHTTPHeaderField: "X-Note")
        request.data = Data(#"{"q":"it's"}"#.utf8)
        #expect(request.curlDescription == #"curl -X 'POST' -H 'Content-Type: application/json' -H 'X-Note: it'\''s me' --data-binary '{"q":"it'\''s"}' 'http://example.com/post'"#)
    }

    @Test("HEAD uses --head; a binary body uses ANSI-C quoting")
    func headAndBinary() throws {
        let head = HTTPRequest(url: try #require(URL(string: "http://h/")), method: .head)
        #expect(head.curlDescription == "curl --head 'http://h/'")
        var binary = HTTPRequest(url: try #require(URL(string: "http://h/")), method: .put)
        binary.data = Data([0x00, 0xFF, 0x41])
        #expect(binary.curlDescription == #"curl -X 'PUT' --data-binary $'\x00\xff\x41' 'http://h/'"#)
    }

    @Test("the command really works: run by a shell, it prints what curl would send")
    func shellRoundTrip() throws {
        // The quoted words must survive a real shell: echo them back through /bin/sh.
        var request = HTTPRequest(url: try #require(URL(string: "http://h/x")), method: .post)
        request.data = Data("a 'quoted' $HOME `cmd` \\ body".utf8)
        let command = request.curlDescription.replacingOccurrences(of: "curl ", with: "printf '%s\\n' ")
        let pipe = Pipe()
        let process = try ChildProcess("/bin/sh", ["-c", command], output: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output == "-X\nPOST\n--data-binary\na 'quoted' $HOME `cmd` \\ body\nhttp://h/x\n")
    }
}
