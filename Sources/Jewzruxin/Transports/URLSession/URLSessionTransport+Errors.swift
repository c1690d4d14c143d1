import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How FoundationNetworking reports a server certificate it could not verify, and how this transport
// reports it instead: a libcurl message behind code -1, turned into `serverCertificateUntrusted`.
// Likewise a response libcurl refused (a NUL in a field, a bad chunk size), reported as the other
// transports report it; and the rules of ``ResponseRules`` applied to the head it let through.
extension URLSessionTransport {
    /// `error` as this transport reports it to the engine for a request to `url`: a certificate
    /// failure as `URLError(.serverCertificateUntrusted)`, a response libcurl refused as the other
    /// transports report it (``ResponseDecodingError``), a refused connection worded as they word it
    /// (``ConnectionErrors``), anything else unchanged.
    static func reportedError(_ error: any Error, for url: URL? = nil) -> any Error {
        guard let urlError = URLError(bridging: error) else { return error }
        return untrustedCertificateError(urlError) ?? refusedResponseError(urlError) ?? truncatedBodyError(urlError)
            ?? refusedConnectionError(urlError, url) ?? error
    }

    /// A refused connection to `url`, worded as every transport words it; `nil` for anything else.
    /// FoundationNetworking reports only a refused connect (`ECONNREFUSED`) as `cannotConnectToHost`,
    /// in libcurl's words or its own; Apple's URLSession reports other failures so too.
    static func refusedConnectionError(_ error: URLError, _ url: URL?) -> URLError? {
        #if canImport(FoundationNetworking)
        guard error.code == .cannotConnectToHost, let url else { return nil }
        return ConnectionErrors.refused(url)
        #else
        return nil
        #endif
    }

    /// `error` as `networkConnectionLost`, as the other transports report a body cut short or a
    /// connection reset (the curl transport maps libcurl's `CURLE_PARTIAL_FILE`, `CURLE_RECV_ERROR`
    /// and `CURLE_SEND_ERROR` so), when it is FoundationNetworking's report of one: code `unknown`
    /// (-1) with libcurl's "transfer closed with … remaining", "Recv failure" or "Send failure"
    /// message; `nil` for anything else. A caller that reconnects on a lost connection (an event stream)
    /// then does so on every transport.
    static func truncatedBodyError(_ error: URLError) -> URLError? {
        guard error.code == .unknown, let message = messages(of: error).first(where: { message in
            lostConnectionMessages.contains { message.hasPrefix($0) }
        }) else { return nil }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "The connection was lost: \(message)", NSUnderlyingErrorKey: error as NSError,
        ]
        if let url = error.failingURL { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.networkConnectionLost, userInfo: userInfo)
    }

    /// The beginnings of libcurl's messages for a connection lost mid-transfer.
    static let lostConnectionMessages = ["transfer closed with", "Recv failure:", "Send failure:"]

    /// libcurl's messages behind `error`: its description, and its underlying error's, where
    /// FoundationNetworking may have put it.
    private static func messages(of error: URLError) -> [String] {
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        return [error.userInfo[NSLocalizedDescriptionKey] as? String, underlying?.userInfo[NSLocalizedDescriptionKey] as? String]
            .compactMap { $0 }
    }

    /// `error` as ``ResponseDecodingError`` words it, when libcurl's message behind it says it
    /// refused the response; `nil` for anything else.
    static func refusedResponseError(_ error: URLError) -> URLError? {
        guard let fault = messages(of: error).lazy.compactMap(ResponseRules.fault(fromLibcurlMessage:)).first else { return nil }
        return fault.urlError(for: error.failingURL)
    }

    /// What breaks ``ResponseRules`` in the head FoundationNetworking parsed, if anything: a field
    /// name or value, the framing, a 101 not asked for. (What libcurl's parser let through and
    /// FoundationNetworking joined: repeated fields arrive as one, their values joined by commas,
    /// which the rules read as they read one field.)
    static func fault(in response: HTTPURLResponse, for request: URLRequest) -> ResponseDecodingError? {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(response.allHeaderFields.count)
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { return .badHeaderField }
            fields.append((name, value))
        }
        do {
            for field in fields { try ResponseRules.check(name: field.name, value: field.value) }
            _ = try ResponseRules.framing(
                status: response.statusCode, http10: false, fields: fields,
                isHeadRequest: HTTPHeaderSyntax.equalIgnoringASCIICase(request.httpMethod ?? "GET", "HEAD"),
                upgradeRequested: ResponseRules.asksForUpgrade(request))
        } catch {
            return error
        }
        return nil
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
        guard error.code == .unknown, let message = messages(of: error).first(where: { message in
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
