import Foundation

/// What makes a download resumable: every attempt writes to one file that outlives a failure or a
/// cancel, asks the server only for the bytes that file lacks, and may find it already whole.
///
/// The engine holds one in ``HTTPCycle/Download``; the transfer feature provides it (a resumable
/// download and its resume data). The file is handed to the download handler after a success and
/// removed when the handler returns, as any download's; after a failure it stays where it is.
protocol DownloadContinuation: Sendable {
    /// The file every attempt writes to.
    var file: URL { get }

    /// Makes `request` ask for what the file lacks (a range, its validator, no content coding),
    /// or for the whole body; called before each attempt is sent.
    func prepare(_ request: inout HTTPRequest)

    /// Makes the content handler of one attempt, which writes to ``file``.
    func makeWriter() -> any ContentHandler

    /// What a response that the session would treat as a failure means for the download: a `416`
    /// may say that the file is already whole, or that it must be fetched again from the start.
    func verdict(on response: HTTPResponse) -> DownloadContinuationVerdict

    /// Where the progress of `response` starts: for a range that goes on from the bytes the file
    /// holds, those bytes and the whole body's length (when the server gave it), so that progress
    /// counts the file, not the range; `nil` to count the response's own bytes.
    func progressBase(for response: HTTPResponse) -> ProgressBase?
}

/// The bytes a download had before a response, and the length of the whole body.
struct ProgressBase: Sendable, Equatable {
    var offset: Int64
    var total: Int64?
}

/// How a download goes on after a response the session would treat as a failure.
enum DownloadContinuationVerdict: Sendable {
    /// The failure stands.
    case fail
    /// The file is complete: the download succeeded.
    case complete
    /// The file was emptied: the request goes again, once, for the whole body.
    case restart
}
