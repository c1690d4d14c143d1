import CJewzruxinCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport on the system's libcurl, reached at run time (``CurlLibrary``): `http` and `https`,
/// HTTP/2 over TLS where the server offers it, HTTP/1.1 otherwise, connection reuse, and compressed
/// bodies.
///
/// ```swift
/// let session = HTTPSession(configuration: .init(.ephemeral), transport: .curl)
/// ```
///
/// libcurl's own redirect following and authentication stay off: the engine follows redirects,
/// answers challenges and retries the same way on every transport. Cookies go through the session's
/// cookie storage, as with the other transports.
///
/// NTLM and Negotiate are the exception: their handshake authenticates the connection, so for a
/// cycle with an ``NTLMAuthentication`` or a ``NegotiateAuthentication`` the transport hands their
/// credentials to libcurl (`CURLOPT_HTTPAUTH`, those schemes only, where ``CurlLibrary/features``
/// has `CurlLibrary.Features.ntlm` or `CurlLibrary.Features.spnego`),
/// which runs the whole handshake on one connection. The 401s of the handshake reach neither the
/// content handler nor the response; when libcurl can't complete it (Negotiate without a Kerberos
/// ticket) the cycle ends with ``HTTPError/authenticationUnavailable(scheme:reason:response:)``.
///
/// libcurl's content decoding stays off too: the transport sends an `Accept-Encoding` of the codings
/// it decodes (``CurlLibrary/acceptedEncodings``: gzip and deflate with zlib, `br` and `zstd` when
/// their libraries are there) unless the request has one, and decodes the body itself, whatever the
/// request asked for, before the content handler gets it. A body cut short inside its compressed
/// stream, or corrupt, fails with `URLError(.cannotDecodeContentData)` saying what was wrong, where
/// libcurl 7.88 would deliver a truncated gzip body as complete. The response keeps its head as
/// received: `Content-Encoding`, and a `Content-Length` that counts the encoded bytes. A body in a
/// coding it can't decode (unknown, or its library missing) reaches the content handler as sent.
///
/// Each transport runs its transfers on a few threads (``Options/maximumLoops``: one per processor,
/// at most four), each with one `curl_multi` handle and the connections it keeps open, shared by the
/// requests to the same host. Requests one after another stay on the first thread and reuse its
/// connections; requests side by side spread over the threads, a second one starting only then.
/// At most ``HTTPSession/Configuration/httpMaximumConnectionsPerHost`` connections to a host are
/// open at a time, the limit shared out between the threads. The head and the first
/// 256 KiB of a body reach the cycle's content handler on that thread, as they are read; the rest of
/// a larger body goes through a queue of the transfer's own, so that a slow handler holds up its own
/// transfer only. When 1 MiB waits for the handler, the transfer is paused (libcurl stops reading
/// it) until the handler has caught up: a large download stays flat in memory.
///
/// When libcurl can't be loaded, every transfer fails with ``CurlLibraryError`` wrapped in
/// `URLError(.cannotLoadFromNetwork)`; ``CurlLibrary/system`` says why.
public final class CurlTransport: HTTPTransport {
    /// Settings of the transport beyond the session's configuration.
    public struct Options: Sendable {
        /// Which HTTP versions to speak.
        public enum HTTPVersion: Sendable {
            /// HTTP/2 over TLS where the server offers it (ALPN), HTTP/1.1 otherwise.
            case automatic
            /// HTTP/1.1 only.
            case http1_1
        }

        /// Which HTTP versions to speak; ``HTTPVersion/automatic`` by default.
        public var httpVersion: HTTPVersion = .automatic
        /// The most connections to one host at once; `nil` for the configuration's
        /// `httpMaximumConnectionsPerHost`.
        public var maximumConnectionsPerHost: Int?
        /// The most threads the transport runs transfers on, each with connections of its own;
        /// `nil` for one per processor, at most four. Fewer when ``maximumConnectionsPerHost``
        /// (or the configuration's limit) is lower: the limit is shared out between them. A second
        /// thread starts only once two transfers run at the same time.
        public var maximumLoops: Int?

        /// The default options.
        public init() {}
    }

    /// The options this transport was made with.
    public let options: Options
    let settings: Settings
    private let takesSessionConfiguration: Bool
    private let loops: Result<CurlLoopGroup, CurlLibraryError>

    /// A curl transport with its own configuration.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, the connection limit, headers and cookies.
    ///   - options: HTTP version and connection settings.
    public convenience init(configuration: HTTPSession.Configuration = HTTPSession.Configuration(), options: Options = Options()) {
        self.init(configuration: configuration, options: options, takesSessionConfiguration: false)
    }

    private init(configuration: HTTPSession.Configuration, options: Options, takesSessionConfiguration: Bool) {
        self.options = options
        self.takesSessionConfiguration = takesSessionConfiguration
        let library = CurlLibrary.system
        let settings = Settings(configuration, options: options, library: try? library.get())
        self.settings = settings
        // A transport only there to be configured by its session never runs a transfer itself.
        self.loops = takesSessionConfiguration ? .failure(.unavailable(reason: "not configured")) : library.map { library in
            // A libcurl that resolves names on the thread that drives it would block a caller's
            // thread on DNS: then only the loop's thread starts transfers (the loop also checks its
            // poller allows it).
            CurlLoopGroup(
                loopCount: max(1, options.maximumLoops ?? CurlLoopGroup.defaultLoopCount),
                maximumConnectionsPerHost: settings.shared.maximumConnectionsPerHost,
                startsOnCallingThread: library.features.contains(.asynchronousDNS))
        }
    }

    deinit {
        if case .success(let loops) = loops { loops.stop() }
    }

    /// A curl transport with default options, taking the configuration of the session it is given
    /// to: `HTTPSession(configuration: configuration, transport: .curl)`.
    public static var curl: CurlTransport {
        CurlTransport(configuration: HTTPSession.Configuration(), options: Options(), takesSessionConfiguration: true)
    }

    /// A curl transport with `options`, taking the configuration of the session it is given to.
    ///
    /// - Parameter options: HTTP version and connection settings.
    public static func curl(_ options: Options) -> CurlTransport {
        CurlTransport(configuration: HTTPSession.Configuration(), options: options, takesSessionConfiguration: true)
    }

    /// The loops running its transfers, if it has them: for tests.
    var loopGroup: CurlLoopGroup? { try? loops.get() }

    /// `http` and `https`.
    public var schemes: Set<String>? { ["http", "https"] }

    /// Yes: past its first 256 KiB a body reaches the handler from a queue of its transfer's own,
    /// and the transfer pauses in libcurl while 1 MiB waits there.
    public var pacesBodyToHandler: Bool { true }

    /// This transport, or a new one with `configuration` if this one was made to take its session's.
    public func configured(for configuration: HTTPSession.Configuration) -> any HTTPTransport {
        guard takesSessionConfiguration else { return self }
        return CurlTransport(configuration: configuration, options: options, takesSessionConfiguration: false)
    }

    /// Adds the session's additional headers, `Host`, `Authorization` from the URL's user, the
    /// stored cookies, an `Accept-Encoding` of the codings it decodes, `User-Agent: Jewzruxin`,
    /// `Accept: */*` (each where the request has none) and the body's framing, as the transport
    /// sends them.
    public func completeHeaderFields(of request: inout HTTPRequest, upload: HTTPCycle.UploadSource?) {
        settings.shared.headers.complete(&request, body: HeaderCompletion.bodyLength(of: request, upload: upload))
    }

    public func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer {
        var request = request
        if !request.headerFieldsCompleted { completeHeaderFields(of: &request, upload: upload) }
        switch loops {
        case .failure(let error):
            return FailedTransfer(error: URLError(.cannotLoadFromNetwork, userInfo: [
                NSLocalizedDescriptionKey: error.description, NSUnderlyingErrorKey: error,
            ]), events: events)
        case .success(let group):
            guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                return FailedTransfer(error: URLError(.unsupportedURL, userInfo: [
                    NSLocalizedDescriptionKey: "The curl transport can't send a request to \(request.url?.absoluteString ?? "no URL").",
                ]), events: events)
            }
            return CurlTransfer(
                request: request, url: url, isHTTPS: scheme == "https", upload: upload, events: events, settings: settings, group: group)
        }
    }
}

extension HTTPTransport where Self == CurlTransport {
    /// A transport on the system's libcurl taking the configuration of its session:
    /// `HTTPSession(configuration: configuration, transport: .curl)`.
    public static var curl: CurlTransport { CurlTransport.curl }

    /// A transport on the system's libcurl with `options`, taking the configuration of its session.
    ///
    /// - Parameter options: HTTP version and connection settings.
    public static func curl(_ options: CurlTransport.Options) -> CurlTransport { CurlTransport.curl(options) }
}

extension CurlTransport {
    /// What a transfer needs of the configuration and the library, read once.
    struct Settings: Sendable {
        /// The configuration's common settings, and the fields a request goes out with: the
        /// `Accept-Encoding` of what the transport decodes among them.
        let shared: TransportSettings
        let httpVersion: Options.HTTPVersion
        let tls: TLS
        /// The proxy of each request: the configuration's, or the environment's, read once here.
        let proxies: ProxySelection
        /// The libcurl loaded, `nil` when none could be: what it was built with decides whether
        /// NTLM and Negotiate are handed to it.
        let library: CurlLibrary?

        init(_ configuration: HTTPSession.Configuration, options: Options, library: CurlLibrary?) {
            self.library = library
            shared = TransportSettings(
                configuration, maximumConnectionsPerHost: options.maximumConnectionsPerHost, acceptEncoding: library?.acceptedEncodings)
            httpVersion = options.httpVersion
            tls = TLS(configuration.tls, library: library)
            proxies = ProxySelection(configuration)
        }
    }

    /// The configuration's TLS settings as libcurl options, with the files read once.
    struct TLS: Sendable {
        /// The CA bundle to trust (the system's and the additional certificates), when there are
        /// additional ones.
        var caBundle: CABundle?
        /// `CURLOPT_PINNEDPUBLICKEY`: `sha256//…;sha256//…`.
        var pinnedPublicKeys: String?
        var clientCertificate: Data?
        var clientKey: Data?
        var keyPassphrase: String?
        /// `CURLOPT_SSLVERSION`: `CURL_SSLVERSION_TLSv1_2` (6) or `_TLSv1_3` (7).
        var minimumVersion: Int?
        /// Why the settings can't be applied (a file that can't be read): every https request then
        /// fails with it.
        var problem: String?
        /// Whether the CA file libcurl reads (its default, or ``caBundle``) holds the system's
        /// certificates, so that its CA directory can be left out (``CurlTransfer``).
        var bundleHoldsSystemTrust = false

        /// Where Linux distributions keep the system's CA bundle, for a libcurl that names none.
        static let systemBundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]

        init(_ settings: HTTPSession.TLSSettings, library: CurlLibrary?) {
            if !settings.additionalTrustedCertificates.isEmpty {
                // CURLOPT_CAINFO_BLOB replaces the bundle libcurl trusts: the system's goes first.
                var bundle = Data()
                let system = ([library?.defaultCABundle].compactMap { $0 } + Self.systemBundles)
                    .lazy.compactMap { FileManager.default.contents(atPath: $0) }.first
                if let system { bundle.append(system) }
                for pem in settings.additionalTrustedCertificates {
                    guard let data = read(pem, "trusted certificate") else { continue }
                    // The TLS library skips what isn't a certificate in a bundle without a word:
                    // a garbled one would leave its server untrusted, for a reason nobody is told.
                    if let flaw = Self.certificateFlaw(in: data) {
                        problem = problem ?? "the trusted certificate \(Self.name(of: pem)) \(flaw)"
                        continue
                    }
                    bundle.append(UInt8(ascii: "\n"))
                    bundle.append(data)
                }
                let file = MemoryFile(bundle)
                caBundle = file.map(CABundle.file) ?? .bytes(Bytes(bundle))
                bundleHoldsSystemTrust = system != nil && file != nil
            } else if let bundle = library?.defaultCABundle {
                bundleHoldsSystemTrust = FileManager.default.isReadableFile(atPath: bundle)
            }
            if !settings.pinnedPublicKeys.isEmpty { pinnedPublicKeys = settings.pinnedPublicKeys.joined(separator: ";") }
            if let client = settings.clientCertificate {
                clientCertificate = read(client.certificate, "client certificate")
                clientKey = read(client.privateKey, "client key")
                keyPassphrase = client.passphrase
            }
            switch settings.minimumVersion {
            case .tls1_2?: minimumVersion = 6
            case .tls1_3?: minimumVersion = 7
            case nil: break
            }
        }

        /// Why PEM `data` isn't one or more certificates, `nil` when it is: every
        /// `-----BEGIN CERTIFICATE-----` block must hold base64 that decodes to a DER sequence, and
        /// there must be one. Text around the blocks (comments, as bundles have) is allowed.
        static func certificateFlaw(in data: Data) -> String? {
            guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
                return "is not PEM text"
            }
            let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
            var rest = Substring(text)
            var count = 0
            while let start = rest.range(of: begin) {
                guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                    return "has a certificate without its END line"
                }
                let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
                guard let der = Data(base64Encoded: String(body)), der.first == 0x30, der.count > 16 else {
                    return "holds a certificate whose base64 doesn't decode to DER"
                }
                count += 1
                rest = rest[stop.upperBound...]
            }
            return count == 0 ? "holds no PEM certificate (no \(begin) line)" : nil
        }

        private static func name(of pem: HTTPSession.TLSSettings.PEM) -> String {
            switch pem {
            case .file(let url): return "file \(url.path)"
            case .data(let data): return "given as data (\(data.count) bytes)"
            }
        }

        /// A CA bundle as libcurl is given it. libcurl clones a blob option into the settings of every
        /// request (some 200 KB copied and compared per request, for the system's bundle), a path not:
        /// the bundle goes as the path of a file in memory where there are such files (Linux), else
        /// as a blob.
        enum CABundle: Sendable {
            case file(MemoryFile)
            case bytes(Bytes)
        }

        /// A file in memory, for the process's lifetime of this object: `/proc/self/fd/N`.
        final class MemoryFile: Sendable {
            let descriptor: Int32
            let path: String

            init?(_ data: Data) {
                let descriptor = data.withUnsafeBytes { jz_memory_file($0.baseAddress, $0.count) }
                guard descriptor >= 0 else { return nil }
                let path = "/proc/self/fd/\(descriptor)"
                guard FileManager.default.isReadableFile(atPath: path) else {
                    close(descriptor)
                    return nil
                }
                self.descriptor = descriptor
                self.path = path
            }

            deinit { close(descriptor) }
        }

        /// Bytes at an address that stays the same while a transfer may use them: libcurl keeps the
        /// address of a blob it doesn't copy.
        final class Bytes: Sendable {
            nonisolated(unsafe) let bytes: UnsafeRawBufferPointer

            init(_ data: Data) {
                let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 1)
                _ = data.copyBytes(to: storage.bindMemory(to: UInt8.self))
                bytes = UnsafeRawBufferPointer(storage)
            }

            deinit { bytes.deallocate() }
        }

        private mutating func read(_ pem: HTTPSession.TLSSettings.PEM, _ role: String) -> Data? {
            switch pem {
            case .data(let data):
                return data
            case .file(let url):
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    problem = problem ?? "the \(role) file \(url.path) can't be read"
                    return nil
                }
                return data
            }
        }
    }
}
