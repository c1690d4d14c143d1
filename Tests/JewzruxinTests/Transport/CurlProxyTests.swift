import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's proxy on the curl transport, against real proxies: the sandbox as an HTTP proxy (it
/// serves absolute-form targets) and the sandbox's SOCKS5 proxy.
@Suite("Curl transport: proxies")
struct CurlProxyTests {
    /// A curl session with `configuration`, without retries.
    private func session(_ configuration: HTTPSession.Configuration) -> HTTPSession {
        let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl)
        session.retryPolicy.maximumRetryCount = 0
        return session
    }

    private func configuration(_ proxy: HTTPSession.ProxySettings?) -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.proxy = proxy
        return configuration
    }

    /// The `URLError` a GET of `url` on `session` fails with.
    private func transportError(_ url: String, _ session: HTTPSession) async throws -> URLError? {
        do {
            let cycle = try await HTTPCycle.get(url, session: session)
            Issue.record("\(url) succeeded with \(cycle.response.statusCode ?? 0)")
            return nil
        } catch HTTPError.transport(let error) {
            return error
        }
    }

    @Test("a configured HTTP proxy gets every request in absolute form, with its credentials; excluded hosts go direct")
    func httpProxy() async throws {
        try await withSandbox { sandbox in
            let port = try #require(sandbox.baseURL.port)
            var configuration = configuration(.init(.http, host: "127.0.0.1", port: port))
            configuration.proxy?.username = "user:name"
            configuration.proxy?.password = "p@ss%41"
            // A host nobody resolves: only the proxy can answer.
            let proxied = try await HTTPCycle.get("http://proxied.invalid/inspect/?q=1", session: session(configuration))
            let seen = try InspectedRequest(proxied.response.data)
            #expect(seen.target == "http://proxied.invalid/inspect/?q=1")
            #expect(seen.header("Proxy-Authorization") == "Basic " + Data("user:name:p@ss%41".utf8).base64EncodedString())

            configuration.proxy?.excludedHosts = ["127.0.0.1"]
            let answered = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session(configuration))
            #expect(try InspectedRequest(answered.response.data).target == "/inspect/")

            for transport in [HTTPTransport?.some(.native), .some(.urlSession)] {
                let refusing = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: transport)
                refusing.retryPolicy.maximumRetryCount = 0
                do {
                    _ = try await HTTPCycle.get(sandbox.string("/hello/"), session: refusing)
                    Issue.record("a session with a proxy went direct on \(String(describing: transport))")
                } catch HTTPError.transport(let error) {
                    #expect(error.code == .cannotConnectToHost)
                    #expect(error.localizedDescription.contains("proxy"))
                }
            }
        }
    }

    @Test("through a SOCKS5 proxy the host name goes to the proxy unresolved (socks5h); an IPv4 literal as an address")
    func socks5() async throws {
        try await withSandbox { sandbox in
            try await SOCKSProxy.withProxy(hosts: ["sandbox.test": "127.0.0.1"]) { proxy in
                let session = session(configuration(.init(.socks5, host: "127.0.0.1", port: proxy.port)))
                // Only the proxy knows sandbox.test.
                let named = try await HTTPCycle.get("http://sandbox.test:\(sandbox.port)/inspect/?via=socks", session: session)
                let seen = try InspectedRequest(named.response.data)
                // A tunnel, not an HTTP proxy: the request is in origin form.
                #expect(seen.target == "/inspect/?via=socks")
                #expect(seen.header("Host") == "sandbox.test:\(sandbox.port)")
                #expect(named.response.metrics?.remoteAddress == "127.0.0.1")
                #expect(named.response.metrics?.remotePort == proxy.port)
                let first = try #require(proxy.handshakes.first)
                #expect(first.target == .init(addressType: .domainName, host: "sandbox.test", port: Int(sandbox.port)))
                #expect(first.chosenMethod == .noAuthentication)
                #expect(first.username == nil)
                #expect(first.reply == .succeeded)

                let literal = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
                #expect(literal.response.text == "Hello World")
                #expect(proxy.handshakes.last?.target == .init(addressType: .ipv4, host: "127.0.0.1", port: Int(sandbox.port)))
                #expect(proxy.handshakes.count == 2)
            }
        }
    }

    @Test("SOCKS5 credentials reach the proxy as given; a wrong password is a typed error, at once")
    func socks5Credentials() async throws {
        // A colon, a percent sign and UTF-8: libcurl splits, and percent-decodes, what it is given.
        let credentials = SOCKSProxy.Credentials(username: "us:er%41", password: "pä%ss:w")
        try await withSandbox { sandbox in
            try await SOCKSProxy.withProxy(credentials: credentials, hosts: ["sandbox.test": "127.0.0.1"]) { proxy in
                var settings = HTTPSession.ProxySettings(.socks5, host: "127.0.0.1", port: proxy.port)
                settings.username = credentials.username
                settings.password = credentials.password
                let hello = try await HTTPCycle.get("http://sandbox.test:\(sandbox.port)/hello/", session: session(configuration(settings)))
                #expect(hello.response.text == "Hello World")
                #expect(proxy.handshakes.first?.chosenMethod == .usernamePassword)
                #expect(proxy.handshakes.first?.username == "us:er%41")
                #expect(proxy.handshakes.first?.credentialsAccepted == true)

                settings.password = "wrong"
                let rejected = try await transportError("http://sandbox.test:\(sandbox.port)/hello/", session(configuration(settings)))
                #expect(rejected?.code == .userAuthenticationRequired)
                #expect(rejected?.localizedDescription.contains("127.0.0.1:\(proxy.port)") == true)
                #expect(proxy.handshakes.last?.credentialsAccepted == false)

                // No credentials for a proxy that requires them.
                settings.username = nil
                let unauthenticated = try await transportError("http://sandbox.test:\(sandbox.port)/hello/", session(configuration(settings)))
                #expect(unauthenticated?.code == .userAuthenticationRequired)
                #expect(proxy.handshakes.last?.chosenMethod == .noAcceptableMethods)
            }
        }
    }

    @Test("hosts excluded from a SOCKS5 proxy go direct: the proxy sees nothing")
    func socks5Excluded() async throws {
        try await withSandbox { sandbox in
            try await SOCKSProxy.withProxy(hosts: [:]) { proxy in
                var settings = HTTPSession.ProxySettings(.socks5, host: "127.0.0.1", port: proxy.port)
                settings.excludedHosts = ["example.test", "127.0.0.0/8"]
                let direct = try await HTTPCycle.get(sandbox.string("/hello/"), session: session(configuration(settings)))
                #expect(direct.response.text == "Hello World")
                #expect(direct.response.metrics?.remotePort == Int(sandbox.port))
                #expect(proxy.connectionCount == 0)
                #expect(proxy.handshakes.isEmpty)
            }
        }
    }

    @Test("the environment given to a session names the sandbox as http_proxy: requests go through it; no_proxy, HTTP_PROXY and .ignored go direct")
    func environmentHTTPProxy() async throws {
        try await withSandbox { sandbox in
            let proxyURL = "http://127.0.0.1:\(sandbox.port)"
            func target(_ variables: HTTPSession.ProxyEnvironment) async throws -> String {
                var configuration = HTTPSession.Configuration(.ephemeral)
                configuration.proxyEnvironment = variables
                let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session(configuration))
                return try InspectedRequest(cycle.response.data).target
            }
            let absolute = sandbox.string("/inspect/")
            // Absolute form: the request went to the sandbox as a proxy.
            #expect(try await target(.variables(["http_proxy": proxyURL])) == absolute)
            #expect(try await target(.variables(["all_proxy": proxyURL])) == absolute)
            #expect(try await target(.variables(["http_proxy": proxyURL, "no_proxy": "localhost,127.0.0.1"])) == "/inspect/")
            #expect(try await target(.variables(["http_proxy": proxyURL, "NO_PROXY": "127.0.0.0/8"])) == "/inspect/")
            #expect(try await target(.variables(["http_proxy": proxyURL, "no_proxy": "*"])) == "/inspect/")
            #expect(try await target(.variables(["HTTP_PROXY": proxyURL])) == "/inspect/")
            #expect(try await target(.variables(["https_proxy": proxyURL])) == "/inspect/")
            #expect(try await target(.ignored) == "/inspect/")

            // Credentials in the proxy URL, percent-decoded.
            var configuration = HTTPSession.Configuration(.ephemeral)
            configuration.proxyEnvironment = .variables(["http_proxy": "http://us%3Aer:p%40ss@127.0.0.1:\(sandbox.port)"])
            let cycle = try await HTTPCycle.get(sandbox.string("/inspect/"), session: session(configuration))
            let seen = try InspectedRequest(cycle.response.data)
            #expect(seen.header("Proxy-Authorization") == "Basic " + Data("us:er:p@ss".utf8).base64EncodedString())

            // A proxy the transport can't use fails the request, naming the variable, rather than going direct.
            configuration.proxyEnvironment = .variables(["http_proxy": "socks4://127.0.0.1:\(sandbox.port)"])
            let error = try await transportError(sandbox.string("/hello/"), session(configuration))
            #expect(error?.code == .cannotConnectToHost)
            #expect(error?.localizedDescription.contains("http_proxy") == true)
        }
    }

    @Test("the environment's all_proxy as socks5h sends names to the proxy; socks5 resolves them here")
    func environmentSOCKSProxy() async throws {
        try await withSandbox { sandbox in
            try await SOCKSProxy.withProxy(hosts: ["sandbox.test": "127.0.0.1", "localhost": "127.0.0.1"]) { proxy in
                var configuration = HTTPSession.Configuration(.ephemeral)
                configuration.proxyEnvironment = .variables(["all_proxy": "socks5h://127.0.0.1:\(proxy.port)"])
                let named = try await HTTPCycle.get("http://sandbox.test:\(sandbox.port)/hello/", session: session(configuration))
                #expect(named.response.text == "Hello World")
                #expect(proxy.handshakes.last?.target == .init(addressType: .domainName, host: "sandbox.test", port: Int(sandbox.port)))

                // socks5://: libcurl resolves localhost itself and sends the proxy an address.
                configuration.proxyEnvironment = .variables(["ALL_PROXY": "socks5://127.0.0.1:\(proxy.port)"])
                _ = try? await HTTPCycle.get("http://localhost:\(sandbox.port)/hello/", session: session(configuration))
                let resolved = try #require(proxy.handshakes.last?.target)
                #expect(resolved.addressType != .domainName)
                #expect(["127.0.0.1", "::1"].contains(resolved.host))
                #expect(proxy.handshakes.count == 2)
            }
        }
    }

    @Test("a target the SOCKS5 proxy can't reach, and a proxy that isn't listening, are typed errors naming the proxy")
    func socks5Failures() async throws {
        let refusing = try RefusingPort()
        try await SOCKSProxy.withProxy(hosts: ["refusing.test": "127.0.0.1"]) { proxy in
            let through = session(configuration(.init(.socks5, host: "127.0.0.1", port: proxy.port)))
            let refused = try await transportError("http://refusing.test:\(refusing.port)/", through)
            #expect(refused?.code == .cannotConnectToHost)
            #expect(proxy.handshakes.first?.reply == .connectionRefused)

            let unknown = try await transportError("http://unknown.test:\(refusing.port)/", through)
            #expect(unknown?.code == .cannotFindHost)
            #expect(proxy.handshakes.last?.reply == .hostUnreachable)
        }
        for kind in [HTTPSession.ProxySettings.Kind.socks5, .http] {
            let nobody = session(configuration(.init(kind, host: "127.0.0.1", port: refusing.port)))
            let error = try await transportError("http://sandbox.test/hello/", nobody)
            #expect(error?.code == .cannotConnectToHost)
            #expect(error?.localizedDescription.contains("proxy 127.0.0.1:\(refusing.port)") == true)
        }
    }
}

/// https through an HTTP proxy on the curl transport: libcurl opens a `CONNECT` tunnel to the
/// target, through the sandbox's `HTTPConnectProxy`, and speaks TLS to an `openssl s_server` inside
/// it (TLSTests.swift's helpers).
@Suite("Curl transport: https through an HTTP proxy (CONNECT)",
       .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs \(opensslPath) to serve https"))
struct CurlConnectProxyTests {
    /// A curl session, without retries, with `proxy` (or `environment`) and trusting `certificate`.
    private func session(
        _ proxy: HTTPSession.ProxySettings?, environment: HTTPSession.ProxyEnvironment? = nil, trusting certificate: URL? = nil
    ) -> HTTPSession {
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.proxy = proxy
        if let environment { configuration.proxyEnvironment = environment }
        configuration.tls.additionalTrustedCertificates = certificate.map { [.file($0)] } ?? []
        // Long enough that a failure that waits for it can't pass for a prompt one.
        configuration.timeoutIntervalForRequest = 30
        let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl)
        session.retryPolicy.maximumRetryCount = 0
        return session
    }

    /// The `URLError` a GET of `url` fails with, and how long it took.
    private func failure(_ url: String, _ session: HTTPSession) async throws -> (error: URLError?, seconds: TimeInterval) {
        let start = Date()
        do {
            let cycle = try await HTTPCycle.get(url, session: session)
            Issue.record("\(url) succeeded with \(cycle.response.statusCode ?? 0)")
            return (nil, Date().timeIntervalSince(start))
        } catch HTTPError.transport(let error) {
            return (error, Date().timeIntervalSince(start))
        }
    }

    @Test("an https GET goes through the tunnel: the server's status and body, not the proxy's 200; the proxy saw the target; https_proxy too")
    func tunnel() async throws {
        try await withSelfSignedServer { port, certificate in
            try await HTTPConnectProxy.withProxy { proxy in
                let url = "https://localhost:\(port)/"
                let cycle = try await HTTPCycle.get(url, session: session(.init(.http, host: "127.0.0.1", port: proxy.port), trusting: certificate))
                #expect(cycle.response.statusCode == 200)
                // openssl s_server -www answers with a page about the TLS session.
                #expect(cycle.response.text?.contains("s_server") == true)
                #expect(cycle.response.value(forHTTPHeaderField: "Proxy-Agent") == nil, "the proxy's answer to CONNECT passed for the response")
                #expect(cycle.response.metrics?.remotePort == proxy.port)
                let tunnel = try #require(proxy.tunnels.first)
                #expect(tunnel.method == "CONNECT")
                #expect(tunnel.target == "localhost:\(port)")
                #expect(tunnel.status == 200)
                #expect(tunnel.userPass == nil)

                let environment = HTTPSession.ProxyEnvironment.variables(["https_proxy": "http://127.0.0.1:\(proxy.port)"])
                let viaEnvironment = try await HTTPCycle.get(url, session: session(nil, environment: environment, trusting: certificate))
                #expect(viaEnvironment.response.statusCode == 200)
                #expect(proxy.tunnels.count == 2)
            }
        }
    }

    @Test("proxy credentials reach the proxy whole, a colon in the user name too; wrong or none are userAuthenticationRequired naming the proxy, at once")
    func credentials() async throws {
        let credentials = HTTPConnectProxy.Credentials(username: "us:er%41", password: "pä%ss:w")
        try await withSelfSignedServer { port, certificate in
            try await HTTPConnectProxy.withProxy(credentials: credentials) { proxy in
                let url = "https://localhost:\(port)/"
                var settings = HTTPSession.ProxySettings(.http, host: "127.0.0.1", port: proxy.port)
                settings.username = credentials.username
                settings.password = credentials.password
                let cycle = try await HTTPCycle.get(url, session: session(settings, trusting: certificate))
                #expect(cycle.response.statusCode == 200)
                #expect(proxy.tunnels.last?.userPass == "us:er%41:pä%ss:w")
                #expect(proxy.tunnels.last?.credentialsAccepted == true)

                settings.password = "wrong"
                let wrong = try await failure(url, session(settings, trusting: certificate))
                #expect(wrong.error?.code == .userAuthenticationRequired, "\(String(describing: wrong.error))")
                #expect(wrong.error?.localizedDescription.contains("proxy 127.0.0.1:\(proxy.port)") == true)
                #expect(wrong.error?.localizedDescription.contains("407") == true)
                #expect(wrong.error?.failingURL?.absoluteString == url)
                #expect(wrong.error?.userInfo["CURLconnectcode"] as? Int == 407)
                #expect(wrong.seconds < 10, "the refusal waited for a timeout: \(wrong.seconds) s")
                #expect(proxy.tunnels.last?.credentialsAccepted == false)
                #expect(proxy.tunnels.last?.status == 407)

                settings.username = nil
                settings.password = nil
                let none = try await failure(url, session(settings, trusting: certificate))
                #expect(none.error?.code == .userAuthenticationRequired, "\(String(describing: none.error))")
                #expect(none.seconds < 10)
                #expect(proxy.tunnels.last?.userPass == nil)
            }
        }
    }

    @Test("a CONNECT the proxy refuses is cannotConnectToHost with the proxy's status; an excluded host goes direct")
    func refusedAndExcluded() async throws {
        try await withSelfSignedServer { port, certificate in
            try await HTTPConnectProxy.withProxy(refusals: ["blocked.test": 403]) { proxy in
                var settings = HTTPSession.ProxySettings(.http, host: "127.0.0.1", port: proxy.port)
                let refused = try await failure("https://blocked.test/", session(settings))
                #expect(refused.error?.code == .cannotConnectToHost, "\(String(describing: refused.error))")
                #expect(refused.error?.localizedDescription.contains("proxy 127.0.0.1:\(proxy.port)") == true)
                #expect(refused.error?.localizedDescription.contains("403") == true)
                #expect(refused.seconds < 10)
                #expect(proxy.tunnels.map(\.target) == ["blocked.test:443"])

                settings.excludedHosts = ["localhost"]
                let direct = try await HTTPCycle.get("https://localhost:\(port)/", session: session(settings, trusting: certificate))
                #expect(direct.response.statusCode == 200)
                #expect(direct.response.metrics?.remotePort == port)
                #expect(proxy.connectionCount == 1)
            }
        }
    }
}
