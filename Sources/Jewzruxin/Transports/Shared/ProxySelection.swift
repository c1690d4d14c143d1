import Foundation

/// The proxy of each request of a session, chosen once from its configuration: the configured one,
/// or the environment's for the request's scheme, unless the request's host is excluded.
struct ProxySelection: Sendable {
    /// A proxy with its exclusions read once, rather than for every request.
    private struct Chosen: Sendable {
        let settings: HTTPSession.ProxySettings
        let exclusion: ProxyExclusion

        init(_ settings: HTTPSession.ProxySettings) {
            self.settings = settings
            exclusion = ProxyExclusion(settings.excludedHosts)
        }
    }

    private let http: Result<Chosen?, HTTPSession.ProxySettings.InvalidURL>
    private let https: Result<Chosen?, HTTPSession.ProxySettings.InvalidURL>

    init(_ configuration: HTTPSession.Configuration) {
        if let proxy = configuration.proxy {
            http = .success(Chosen(proxy))
            https = http
        } else {
            let variables = configuration.proxyEnvironment.resolved
            http = Result { () throws(HTTPSession.ProxySettings.InvalidURL) in try HTTPSession.ProxySettings.environment(variables, for: "http").map(Chosen.init) }
            https = Result { () throws(HTTPSession.ProxySettings.InvalidURL) in try HTTPSession.ProxySettings.environment(variables, for: "https").map(Chosen.init) }
        }
    }

    /// The proxy for a request to `url`; `nil` to go direct.
    ///
    /// - Throws: ``HTTPSession/ProxySettings/InvalidURL`` when the environment's proxy for the URL's
    ///   scheme can't be used: the request fails rather than going out directly.
    func proxy(for url: URL) throws(HTTPSession.ProxySettings.InvalidURL) -> HTTPSession.ProxySettings? {
        let chosen = url.scheme?.lowercased() == "https" ? https : http
        guard let proxy = try chosen.get(), let host = url.host, !proxy.exclusion.covers(host) else { return nil }
        return proxy.settings
    }
}
