import CJewzruxinCurl
import Foundation

/// libcurl's result codes as the `URLError`s URLSession reports for the same failures, so that a
/// caller's error handling and the engine's retry policy work the same on every transport.
enum CurlErrors {
    /// The `URLError` for a transfer that ended with `code`; libcurl's own message (its error
    /// buffer, else `curl_easy_strerror`) is the description, the code under `CURLcode`.
    ///
    /// A transfer through `proxy` (`host:port`) that failed for the proxy's sake says so: it could not
    /// be reached, or it answered with a failure; `proxyCode`, libcurl's `CURLproxycode` for a
    /// `CURLE_PROXY`, then picks the code (a rejected user is `userAuthenticationRequired`) and is
    /// kept under `CURLproxycode`. An HTTP proxy that answered the `CONNECT` of an https request with
    /// `connectStatus` other than 2xx refused the tunnel, whatever libcurl's code: a `407` is
    /// `userAuthenticationRequired`, any other `cannotConnectToHost`, the status named and kept under
    /// `CURLconnectcode`. `requestNotSent` marks a failure before any byte of the request went out
    /// (``HTTPError/requestNotSentKey``). A connect refused (`osErrno`, libcurl's `CURLINFO_OS_ERRNO`,
    /// `ECONNREFUSED`) without a proxy is worded as every transport words it (``ConnectionErrors``).
    static func urlError(
        code: Int32, message: String?, url: URL, proxy: String? = nil, proxyCode: Int? = nil, connectStatus: Int? = nil,
        osErrno: Int? = nil, requestNotSent: Bool = false
    ) -> URLError {
        if code == 7, proxy == nil, osErrno == Int(ECONNREFUSED) { return ConnectionErrors.refused(url) } // COULDNT_CONNECT
        var description = message ?? String(cString: jz_easy_strerror(code))
        var urlCode = urlErrorCode(for: code)
        var userInfo: [String: Any] = [NSURLErrorFailingURLErrorKey: url, "CURLcode": Int(code)]
        if urlCode == .serverCertificateUntrusted {
            // Worded as the URLSession transport words it, libcurl's reason kept.
            description = "The server's TLS certificate is not trusted: " + description
        } else if description.localizedCaseInsensitiveContains("alert certificate required") {
            // TLS 1.3's certificate_required alert (RFC 8446 §6.2): libcurl reports it as a
            // failed read, which would read as a dropped connection.
            urlCode = .clientCertificateRequired
            description = "The server requires a client certificate, and the session sent none "
                + "(HTTPSession.TLSSettings.clientCertificate): " + description
        }
        if let proxy, let connectStatus, !(200...299).contains(connectStatus) {
            // libcurl reports a refused CONNECT as a receive error (CURLE_RECV_ERROR).
            description = "The proxy \(proxy) refused the tunnel with status \(connectStatus): " + description
            urlCode = connectStatus == 407 ? .userAuthenticationRequired : .cannotConnectToHost
            userInfo["CURLconnectcode"] = connectStatus
        } else if let proxy {
            switch code {
            case 5, 7: // COULDNT_RESOLVE_PROXY, COULDNT_CONNECT: with a proxy, always to the proxy
                description = "The proxy \(proxy) can't be reached: " + description
            case 97: // PROXY: a SOCKS handshake failed
                description = "The proxy \(proxy) failed the request: " + description
                if let proxyCode {
                    urlCode = urlErrorCode(forProxyCode: proxyCode)
                    userInfo["CURLproxycode"] = proxyCode
                }
            default:
                break
            }
        }
        userInfo[NSLocalizedDescriptionKey] = description
        if requestNotSent { userInfo[HTTPError.requestNotSentKey] = true }
        return URLError(urlCode, userInfo: userInfo)
    }

    /// URLSession's code for libcurl's `CURLproxycode` (curl.h) of a failed SOCKS handshake.
    static func urlErrorCode(forProxyCode code: Int) -> URLError.Code {
        switch code {
        case 12, 33: return .userAuthenticationRequired   // NO_AUTH (no method accepted), USER_REJECTED
        case 21, 27: return .cannotFindHost               // REPLY_HOST_UNREACHABLE, RESOLVE_HOST
        default: return .cannotConnectToHost              // REPLY_CONNECTION_REFUSED and the rest
        }
    }

    /// URLSession's code for a libcurl result code.
    static func urlErrorCode(for code: Int32) -> URLError.Code {
        switch code {
        case 1: return .unsupportedURL                    // UNSUPPORTED_PROTOCOL
        case 3: return .badURL                            // URL_MALFORMAT
        case 5, 6: return .cannotFindHost                 // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST
        case 7: return .cannotConnectToHost               // COULDNT_CONNECT
        case 8: return .badServerResponse                 // WEIRD_SERVER_REPLY
        case 16, 92: return .networkConnectionLost        // HTTP2, HTTP2_STREAM
        case 18: return .networkConnectionLost            // PARTIAL_FILE: the body ended short
        case 26: return .cannotOpenFile                   // READ_ERROR: the upload couldn't be read
        case 27: return .cannotLoadFromNetwork            // OUT_OF_MEMORY
        case 28: return .timedOut                         // OPERATION_TIMEDOUT
        case 35, 53, 59, 80: return .secureConnectionFailed // SSL_CONNECT_ERROR, ENGINE, CIPHER, SHUTDOWN
        case 42: return .cancelled                        // ABORTED_BY_CALLBACK
        case 47: return .httpTooManyRedirects             // TOO_MANY_REDIRECTS
        case 52: return .networkConnectionLost            // GOT_NOTHING: closed before any response
        case 55, 56: return .networkConnectionLost        // SEND_ERROR, RECV_ERROR
        case 58, 98: return .clientCertificateRejected    // SSL_CERTPROBLEM, SSL_CLIENTCERT
        case 60, 83, 90, 91: return .serverCertificateUntrusted // PEER_FAILED_VERIFICATION, ISSUER, PINNED KEY, CERT STATUS
        case 61: return .cannotDecodeContentData          // BAD_CONTENT_ENCODING: a truncated or corrupt encoded body
        case 63: return .dataLengthExceedsMaximum         // FILESIZE_EXCEEDED
        case 65: return .requestBodyStreamExhausted       // SEND_FAIL_REWIND
        case 77, 82: return .cannotLoadFromNetwork        // SSL_CACERT_BADFILE, SSL_CRL_BADFILE
        case 97: return .cannotConnectToHost              // PROXY
        default: return .unknown
        }
    }
}
