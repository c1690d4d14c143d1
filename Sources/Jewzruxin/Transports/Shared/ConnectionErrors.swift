import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JewzruxinPrimitives

/// The errors of a connection that couldn't be made, worded the same on every transport: what a
/// caller logs or shows reads alike whichever transport ran the request, and names the request's URL.
enum ConnectionErrors {
    /// `URLError(.cannotConnectToHost)` for `url`, whose host refused the connection (nothing listens
    /// on its port): "Could not connect to 127.0.0.1 port 8080: the connection was refused." Nothing
    /// of the request went out.
    static func refused(_ url: URL) -> URLError {
        URLError(.cannotConnectToHost, userInfo: [
            NSLocalizedDescriptionKey: "Could not connect to \(endpoint(of: url)): the connection was refused.",
            NSURLErrorFailingURLErrorKey: url,
            HTTPError.requestNotSentKey: true,
        ])
    }

    /// "host port N" for `url`: its port, or its scheme's default.
    private static func endpoint(of url: URL) -> String {
        let host = url.host.map { String(HostSyntax.unbracketed($0)) } ?? "the host"
        let port = url.port ?? (url.scheme.map { HTTPHeaderSyntax.equalIgnoringASCIICase($0, "https") } == true ? 443 : 80)
        return "\(host) port \(port)"
    }
}
