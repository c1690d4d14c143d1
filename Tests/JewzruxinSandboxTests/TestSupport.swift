import Foundation
import Testing
@testable import JewzruxinSandbox
import JewzruxinTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Small helpers shared by the sandbox test suites.
enum TestSupport {
    /// Percent-encodes everything except RFC 3986 unreserved characters.
    static func encode(_ text: String) -> String {
        let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        let unreserved = CharacterSet(charactersIn: letters + "0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// `path?name=value&...` with every name and value percent-encoded.
    static func path(_ path: String, _ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// Performs a request with URLSession and returns the body and HTTP response.
    static func fetch(
        _ url: URL,
        method: String = "GET",
        body: Data? = nil,
        headers: [String: String] = [:],
        session: URLSession = .shared
    ) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (data, http)
    }

    /// Performs a GET for `pathAndQuery` on `sandbox`.
    static func get(_ sandbox: Sandbox, _ pathAndQuery: String) async throws -> (Data, HTTPURLResponse) {
        try await fetch(try #require(sandbox.url(pathAndQuery)))
    }

    /// Sends `request` on a fresh raw connection and reads the response.
    static func raw(_ sandbox: Sandbox, _ request: String, head: Bool = false) throws -> RawResponse {
        let client = try RawHTTPClient(port: sandbox.port)
        return try client.exchange(request, head: head)
    }

    /// A minimal `GET` request for the raw client.
    static func getRequest(_ target: String, method: String = "GET", extraHeaders: String = "") -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extraHeaders)\r\n"
    }

    /// Uppercase hex with spaces, for readable byte comparisons.
    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02X", $0) }.joined(separator: " ")
    }

    /// Bytes from a compact hex string such as `"D6D0CEC4"`.
    static func bytes(hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            if let byte = UInt8(hex[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }

    /// Seconds elapsed while running `body`.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = Date()
        let value = try await body()
        return (value, Date().timeIntervalSince(start))
    }

    /// Runs blocking `body` on a new thread and awaits its result, so blocking socket
    /// calls do not occupy the (small) cooperative thread pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withThrowingHandover { continuation in
            let thread = Thread {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }

    /// A sandbox on a free port below Linux's ephemeral range (32768–60999). Once it stops, neither
    /// the sandbox of a test running alongside (bound to port 0) nor an outgoing connection can take
    /// its port, so a test can check that the port is closed, or bind it again.
    static func startOutsideEphemeralRange() throws -> Sandbox {
        for _ in 0..<100 {
            if let sandbox = try? Sandbox.start(port: UInt16.random(in: 20_000..<32_000)) { return sandbox }
        }
        return try Sandbox.start(port: UInt16.random(in: 20_000..<32_000))
    }

    /// A scripted server on a port below the ephemeral range, for the same reason.
    static func scriptedOutsideEphemeralRange(_ scripts: [[ScriptedServer.Step]]) throws -> ScriptedServer {
        for _ in 0..<100 {
            if let server = try? ScriptedServer(connectionScripts: scripts, port: UInt16.random(in: 20_000..<32_000)) { return server }
        }
        return try ScriptedServer(connectionScripts: scripts, port: UInt16.random(in: 20_000..<32_000))
    }

    /// Whether connecting to `port` on 127.0.0.1 is refused.
    static func isRefused(port: UInt16) -> Bool {
        do {
            _ = try RawHTTPClient(port: port)
            return false
        } catch let error as RawClientError {
            return error.code == ECONNREFUSED
        } catch {
            return false
        }
    }
}
