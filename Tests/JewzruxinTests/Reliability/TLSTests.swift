import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// TLS errors (issue #9, L12). FoundationNetworking reports a server certificate that fails
// verification as NSURLErrorDomain code -1 (`unknown`), not -1202, with libcurl's message as its
// description ("SSL certificate problem: self-signed certificate", the same in its underlying
// error). The cycle turns it into `URLError(.serverCertificateUntrusted)`; other -1 errors (a body
// cut short is one) stay as they are. The end-to-end test serves a freshly made self-signed
// certificate with `openssl s_server`; it is skipped where /usr/bin/openssl is absent.
//
// The curl transport's TLS settings: trust in an extra CA, pins, a minimum version, a client
// certificate; and certificates that must be refused though their CA is trusted, one expired, one
// for another host, issued by a throwaway CA (TestCertificateAuthority.swift). HTTP/2, negotiated
// by ALPN or not offered, against a minimal h2 server behind `openssl s_server` (HTTP2PipeServer.swift).

/// The OpenSSL command line tool the end-to-end test needs.
let opensslPath = "/usr/bin/openssl"

/// Why a helper process could not be used.
struct HelperProcessError: Error, CustomStringConvertible {
    let description: String
}

/// Waits on a thread of its own for `process` to end; `nil`, with the process killed, when it
/// runs past `timeout` seconds.
func exitStatus(of process: ChildProcess, timeout: TimeInterval) async -> Int32? {
    let timedOut = Locked(false)
    let timer = DispatchWorkItem {
        timedOut.withLock { $0 = true }
        process.send(SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let status = await withHandover { (continuation: Handover<Int32, Never>) in
        Thread.detachNewThread { continuation.resume(returning: process.waitUntilExit()) }
    }
    timer.cancel()
    return timedOut.withLock { $0 } ? nil : status
}

/// Runs a process to its end, killing it after `timeout` seconds; its exit status.
func runProcess(_ path: String, _ arguments: [String], in directory: URL, timeout: TimeInterval = 30) async throws -> Int32 {
    let process = try ChildProcess(path, arguments, directory: directory)
    guard let status = await exitStatus(of: process, timeout: timeout) else {
        throw HelperProcessError(description: "\(path) \(arguments.joined(separator: " ")) did not run to its end within \(timeout) s")
    }
    return status
}

/// The port of `openssl s_server`'s "ACCEPT 127.0.0.1:<port>" line in its output `text`, if there.
func acceptedPort(in text: String) -> Int? {
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
          let colon = line.lastIndex(of: ":")
    else { return nil }
    return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
}

/// Serves a new self-signed certificate (CN=localhost, for 127.0.0.1 and localhost) with
/// `openssl s_server -www` on a free loopback port for the duration of `body`, then stops the server
/// and removes its files. `body` gets the port and the certificate's PEM file.
///
/// - Parameters:
///   - serverOptions: More `s_server` options (`-tls1_2` to offer TLS 1.2 only).
///   - requiresClientCertificate: Whether the server asks for a client certificate and refuses a
///     client without one; a self-signed one is made beside the server's (`client.pem`,
///     `client-key.pem`) and is the only one it accepts.
func withSelfSignedServer(
    serverOptions: [String] = [], requiresClientCertificate: Bool = false, _ body: (_ port: Int, _ certificate: URL) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("TLSTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let made = try await runProcess(opensslPath, [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", "key.pem", "-out", "cert.pem",
    ], in: directory)
    guard made == 0 else { throw HelperProcessError(description: "openssl req exited with \(made)") }
    var options = serverOptions
    if requiresClientCertificate {
        let client = try await runProcess(opensslPath, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=jewzruxin-client",
            "-keyout", "client-key.pem", "-out", "client.pem",
        ], in: directory)
        guard client == 0 else { throw HelperProcessError(description: "openssl req (client) exited with \(client)") }
        options += ["-Verify", "1", "-CAfile", "client.pem"]
    }

    try await withWWWServer(certificate: "cert.pem", key: "key.pem", options: options, in: directory) { port in
        try await body(port, directory.appendingPathComponent("cert.pem"))
    }
}

/// Serves `certificate` and `key` (PEM files in `directory`) with `openssl s_server -www` on a free
/// loopback port for the duration of `body`, then stops the server. `body` gets the port.
///
/// - Parameter options: More `s_server` options (`-tls1_2` to offer TLS 1.2 only).
func withWWWServer(
    certificate: String, key: String, options: [String] = [], in directory: URL, _ body: (_ port: Int) async throws -> Void
) async throws {
    // Port 0: the system picks a free one, and s_server prints it ("ACCEPT 127.0.0.1:<port>").
    let output = Pipe()
    let server = try ChildProcess(
        opensslPath, ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"] + options,
        directory: directory, output: output.fileHandleForWriting.fileDescriptor)
    try output.fileHandleForWriting.close()

    // Silent for 20 s: killed, so its output ends and no port is announced.
    let silence = DispatchWorkItem { server.send(SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: silence)
    let waiting = Locked<Handover<Int?, Never>?>(nil)
    let announce: @Sendable (Int?) -> Void = { port in waiting.withLock { $0.take() }?.resume(returning: port) }
    var collected: PipeCollector?
    let port = await withHandover { (continuation: Handover<Int?, Never>) in
        waiting.withLock { $0 = continuation }
        // Read on to the end even after the port is known, so the server never blocks on a full pipe.
        let collector = PipeCollector(output, trigger: { acceptedPort(in: $0) != nil }) { announce(acceptedPort(in: $0)) }
        Thread.detachNewThread {
            _ = collector.wait()
            announce(nil)
        }
        collected = collector
    }
    silence.cancel()

    /// Stops the server with SIGKILL (it may have inherited a blocked SIGTERM from the test
    /// process) and waits for its exit.
    func stop() async {
        server.send(SIGKILL)
        _ = await exitStatus(of: server, timeout: 5)
    }

    guard let port else {
        await stop()
        throw HelperProcessError(description: "openssl s_server did not report its port; output: \(collected?.text ?? "")")
    }
    do {
        try await body(port)
    } catch {
        await stop()
        throw error
    }
    await stop()
}

/// Checks that `error` is the translated untrusted-certificate error for `url`.
func checkUntrustedCertificate(_ error: (any Error)?, url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
    guard case HTTPError.transport(let urlError)? = error else {
        Issue.record("expected HTTPError.transport, got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(urlError.code == .serverCertificateUntrusted, "\(urlError)", sourceLocation: sourceLocation)
    #expect(urlError.localizedDescription.contains("TLS certificate is not trusted"), sourceLocation: sourceLocation)
    #expect(urlError.localizedDescription.contains("self-signed certificate"), "curl's message is kept", sourceLocation: sourceLocation)
    #expect(urlError.failingURL == url, sourceLocation: sourceLocation)
    // A native session's https goes to curl where curl is the default transport.
    let servedByCurl = TransportUnderTest.current == .curl
        || (TransportUnderTest.current == .native && HTTPSession.defaultTransport.name == "curl")
    if servedByCurl {
        #expect(urlError.userInfo["CURLcode"] as? Int == 60, "libcurl's result code is kept", sourceLocation: sourceLocation)
    } else {
        let underlying = urlError.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.domain == NSURLErrorDomain, sourceLocation: sourceLocation)
        #expect(underlying?.code == URLError.Code.unknown.rawValue, "FoundationNetworking's own error is kept", sourceLocation: sourceLocation)
    }
    #expect(HTTPError.transport(urlError).description.contains("not trusted"), sourceLocation: sourceLocation)
}

@Suite("TLS errors (L12)")
struct TLSTests {
    @Suite("a self-signed server certificate", .onEveryTransport,
           .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath),
                    "needs \(opensslPath) to make and serve a self-signed certificate"))
    struct SelfSigned {
        @Test("fails as serverCertificateUntrusted, with curl's message, through the callback and async APIs")
        func untrusted() async throws {
            try await withSelfSignedServer { port, _ in
                let string = "https://127.0.0.1:\(port)/"
                let url = try #require(URL(string: string))
                let session = makeSession {
                    $0.timeoutIntervalForRequest = 10
                    $0.timeoutIntervalForResource = 20
                }
                session.retryPolicy.maximumRetryCount = 0
                let indicator = NetworkActivityIndicator()
                session.networkActivityIndicator = indicator

                let result = try await outcome { try HTTPCycle.get(string, session: session, completionHandler: $0) }
                checkUntrustedCertificate(result.error, url: url)

                do {
                    let cycle = try await HTTPCycle.get(string, session: session)
                    Issue.record("expected an error, got status \(cycle.response.statusCode ?? 0)")
                } catch {
                    checkUntrustedCertificate(error, url: url)
                }
                #expect(await finishes(within: 30) { await session.drain() }, "the session became idle")
                #expect(session.runningTaskCount == 0)
                #expect(indicator.count == 0)
            }
        }
    }

    /// A session on the curl transport with `tls`, a short timeout and no retry.
    private static func curlSession(_ tls: HTTPSession.TLSSettings, options: CurlTransport.Options = .init()) -> HTTPSession {
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.timeoutIntervalForRequest = 10
        configuration.tls = tls
        let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl(options))
        session.retryPolicy.maximumRetryCount = 0
        return session
    }

    /// The `sha256//…` pin of the public key in the PEM certificate `file`, made with openssl.
    private static func publicKeyPin(of file: URL) async throws -> String {
        let output = Pipe()
        let shell = try ChildProcess("/bin/sh", ["-c", "\(opensslPath) x509 -pubkey -noout -in cert.pem | \(opensslPath) pkey -pubin -outform der "
            + "| \(opensslPath) dgst -sha256 -binary | base64"], directory: file.deletingLastPathComponent(), output: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let collector = PipeCollector(output)
        guard await exitStatus(of: shell, timeout: 30) == 0 else { throw HelperProcessError(description: "openssl could not hash the key") }
        return "sha256//" + String(decoding: collector.wait(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Suite("TLS settings on the curl transport", .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs \(opensslPath)"))
    struct Settings {
        @Test("a certificate trusted as a file or as PEM data makes the self-signed server trusted; pins are checked")
        func trustAndPins() async throws {
            try await withSelfSignedServer { port, certificate in
                let url = "https://127.0.0.1:\(port)/"
                var tls = HTTPSession.TLSSettings()
                tls.additionalTrustedCertificates = [.file(certificate)]
                let trusted = try await HTTPCycle.get(url, session: TLSTests.curlSession(tls))
                #expect(trusted.response.statusCode == 200)

                tls.additionalTrustedCertificates = [.data(try Data(contentsOf: certificate))]
                tls.pinnedPublicKeys = [try await TLSTests.publicKeyPin(of: certificate)]
                let pinned = try await HTTPCycle.get(url, session: TLSTests.curlSession(tls))
                #expect(pinned.response.statusCode == 200)

                tls.pinnedPublicKeys = ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
                do {
                    _ = try await HTTPCycle.get(url, session: TLSTests.curlSession(tls))
                    Issue.record("a certificate with another key passed the pin")
                } catch HTTPError.transport(let error) {
                    #expect(error.code == .serverCertificateUntrusted, "\(error)")
                    #expect(error.userInfo["CURLcode"] as? Int == 90)
                }
            }
        }

        @Test("a minimum of TLS 1.3 refuses a server that offers 1.2 at most")
        func minimumVersion() async throws {
            try await withSelfSignedServer(serverOptions: ["-tls1_2"]) { port, certificate in
                let url = "https://127.0.0.1:\(port)/"
                var tls = HTTPSession.TLSSettings()
                tls.additionalTrustedCertificates = [.file(certificate)]
                tls.minimumVersion = .tls1_2
                let accepted = try await HTTPCycle.get(url, session: TLSTests.curlSession(tls))
                #expect(accepted.response.statusCode == 200)
                tls.minimumVersion = .tls1_3
                do {
                    _ = try await HTTPCycle.get(url, session: TLSTests.curlSession(tls))
                    Issue.record("TLS 1.2 passed a minimum of 1.3")
                } catch HTTPError.transport(let error) {
                    #expect(error.code == .secureConnectionFailed, "\(error)")
                }
            }
        }
    }

    /// TLS settings that trust `authority`'s certificate (besides the system's).
    private static func trusting(_ authority: TestCertificateAuthority) -> HTTPSession.TLSSettings {
        var tls = HTTPSession.TLSSettings()
        tls.additionalTrustedCertificates = [.file(authority.certificate)]
        return tls
    }

    /// Checks that a GET of `url` on a session trusting `authority` fails as
    /// `serverCertificateUntrusted`, with libcurl's code 60 and its message, which contains `reason`.
    private static func expectRefused(
        _ url: String, trusting authority: TestCertificateAuthority, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        do {
            let cycle = try await HTTPCycle.get(url, session: curlSession(trusting(authority)))
            Issue.record("the certificate was taken: status \(cycle.response.statusCode ?? 0)", sourceLocation: sourceLocation)
        } catch HTTPError.transport(let error) {
            #expect(error.code == .serverCertificateUntrusted, "\(error)", sourceLocation: sourceLocation)
            #expect(error.userInfo["CURLcode"] as? Int == 60, "libcurl's PEER_FAILED_VERIFICATION", sourceLocation: sourceLocation)
            #expect(error.localizedDescription.hasPrefix("The server's TLS certificate is not trusted: "), sourceLocation: sourceLocation)
            #expect(error.localizedDescription.contains(reason), "curl's reason is kept: \(error.localizedDescription)", sourceLocation: sourceLocation)
            #expect(error.failingURL?.absoluteString == url, sourceLocation: sourceLocation)
        }
    }

    /// Certificates a test CA issued, one flaw each; the same CA's valid certificate is taken first,
    /// so that a refusal can only be for the flaw.
    @Suite("certificates from a trusted CA on the curl transport", .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs \(opensslPath)"))
    struct IssuedCertificates {
        /// Serves a certificate of `authority` for 127.0.0.1, valid from now, and checks that it is taken.
        private func expectTaken(from authority: TestCertificateAuthority) async throws {
            let valid = try await authority.issue("valid", subjectAltName: "IP:127.0.0.1,DNS:localhost", validity: .days(1))
            try await withWWWServer(certificate: valid.certificate.path, key: valid.key.path, in: authority.directory) { port in
                let cycle = try await HTTPCycle.get("https://127.0.0.1:\(port)/", session: TLSTests.curlSession(TLSTests.trusting(authority)))
                #expect(cycle.response.statusCode == 200)
            }
        }

        @Test("an expired certificate is refused as serverCertificateUntrusted, with curl's reason")
        func expired() async throws {
            try await withCertificateAuthority { authority in
                try await expectTaken(from: authority)
                let expired = try await authority.issue(
                    "expired", subjectAltName: "IP:127.0.0.1,DNS:localhost", validity: .between("20200101000000Z", "20200102000000Z"))
                try await withWWWServer(certificate: expired.certificate.path, key: expired.key.path, in: authority.directory) { port in
                    try await TLSTests.expectRefused("https://127.0.0.1:\(port)/", trusting: authority, reason: "certificate has expired")
                }
            }
        }

        @Test("a certificate for another host is refused as serverCertificateUntrusted, naming the host it was asked for")
        func wrongHost() async throws {
            try await withCertificateAuthority { authority in
                try await expectTaken(from: authority)
                let other = try await authority.issue(
                    "other", commonName: "other.example", subjectAltName: "DNS:other.example", validity: .days(1))
                try await withWWWServer(certificate: other.certificate.path, key: other.key.path, in: authority.directory) { port in
                    try await TLSTests.expectRefused(
                        "https://127.0.0.1:\(port)/", trusting: authority,
                        reason: "no alternative certificate subject name matches target host name '127.0.0.1'")
                }
            }
        }
    }

    /// HTTP/2 against ``HTTP2PipeServer``: `openssl s_server -alpn h2,http/1.1` ends TLS, the test speaks h2.
    @Suite("HTTP/2 on the curl transport", .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs \(opensslPath)"))
    struct HTTP2 {
        /// Serves one request over a certificate of a new test CA, with `run` given the server and
        /// TLS settings that trust it.
        private func withServer(body: String, _ run: (HTTP2PipeServer, HTTPSession.TLSSettings) async throws -> Void) async throws {
            try await withCertificateAuthority { authority in
                let server = try await authority.issue("server", subjectAltName: "IP:127.0.0.1,DNS:localhost", validity: .days(1))
                try await HTTP2PipeServer.serve(certificate: server.certificate, key: server.key, body: Data(body.utf8)) { pipe in
                    try await run(pipe, TLSTests.trusting(authority))
                }
            }
        }

        @Test("h2 is negotiated where the server offers it: the body arrives, the metrics and the head say HTTP/2")
        func negotiated() async throws {
            try await withServer(body: "served over h2") { server, tls in
                let cycle = try await HTTPCycle.get("https://127.0.0.1:\(server.port)/h2", session: TLSTests.curlSession(tls))
                #expect(cycle.response.statusCode == 200)
                #expect(cycle.response.text == "served over h2")
                #expect(cycle.response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
                #expect(cycle.response.metrics?.httpVersion == "HTTP/2")
                guard case .parsed(let head)? = cycle.response.head else {
                    Issue.record("the curl transport gave no parsed head")
                    return
                }
                #expect(head.httpVersion == "HTTP/2")

                let exchange = server.exchange
                #expect(exchange.offeredProtocols?.contains("h2") == true, "offered: \(exchange.offeredProtocols ?? [])")
                #expect(exchange.selectedProtocol == "h2")
                #expect(exchange.requestLine == "PRI * HTTP/2.0", "the connection preface")
                #expect(exchange.frameTypes.first == 4, "the client's first frame is its SETTINGS: \(exchange.frameTypes)")
                #expect(exchange.requestStream == 1)
                #expect(exchange.requestEndedStream, "a GET has no body")
                #expect(exchange.problem == nil)
            }
        }

        @Test("with httpVersion .http1_1 the client offers no h2 and sends an HTTP/1.1 request line")
        func http1Only() async throws {
            try await withServer(body: "served over HTTP/1.1") { server, tls in
                var options = CurlTransport.Options()
                options.httpVersion = .http1_1
                let cycle = try await HTTPCycle.get("https://127.0.0.1:\(server.port)/h1", session: TLSTests.curlSession(tls, options: options))
                #expect(cycle.response.statusCode == 200)
                #expect(cycle.response.text == "served over HTTP/1.1")
                #expect(cycle.response.metrics?.httpVersion == "HTTP/1.1")

                let exchange = server.exchange
                #expect(exchange.requestLine == "GET /h1 HTTP/1.1", "no preface")
                #expect(!(exchange.offeredProtocols ?? []).contains("h2"), "offered: \(exchange.offeredProtocols ?? [])")
                #expect(exchange.selectedProtocol != "h2")
                #expect(exchange.frameTypes.isEmpty)
                #expect(exchange.problem == nil)
            }
        }
    }

    @Test("a client certificate is presented when the server asks; without one the server refuses")
    func clientCertificate() async throws {
        guard FileManager.default.isExecutableFile(atPath: opensslPath) else { return }
        try await withSelfSignedServer(requiresClientCertificate: true) { port, certificate in
            let url = "https://127.0.0.1:\(port)/"
            let directory = certificate.deletingLastPathComponent()
            var tls = HTTPSession.TLSSettings()
            tls.additionalTrustedCertificates = [.file(certificate)]
            do {
                _ = try await HTTPCycle.get(url, session: Self.curlSession(tls))
                Issue.record("the server took a client without a certificate")
            } catch HTTPError.transport(let error) {
                // TLS 1.3's certificate_required alert, said as such rather than as a lost connection.
                #expect(error.code == .clientCertificateRequired, "\(error)")
                #expect(error.localizedDescription.contains("requires a client certificate"))
            }
            tls.clientCertificate = .init(
                certificate: .file(directory.appendingPathComponent("client.pem")),
                privateKey: .data(try Data(contentsOf: directory.appendingPathComponent("client-key.pem"))))
            let answered = try await HTTPCycle.get(url, session: Self.curlSession(tls))
            #expect(answered.response.statusCode == 200)
        }
    }

    @Test("a trusted certificate that isn't one fails https on curl with the reason", arguments: [
        HTTPSession.TLSSettings.PEM.data(Data("garbage".utf8)),
        .data(Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".utf8)),
        .data(Data("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8)),
    ])
    func garbageCertificate(pem: HTTPSession.TLSSettings.PEM) async throws {
        var tls = HTTPSession.TLSSettings()
        tls.additionalTrustedCertificates = [pem]
        do {
            _ = try await HTTPCycle.get("https://127.0.0.1:1/", session: Self.curlSession(tls))
            Issue.record("a garbled trusted certificate was ignored")
        } catch HTTPError.transport(let error) {
            #expect(error.code == .secureConnectionFailed)
            #expect(error.localizedDescription.contains("trusted certificate given as data"), "\(error.localizedDescription)")
        }
    }

    @Test("a trusted-certificate file holding garbage fails the same way, naming the file")
    func garbageCertificateFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-garbage-\(UUID().uuidString).pem")
        try Data("not a certificate\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var tls = HTTPSession.TLSSettings()
        tls.additionalTrustedCertificates = [.file(file)]
        do {
            _ = try await HTTPCycle.get("https://127.0.0.1:1/", session: Self.curlSession(tls))
            Issue.record("a trusted-certificate file of garbage was ignored")
        } catch HTTPError.transport(let error) {
            #expect(error.code == .secureConnectionFailed)
            #expect(error.localizedDescription.contains(file.path))
            #expect(error.localizedDescription.contains("holds no PEM certificate"))
        }
    }

    @Test("a trusted-certificate file that can't be read fails https on curl with the reason; URLSession refuses TLS settings")
    func settingsThatCantApply() async throws {
        var tls = HTTPSession.TLSSettings()
        tls.additionalTrustedCertificates = [.file(URL(fileURLWithPath: "/nonexistent/jewzruxin-ca.pem"))]
        #expect(tls.isCustomized)
        do {
            _ = try await HTTPCycle.get("https://127.0.0.1:1/", session: Self.curlSession(tls))
            Issue.record("an unreadable CA file was ignored")
        } catch HTTPError.transport(let error) {
            #expect(error.code == .secureConnectionFailed)
            #expect(error.localizedDescription.contains("/nonexistent/jewzruxin-ca.pem"))
        }
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.tls.minimumVersion = .tls1_3
        let urlSession = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .urlSession)
        urlSession.retryPolicy.maximumRetryCount = 0
        do {
            _ = try await HTTPCycle.get("https://127.0.0.1:1/", session: urlSession)
            Issue.record("URLSession sent a request without the session's TLS settings")
        } catch HTTPError.transport(let error) {
            #expect(error.code == .secureConnectionFailed)
            #expect(error.localizedDescription.contains("transport: .curl"))
        }
    }

    @Test("curl's certificate messages become serverCertificateUntrusted", arguments: [
        "SSL certificate problem: self-signed certificate",
        "SSL certificate problem: unable to get local issuer certificate",
        "SSL certificate problem: certificate has expired",
        "SSL certificate problem: self-signed certificate in certificate chain",
        "SSL: no alternative certificate subject name matches target host name 'example.com'",
        "SSL: certificate subject name 'a.example' does not match target host name 'b.example'",
    ])
    func mapsCertificateMessages(message: String) throws {
        let url = try #require(URL(string: "https://example.com/a"))
        let inner = NSError(domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: message])
        let reported = NSError(domain: NSURLErrorDomain, code: -1, userInfo: [
            NSLocalizedDescriptionKey: message, NSUnderlyingErrorKey: inner,
            NSURLErrorFailingURLErrorKey: url,
        ])
        for error in [reported as any Error, URLError(.unknown, userInfo: reported.userInfo)] {
            guard case HTTPError.transport(let mapped) = HTTPCycle.mapTransportError(URLSessionTransport.reportedError(error)) else {
                Issue.record("not a transport error: \(HTTPCycle.mapTransportError(URLSessionTransport.reportedError(error)))")
                continue
            }
            #expect(mapped.code == .serverCertificateUntrusted)
            #expect(mapped.localizedDescription.hasSuffix(message))
            #expect(mapped.failingURL == url)
            #expect((mapped.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == -1)
        }
    }

    @Test("the message may be only in the underlying error")
    func underlyingMessage() {
        let inner = NSError(domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: "SSL certificate problem: certificate has expired"])
        let mapped = HTTPCycle.mapTransportError(URLSessionTransport.reportedError(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: inner])))
        guard case HTTPError.transport(let urlError) = mapped else {
            Issue.record("not a transport error: \(mapped)")
            return
        }
        #expect(urlError.code == .serverCertificateUntrusted)
    }

    @Test("a body cut short and a reset are networkConnectionLost, as on the other transports", arguments: [
        "transfer closed with 50000 bytes remaining to read", "transfer closed with outstanding read data remaining",
        "Recv failure: Connection reset by peer", "Send failure: Broken pipe",
    ])
    func lostConnection(message: String) {
        let original = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message])
        guard case HTTPError.transport(let mapped) = HTTPCycle.mapTransportError(URLSessionTransport.reportedError(original)) else {
            Issue.record("not a transport error")
            return
        }
        #expect(mapped.code == .networkConnectionLost)
        #expect((mapped.userInfo[NSLocalizedDescriptionKey] as? String)?.hasSuffix(message) == true)
    }

    @Test("other -1 errors, and other codes with a certificate message, are left as they are", arguments: [
        (URLError.Code.unknown, "SSL_ERROR_SYSCALL in connection to 127.0.0.1:443"),
        (URLError.Code.unknown, ""),
        (URLError.Code.secureConnectionFailed, "SSL certificate problem: self-signed certificate"),
        (URLError.Code.networkConnectionLost, "SSL certificate problem: self-signed certificate"),
    ])
    func leavesOthers(code: URLError.Code, message: String) {
        let original = URLError(code, userInfo: message.isEmpty ? [:] : [NSLocalizedDescriptionKey: message])
        guard case HTTPError.transport(let mapped) = HTTPCycle.mapTransportError(URLSessionTransport.reportedError(original)) else {
            Issue.record("not a transport error: \(HTTPCycle.mapTransportError(URLSessionTransport.reportedError(original)))")
            return
        }
        #expect(mapped.code == code)
        #expect(mapped.userInfo[NSLocalizedDescriptionKey] as? String == (message.isEmpty ? nil : message))
    }

    @Test("a cancellation is still HTTPError.cancelled")
    func cancellation() {
        guard case HTTPError.cancelled = HTTPCycle.mapTransportError(URLError(.cancelled)) else {
            Issue.record("expected HTTPError.cancelled")
            return
        }
    }
}
