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
    /// Success with the gzip stream as the server sent it (the native transport asks for no
    /// content coding, so it decodes none).
    case gzipAsSent

    public var description: String {
        switch self {
        case .success(let body): return "success with \(body.count) bytes"
        case .transport(let codes): return "transport error \(codes.map(\.rawValue).sorted())"
        case .status(let status): return "status \(status)"
        case .content(let code): return "content handler error \(code)"
        case .gzipAsSent: return "success with the gzip bytes as sent"
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

/// Library bug: a gzip body cut short (the HTTP framing is complete, the gzip stream is not) ends the
/// cycle in success with the decoded prefix; a FileWriter then installs that truncated file.
public let truncatedGzipIssue = "a truncated gzip stream is delivered as a successful, silently truncated body"

