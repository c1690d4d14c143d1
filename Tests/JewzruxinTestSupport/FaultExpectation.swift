import Foundation
import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What the fault matrices of the core and fluent suites (issue #9) expect of each case.

/// How a fault case must end.
public enum FaultExpectation: Sendable, CustomStringConvertible {
    /// Success with exactly this body.
    case success(Data)
    /// `HTTPError.transport` with one of these codes.
    case transport(Set<URLError.Code>)
    /// `HTTPError.statusCodeSeemsToHaveErred` with this status.
    case status(Int)
    /// A `ContentHandlerError` with this code.
    case content(ContentHandlerError.Code)
    /// Success with the encoded body as the server sent it, which begins with `prefix` (the native
    /// transport asks for no content coding, so it decodes none).
    case encodedAsSent(prefix: Data)

    /// Success with the gzip stream as the server sent it.
    public static let gzipAsSent = FaultExpectation.encodedAsSent(prefix: Data([0x1F, 0x8B]))
    /// Success with the zlib stream as the sandbox sends it (deflate, 32 KiB window).
    public static let zlibAsSent = FaultExpectation.encodedAsSent(prefix: Data([0x78, 0x01]))

    public var description: String {
        switch self {
        case .success(let body): return "success with \(body.count) bytes"
        case .transport(let codes): return "transport error \(codes.map(\.rawValue).sorted())"
        case .status(let status): return "status \(status)"
        case .content(let code): return "content handler error \(code)"
        case .encodedAsSent(let prefix): return "success with the encoded bytes as sent, from \([UInt8](prefix))"
        }
    }

    /// A success whose body is this text.
    public static func text(_ text: String) -> FaultExpectation { .success(Data(text.utf8)) }
}

/// Transport codes for a connection that ended before a complete response. FoundationNetworking
/// reports a body cut short (curl's CURLE_PARTIAL_FILE) as `.unknown` (-1).
public let faultDroppedCodes: Set<URLError.Code> = [
    .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource, .unknown,
]

/// Transport codes for a body whose content coding can't be decoded.
public let faultDecodingCodes: Set<URLError.Code> = [.cannotDecodeContentData, .cannotDecodeRawData]

/// FoundationNetworking's bug: its libcurl (7.88) decodes a gzip body cut short (the HTTP framing is
/// complete, the gzip stream is not) without a word, so the cycle succeeds with the decoded prefix
/// and a FileWriter installs that truncated file. The curl transport decodes itself and reports it.
public let truncatedGzipIssue = "URLSession delivers a truncated gzip stream as a successful, silently truncated body"

/// FoundationNetworking's libcurl finds a corrupt gzip body (CURLE_BAD_CONTENT_ENCODING), but
/// FoundationNetworking reports it as `URLError(.unknown)`.
public let corruptGzipIssue = "URLSession reports a corrupt gzip body as URLError(.unknown), not .cannotDecodeContentData"

/// FoundationNetworking's libcurl accepts a deflate body cut short as it does a gzip one.
public let truncatedDeflateIssue = "URLSession delivers a truncated deflate stream as a successful, silently truncated body"

