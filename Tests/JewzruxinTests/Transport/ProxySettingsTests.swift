import Foundation
import Testing
@testable import Jewzruxin

/// Proxy URLs, the environment's proxy variables and the excluded hosts, by curl's rules: pure
/// values, no network.
@Suite("Proxy settings: URLs, environment variables, excluded hosts")
struct ProxySettingsTests {
    typealias Proxy = HTTPSession.ProxySettings

    @Test("a proxy URL: scheme (http by default), host, port (1080 by default), percent-decoded credentials")
    func proxyURLs() throws {
        let plain = try Proxy(url: "http://proxy.internal:3128")
        #expect(plain == Proxy(.http, host: "proxy.internal", port: 3128))
        #expect(try Proxy(url: "proxy.internal:3128") == plain)
        #expect(try Proxy(url: "http://proxy.internal:3128/") == plain)
        #expect(try Proxy(url: " proxy.internal ").port == 1080)
        #expect(try Proxy(url: "socks5h://127.0.0.1:1080").kind == .socks5)
        #expect(try Proxy(url: "SOCKS5://127.0.0.1:1080").kind == .socks5WithLocalResolution)
        #expect(try Proxy(url: "http://[::1]:3128") == Proxy(.http, host: "::1", port: 3128))
        #expect(try Proxy(url: "[fd00::2]").port == 1080)

        let credentials = try Proxy(url: "http://us%3Aer:p%40ss%20w@proxy:8080")
        #expect(credentials.username == "us:er")
        #expect(credentials.password == "p@ss w")
        #expect(credentials.host == "proxy")
        let userOnly = try Proxy(url: "socks5h://user@proxy")
        #expect(userOnly.username == "user")
        #expect(userOnly.password == nil)
    }

    @Test("proxy URLs that can't be used say why, without the password", arguments: [
        ("https://proxy:443", "scheme \"https\""),
        ("socks4://proxy:1080", "scheme \"socks4\""),
        ("http://:8080", "no host"),
        ("http://proxy:99999", "port \"99999\""),
        ("http://proxy:0", "port \"0\""),
        ("http://user:secret@proxy:x", "port \"x\""),
    ])
    func invalidProxyURLs(url: String, reason: String) {
        do {
            let proxy = try Proxy(url: url)
            Issue.record("\(url) was read as \(proxy)")
        } catch {
            #expect(error.reason.contains(reason))
            #expect(!error.description.contains("secret"))
            #expect(error.variable == nil)
        }
    }

    @Test("the environment: <scheme>_proxy, its upper case except HTTP_PROXY, then all_proxy; empty means none")
    func environmentVariables() throws {
        func proxy(_ variables: [String: String], _ scheme: String) throws -> String? {
            try Proxy.environment(variables, for: scheme).map { "\($0.host):\($0.port)" }
        }
        #expect(try proxy(["http_proxy": "http://a:1"], "http") == "a:1")
        // HTTP_PROXY is not read: a CGI program finds the request's Proxy header there.
        #expect(try proxy(["HTTP_PROXY": "http://evil:1"], "http") == nil)
        #expect(try proxy(["HTTP_PROXY": "http://evil:1", "all_proxy": "http://c:3"], "http") == "c:3")
        #expect(try proxy(["HTTPS_PROXY": "http://b:2"], "https") == "b:2")
        #expect(try proxy(["HTTPS_PROXY": "http://upper:2", "https_proxy": "http://lower:2"], "https") == "lower:2")
        #expect(try proxy(["https_proxy": "http://b:2"], "http") == nil)
        #expect(try proxy(["all_proxy": "socks5h://c:3"], "https") == "c:3")
        #expect(try proxy(["ALL_PROXY": "socks5h://d:4"], "http") == "d:4")
        #expect(try proxy(["all_proxy": "http://c:3", "ALL_PROXY": "http://d:4"], "http") == "c:3")
        #expect(try proxy(["https_proxy": "http://b:2", "all_proxy": "http://c:3"], "https") == "b:2")
        // Set but empty: no proxy, and all_proxy is not looked at.
        #expect(try proxy(["https_proxy": "", "all_proxy": "http://c:3"], "https") == nil)
        #expect(try proxy([:], "https") == nil)
        #expect(try Proxy.environment(["HTTPS_PROXY": "socks5://s:5"], for: "HTTPS")?.kind == .socks5WithLocalResolution)
    }

    @Test("no_proxy (or NO_PROXY) gives the excluded hosts; a bad value names its variable")
    func environmentExclusionsAndErrors() throws {
        let proxy = try #require(try Proxy.environment(
            ["http_proxy": "http://u:p%40ss@a:1", "no_proxy": "localhost, .example.com,,10.0.0.0/8 ::1", "NO_PROXY": "ignored"], for: "http"))
        #expect(proxy.excludedHosts == ["localhost", ".example.com", "10.0.0.0/8", "::1"])
        #expect(proxy.password == "p@ss")
        #expect(try Proxy.environment(["http_proxy": "http://a:1", "NO_PROXY": "*"], for: "http")?.excludedHosts == ["*"])

        do {
            _ = try Proxy.environment(["https_proxy": "https://user:secret@proxy:443"], for: "https")
            Issue.record("an https proxy was accepted")
        } catch {
            #expect(error.variable == "https_proxy")
            #expect(error.url == "https://user:***@proxy:443")
            #expect(error.description.hasPrefix("the environment's https_proxy (\"https://user:***@proxy:443\") can't be used"))
        }
    }

    @Test("excluded hosts by curl's rules: names and their subdomains, addresses and CIDR ranges, * alone", arguments: [
        ("example.com", ["example.com"], true),
        ("www.example.com", ["example.com"], true),
        ("www.example.com", [".example.com"], true),
        ("example.com", [".example.com"], true),
        ("notexample.com", ["example.com"], false),
        ("example.com.org", ["example.com"], false),
        ("WWW.Example.COM.", ["example.com."], true),
        ("intranet", ["localhost", "intranet"], true),
        ("intranet", ["localhost intranet"], true),
        ("anything", ["*"], true),
        ("127.0.0.1", [" * "], true),
        ("anything", ["*", "other"], false),
        ("anything", [], false),
        ("127.0.0.1", ["127.0.0.1"], true),
        ("127.0.0.1", ["localhost"], false),
        ("localhost", ["127.0.0.1"], false),
        ("127.0.0.1", ["127.0.0.0/8"], true),
        ("10.1.2.3", ["10.0.0.0/8"], true),
        ("11.0.0.1", ["10.0.0.0/8"], false),
        ("192.168.1.200", ["192.168.1.128/25"], true),
        ("192.168.1.100", ["192.168.1.128/25"], false),
        ("127.0.0.1", ["127.0.0.0/33"], false),
        ("127.0.0.1", ["127.0.0.0/x"], false),
        ("::1", ["::1"], true),
        ("[::1]", ["::1"], true),
        ("::1", ["[::1]"], true),
        ("fd00::1", ["fd00::/8"], true),
        ("fe80::1", ["fd00::/8"], false),
        ("fd0f::1", ["fd00::/12"], true),
        ("fd12::1", ["fd00::/12"], false),
        ("127.0.0.1", ["::1", "::ffff:127.0.0.1"], false),
    ])
    func exclusions(host: String, excluded: [String], expected: Bool) {
        var proxy = Proxy(.http, host: "proxy", port: 3128)
        proxy.excludedHosts = excluded
        #expect(proxy.excludes(host: host) == expected)
    }

    @Test("a session's selection: the configured proxy whatever the environment, else the environment's per scheme")
    func selection() throws {
        let http = try #require(URL(string: "http://api.example/v1"))
        let https = try #require(URL(string: "https://api.example/v1"))
        let local = try #require(URL(string: "http://localhost:8080/"))
        var configuration = HTTPSession.Configuration(.ephemeral)
        configuration.proxyEnvironment = .variables([
            "http_proxy": "http://plain:1", "https_proxy": "socks5h://secure:2", "no_proxy": "localhost",
        ])
        let fromEnvironment = ProxySelection(configuration)
        #expect(try fromEnvironment.proxy(for: http)?.host == "plain")
        #expect(try fromEnvironment.proxy(for: https)?.host == "secure")
        #expect(try fromEnvironment.proxy(for: local) == nil)

        configuration.proxy = .init(.socks5, host: "configured", port: 3)
        let configured = ProxySelection(configuration)
        #expect(try configured.proxy(for: http)?.host == "configured")
        #expect(try configured.proxy(for: local)?.host == "configured")

        configuration.proxy = nil
        configuration.proxyEnvironment = .ignored
        #expect(try ProxySelection(configuration).proxy(for: https) == nil)

        // A bad value fails its scheme only.
        configuration.proxyEnvironment = .variables(["https_proxy": "ftp://x", "http_proxy": "http://plain:1"])
        let broken = ProxySelection(configuration)
        #expect(try broken.proxy(for: http)?.host == "plain")
        #expect(throws: Proxy.InvalidURL.self) { try broken.proxy(for: https) }
        #expect(HTTPSession.Configuration(.ephemeral).proxyEnvironment == .process)
    }
}
