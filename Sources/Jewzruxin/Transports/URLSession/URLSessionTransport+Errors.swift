import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How FoundationNetworking reports a server certificate it could not verify, and how this transport
// reports it instead: a libcurl message behind code -1, turned into `serverCertificateUntrusted`.
extension URLSessionTransport {
    /// `error` as this transport reports it to the engine: a certificate failure as
    /// `URLError(.serverCertificateUntrusted)`, anything else unchanged.
    static func reportedError(_ error: any Error) -> any Error {
        guard let urlError = URLError(bridging: error) else { return error }
        return untrustedCertificateError(urlError) ?? error
    }

    /// The beginnings of libcurl's messages for a server certificate it could not verify (OpenSSL
    /// and GnuTLS back ends): an unknown or self-signed issuer, an expired certificate, another
    /// host's name.
    static let certificateProblemMessages = [
        "SSL certificate problem",
        "SSL: no alternative certificate subject name matches",
        "SSL: certificate subject name",
        "SSL: unable to obtain common name",
        "server certificate verification failed",
    ]

    /// `error` as `serverCertificateUntrusted`, when it is FoundationNetworking's report of a
    /// certificate that failed verification: code `unknown` (-1, not -1202) with libcurl's message,
    /// such as "SSL certificate problem: self-signed certificate" (L12); `nil` for anything else,
    /// such as a body cut short, which is reported as -1 too.
    static func untrustedCertificateError(_ error: URLError) -> URLError? {
        guard error.code == .unknown else { return nil }
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let messages = [error.userInfo[NSLocalizedDescriptionKey] as? String, underlying?.userInfo[NSLocalizedDescriptionKey] as? String]
        guard let message = messages.compactMap({ $0 }).first(where: { message in
            certificateProblemMessages.contains { message.hasPrefix($0) }
        }) else { return nil }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "The server's TLS certificate is not trusted (on Linux, trust comes from the system CA "
                + "bundle, and URLSession can't be told to trust another certificate): \(message)",
            NSUnderlyingErrorKey: error as NSError,
        ]
        if let url = error.failingURL { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.serverCertificateUntrusted, userInfo: userInfo)
    }
}
