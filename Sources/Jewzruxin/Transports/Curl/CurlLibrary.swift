import CJewzruxinCurl
import Foundation

/// The system's libcurl, as the curl transport uses it: loaded at run time, never linked.
///
/// On Linux, FoundationNetworking links `libcurl.so.4`, so the library is there wherever Swift
/// networking works; this package opens it with `dlopen` the first time a curl transport is made,
/// looks up the functions it calls, and reads what the library can do from `curl_version_info`.
/// Nothing is needed at build time.
///
/// ```swift
/// switch CurlLibrary.system {
/// case .success(let curl): print(curl.version, curl.features.contains(.http2))
/// case .failure(let error): print("no libcurl: \(error)")
/// }
/// ```
public struct CurlLibrary: Sendable {
    /// What a libcurl was built with (`CURL_VERSION_*` bits).
    public struct Features: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// IPv6.
        public static let ipv6 = Features(rawValue: Int(JZ_FEATURE_IPV6))
        /// TLS, hence `https`.
        public static let ssl = Features(rawValue: Int(JZ_FEATURE_SSL))
        /// gzip and deflate decoding.
        public static let libz = Features(rawValue: Int(JZ_FEATURE_LIBZ))
        /// NTLM authentication.
        public static let ntlm = Features(rawValue: Int(JZ_FEATURE_NTLM))
        /// Name resolution that doesn't block the transfers.
        public static let asynchronousDNS = Features(rawValue: Int(JZ_FEATURE_ASYNCHDNS))
        /// Negotiate (SPNEGO) authentication.
        public static let spnego = Features(rawValue: Int(JZ_FEATURE_SPNEGO))
        /// Files larger than 2 GB.
        public static let largeFiles = Features(rawValue: Int(JZ_FEATURE_LARGEFILE))
        /// HTTP/2.
        public static let http2 = Features(rawValue: Int(JZ_FEATURE_HTTP2))
        /// GSS-API, for Negotiate with Kerberos.
        public static let gssapi = Features(rawValue: Int(JZ_FEATURE_GSSAPI))
        /// Kerberos 5 authentication.
        public static let kerberos5 = Features(rawValue: Int(JZ_FEATURE_KERBEROS5))
        /// Unix domain sockets.
        public static let unixSockets = Features(rawValue: Int(JZ_FEATURE_UNIX_SOCKETS))
        /// Proxies reached over TLS.
        public static let httpsProxy = Features(rawValue: Int(JZ_FEATURE_HTTPS_PROXY))
        /// Brotli decoding.
        public static let brotli = Features(rawValue: Int(JZ_FEATURE_BROTLI))
        /// HTTP/3.
        public static let http3 = Features(rawValue: Int(JZ_FEATURE_HTTP3))
        /// zstd decoding.
        public static let zstd = Features(rawValue: Int(JZ_FEATURE_ZSTD))
        /// A thread-safe global initialisation.
        public static let threadSafe = Features(rawValue: Int(JZ_FEATURE_THREADSAFE))
    }

    /// The library file opened, as given to `dlopen` (`libcurl.so.4`).
    public let name: String
    /// Its version, `7.88.1` for instance.
    public let version: String
    /// Its version as a number: `0x075801` for 7.88.1.
    public let versionNumber: Int
    /// What it was built with.
    public let features: Features
    /// Its TLS library and version (`OpenSSL/3.0.11`), `nil` without TLS.
    public let sslVersion: String?
    /// The zlib version it was built with, `nil` without.
    public let libzVersion: String?
    /// The brotli version it was built with, `nil` without.
    public let brotliVersion: String?
    /// The zstd version it was built with, `nil` without.
    public let zstdVersion: String?
    /// Its nghttp2 version (HTTP/2), `nil` without.
    public let nghttp2Version: String?
    /// The CA bundle it trusts unless told otherwise, if it was built with one.
    public let defaultCABundle: String?
    /// The CA directory it trusts unless told otherwise, if it was built with one.
    public let defaultCAPath: String?
    /// The decompression libraries the transport decodes response bodies with.
    public let contentDecoders: ContentDecoders

    /// The decompression libraries the curl transport decodes response bodies with, in place of
    /// libcurl: loaded at run time the same way, from the files libcurl itself links (`libz.so.1`,
    /// `libbrotlidec.so.1`, `libzstd.so.1`), so they are there when libcurl decodes their codings.
    /// The transport decodes itself so that a truncated or corrupt body is an error, which libcurl
    /// 7.88 doesn't report for gzip.
    public struct ContentDecoders: Sendable, Hashable {
        /// zlib's version (gzip and deflate), `nil` when it didn't load.
        public let zlibVersion: String?
        /// brotli's decoder version (`br`), `nil` when it didn't load.
        public let brotliVersion: String?
        /// zstd's version, `nil` when it didn't load.
        public let zstdVersion: String?

        /// The libraries of this process, loaded on first use.
        static let system = ContentDecoders(
            zlibVersion: version(Int32(JZ_DECODER_ZLIB)), brotliVersion: version(Int32(JZ_DECODER_BROTLI)),
            zstdVersion: version(Int32(JZ_DECODER_ZSTD)))

        private static func version(_ decoder: Int32) -> String? {
            jz_decoder_version(decoder).map { String(cString: $0) }
        }
    }

    /// The names tried, in order: OpenSSL's build first, then the other TLS builds Debian and Red Hat
    /// ship, then macOS's.
    public static let candidateNames = ["libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.4.dylib"]

    /// The oldest version the transport takes: 7.68.0 (Ubuntu 20.04's; Debian 11 has 7.74). Options
    /// of later versions that a session's settings need are refused by that libcurl with a
    /// typed error when the transfer starts.
    public static let minimumVersionNumber = 0x074400

    /// The library this process uses, loaded on first use; or why there is none.
    public static var system: Result<CurlLibrary, CurlLibraryError> { loaded }

    private static let loaded: Result<CurlLibrary, CurlLibraryError> = load(candidateNames)

    /// The `Accept-Encoding` value the transport sends: the codings its ``contentDecoders`` decode,
    /// most compact first (`zstd, br, gzip, deflate`); `nil` when none loaded.
    public var acceptedEncodings: String? {
        var codings: Set<CurlContentDecoder.Coding> = []
        if contentDecoders.zstdVersion != nil { codings.insert(.zstd) }
        if contentDecoders.brotliVersion != nil { codings.insert(.brotli) }
        if contentDecoders.zlibVersion != nil { codings.formUnion([.gzip, .deflate]) }
        return CurlContentDecoder.acceptEncoding(for: codings)
    }

    /// Loads the first of `names` that opens and has every function the transport calls.
    static func load(_ names: [String]) -> Result<CurlLibrary, CurlLibraryError> {
        var why = [CChar](repeating: 0, count: 512)
        let size = why.count
        let copies = names.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        let status = jz_curl_load(pointers, &why, size)
        guard status == 0, let loadedName = jz_curl_loaded_name() else {
            return .failure(.unavailable(reason: String(decodingCString: why)))
        }
        var info = jz_curl_info()
        jz_curl_version(&info)
        let library = CurlLibrary(
            name: String(cString: loadedName), version: info.version.map { String(cString: $0) } ?? "unknown",
            versionNumber: Int(info.version_num), features: Features(rawValue: Int(info.features)),
            sslVersion: info.ssl_version.map { String(cString: $0) }, libzVersion: info.libz_version.map { String(cString: $0) },
            brotliVersion: info.brotli_version.map { String(cString: $0) }, zstdVersion: info.zstd_version.map { String(cString: $0) },
            nghttp2Version: info.nghttp2_version.map { String(cString: $0) }, defaultCABundle: info.cainfo.map { String(cString: $0) },
            defaultCAPath: info.capath.map { String(cString: $0) }, contentDecoders: .system)
        guard library.versionNumber >= minimumVersionNumber else {
            return .failure(.tooOld(version: library.version))
        }
        return .success(library)
    }

    /// Why `name` can't be used, or `nil` when it opens and has every function the transport calls;
    /// the library is closed again, whatever was loaded for use stays.
    static func problem(opening name: String) -> String? {
        var why = [CChar](repeating: 0, count: 512)
        let size = why.count
        guard jz_curl_probe(name, &why, size) != 0 else { return nil }
        return String(decodingCString: why)
    }
}

/// Why the curl transport can't be used.
public enum CurlLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No libcurl could be opened, or none had every function the transport calls.
    case unavailable(reason: String)
    /// The libcurl found is older than ``CurlLibrary/minimumVersionNumber``.
    case tooOld(version: String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "libcurl could not be loaded: \(reason)"
        case .tooOld(let version): return "libcurl \(version) is older than 7.68.0, the oldest the curl transport can use"
        }
    }
}

extension String {
    /// The text of a NUL-terminated C string held in an array.
    init(decodingCString chars: [CChar]) {
        let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
