import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// Whether this machine can listen on the IPv6 loopback address.
private let hasIPv6Loopback: Bool = {
    guard let sandbox = try? Sandbox.start(host: "::1") else { return false }
    sandbox.stop()
    return true
}()

/// Requests to an IPv6 literal host, `http://[::1]:port/`, on every transport.
@Suite("IPv6", .onEveryTransport, .enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
struct IPv6Tests {
    @Test("a GET and a POST to http://[::1]:port/ succeed; the metrics name ::1")
    func loopback() async throws {
        let sandbox = try Sandbox.start(host: "::1")
        defer { sandbox.stop() }
        let base = "http://[::1]:\(sandbox.port)"
        let session = makeSession()
        if TransportUnderTest.current == .urlSession {
            // FoundationNetworking refuses an IPv6 literal host before sending anything.
            await withKnownIssue("URLSession on Linux fails http://[::1]:port/ with URLError(.badURL)") {
                _ = try await HTTPCycle.get(base + "/hello/", session: session)
            }
            return
        }
        let hello = try await HTTPCycle.get(base + "/hello/", session: session)
        #expect(hello.response.statusCode == 200)
        #expect(hello.response.text == "Hello World")
        let echoed = try await HTTPCycle.upload(base + "/dumpupload/", source: .data(Data("v6".utf8)), session: session)
        #expect(echoed.response.data == Data("v6".utf8))
        // Both transports that get here measure the attempt.
        #expect(hello.response.metrics?.remoteAddress == "::1")
        #expect(hello.response.metrics?.remotePort == Int(sandbox.port))
        #expect(echoed.response.metrics?.localAddress == "::1")
        #expect(echoed.response.metrics?.requestBodyBytes == 2)
    }
}
