import Foundation
import Jewzruxin
import JewzruxinSandbox
import Testing
@testable import PlaygroundKit

/// `metrics` and `timing`: how the last exchange went on the wire, from the response's metrics.
@Suite("Playground: metrics and timing")
struct MetricsCommandTests {
    /// `text` with the times (`1.25 ms`) and the ports masked.
    private func masked(_ text: String) -> String {
        PlaygroundExecutable.masked(text.replacing(#/\d+\.\d\d ms/#, with: "T ms"))
    }

    @Test("metrics: protocol, addresses, new or reused connection, every time, the bytes each way", arguments: ["curl", "native"])
    func metrics(transport: String) async throws {
        try await withPlayground { playground, output, sandbox in
            #expect(await playground.run(line: "transport \(transport); POST /dumpupload/ a=b").succeeded)
            output.clear()
            #expect(await playground.run(line: "metrics").succeeded)
            let head = try #require(playground.last?.response?.metrics?.responseHeaderBytes)
            #expect(masked(output.all) == """
                protocol       HTTP/1.1
                remote         127.0.0.1:PORT
                local          127.0.0.1:PORT
                connection     new
                name lookup    T ms
                connect        T ms
                TLS handshake  none (no TLS)
                request sent   T ms
                first byte     T ms
                total          T ms
                sent           3 bytes of body
                received       3 bytes of body, \(head) bytes of head

                """)
            #expect(output.standardOutput.contains("remote         127.0.0.1:\(sandbox.port)\n"))

            output.clear()
            #expect(await playground.run(line: "GET /bytes/1000; metrics").succeeded)
            #expect(output.standardOutput.contains("\nconnection     reused\n"))
            #expect(output.standardOutput.contains("\nsent           0 bytes of body\n"))
            #expect(output.standardOutput.contains("\nreceived       1000 bytes of body, "))
        }
    }

    @Test("timing on adds a line after each request, a download's too; timing off stops it; timing alone tells",
          arguments: ["curl", "native"])
    func timing(transport: String) async throws {
        try await withPlayground { playground, output, sandbox in
            #expect(await playground.run(line: "transport \(transport); timing; timing on; GET /hello/; GET /status/404; download /bytes/10 ten.bin")
                .succeeded)
            #expect(masked(output.standardOutput) == """
                transport: \(transport)
                timing: off
                timing: on
                200 OK  N ms  11 bytes
                HTTP/1.1  127.0.0.1:PORT  new connection  lookup T ms  connect T ms  first byte T ms  total T ms
                404 Not Found  N ms  10 bytes
                HTTP/1.1  127.0.0.1:PORT  reused connection  lookup T ms  connect T ms  first byte T ms  total T ms
                [####################] 100%  10 B / 10 B  RATE/s  done
                200 OK  N ms  10 bytes
                HTTP/1.1  127.0.0.1:PORT  reused connection  lookup T ms  connect T ms  first byte T ms  total T ms
                saved 10 bytes to ten.bin

                """)
            #expect(output.standardOutput.contains("HTTP/1.1  127.0.0.1:\(sandbox.port)  new connection"))

            output.clear()
            #expect(await playground.run(line: "timing OFF; GET /hello/; timing").succeeded)
            #expect(masked(output.all) == "timing: off\n200 OK  N ms  11 bytes\ntiming: off\n")
        }
    }

    @Test("on a transport without metrics, metrics and timing say so; metrics names the transport the request ran on")
    func noMetrics() async throws {
        try await withPlayground { playground, output, _ in
            #expect(!(await playground.run(line: "metrics").succeeded))
            #expect(output.standardError == "error: no response yet: send a request first (GET /hello/)\n")

            output.clear()
            #expect(!(await playground.run(line: "transport urlsession; timing on; GET /hello/; transport curl; metrics").succeeded))
            #expect(masked(output.standardOutput) == """
                transport: urlsession
                timing: on, but the urlsession transport measures no timings (transports curl and native do)
                200 OK  N ms  11 bytes
                no timings: the urlsession transport measured none
                transport: curl

                """)
            #expect(output.standardError
                == "error: the last response came over the urlsession transport, which measures no timings (transports curl and native do)\n")
        }
    }

    @Test("why a response has no metrics: URLSession, https:// a native session sent there, or an attempt measured nothing")
    func unmeasured() throws {
        let https = try #require(URL(string: "https://example.com/"))
        let http = try #require(URL(string: "http://example.com/"))
        #expect(Playground.unmeasured(on: .native, url: https)
            == "came over URLSession, where the native transport sends https://, which measures no timings (transport curl does)")
        #expect(Playground.unmeasured(on: .native, url: http)
            == "has no timings: the native transport measures none for a request that was cancelled, timed out or never connected")
        #expect(Playground.unmeasured(on: .curl, url: https).hasPrefix("has no timings: the curl transport"))
        #expect(Playground.unmeasured(on: .urlSession, url: http).hasPrefix("came over the urlsession transport"))
    }

    @Test("the summary and the metrics lines show TLS and IPv6 addresses as they are")
    func formatting() {
        let metrics = HTTPTransferMetrics(
            nameLookup: 0.001, connect: 0.002, tlsHandshake: 0.0125, requestStart: 0.013, firstByte: 0.02, total: 0.0215,
            httpVersion: "HTTP/2", remoteAddress: "::1", remotePort: 8443, localAddress: "::1", localPort: 50000,
            requestBodyBytes: 1, responseBodyBytes: 0, responseHeaderBytes: 120, reusedConnection: true)
        #expect(Playground.timingSummary(metrics)
            == "HTTP/2  [::1]:8443  reused connection  lookup 1.00 ms  connect 2.00 ms  TLS 12.50 ms  first byte 20.00 ms  total 21.50 ms")
        let lines = Playground.metricsLines(metrics)
        #expect(lines.contains("TLS handshake  12.50 ms"))
        #expect(lines.contains("remote         [::1]:8443"))
        #expect(lines.contains("sent           1 byte of body"))
        #expect(lines.contains("received       0 bytes of body, 120 bytes of head"))
    }
}
