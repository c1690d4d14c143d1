import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The continuation of one resumable download: its file, what each attempt asked for, and the
/// resume data the cycle shows.
final class DownloadResumption: DownloadContinuation {
    let file: URL
    private let state: Locked<State>

    private struct State {
        var data: DownloadResumeData
        /// The first byte the current attempt asked for.
        var requestedOffset: Int64 = 0
        /// What the last `416` meant, as the writer found it.
        var unsatisfiable = DownloadContinuationVerdict.fail
        /// The download succeeded: its file has been handed over.
        var finished = false
    }

    init(_ data: DownloadResumeData) {
        file = data.fileURL
        state = Locked(State(data: data))
    }

    /// The resume data as of now (the bytes on disk now); `nil` once the download succeeded.
    var resumeData: DownloadResumeData? {
        let size = Self.size(of: file) ?? 0
        return state.withLock { s in
            guard !s.finished else { return nil }
            s.data.bytesReceived = size
            return s.data
        }
    }

    func prepare(_ request: inout HTTPRequest) {
        let size = Self.size(of: file) ?? 0
        let validator = state.withLock { s -> String? in
            let validator = s.data.validator
            // Without a validator the bytes can't be proven current: the whole body comes again.
            s.requestedOffset = validator == nil ? 0 : size
            return validator
        }
        if let validator, size > 0 {
            request.setValue("bytes=\(size)-", forHTTPHeaderField: "Range")
            request.setValue(validator, forHTTPHeaderField: "If-Range")
        } else {
            request.setValue(nil, forHTTPHeaderField: "Range")
            request.setValue(nil, forHTTPHeaderField: "If-Range")
        }
        // Ranges count the bytes of the representation sent: asking for it without content coding
        // makes them the bytes on disk, whatever a transport would decode.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
    }

    func makeWriter() -> any ContentHandler {
        ResumingFileWriter(self)
    }

    func verdict(on response: HTTPResponse) -> DownloadContinuationVerdict {
        guard response.statusCode == 416 else { return .fail }
        return state.withLock { $0.unsatisfiable }
    }

    func progressBase(for response: HTTPResponse) -> ProgressBase? {
        guard response.statusCode == 206,
              let contentRange = ContentRange(response.value(forHTTPHeaderField: "Content-Range")),
              let first = contentRange.range?.lowerBound, first == requestedOffset
        else { return nil }
        return ProgressBase(offset: first, total: contentRange.total)
    }

    // MARK: What the writer tells

    var requestedOffset: Int64 { state.withLock { $0.requestedOffset } }
    var hasValidator: Bool { state.withLock { $0.data.validator != nil } }

    /// A full body (`200`) begins: its validators replace the old ones. A body with content coding
    /// has none that a range could use (the bytes on disk are decoded), so it can't be resumed.
    func beganWholeBody(_ response: HTTPResponse) {
        let coded = Self.isContentCoded(response)
        let tag = response.value(forHTTPHeaderField: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        let length = response.expectedContentLength
        state.withLock { s in
            s.data.entityTag = coded ? nil : tag
            s.data.lastModified = coded ? nil : response.value(forHTTPHeaderField: "Last-Modified")
            s.data.expectedLength = !coded && length >= 0 ? length : nil
        }
    }

    /// A range (`206`) of a body of `total` bytes (when known) begins.
    func beganRange(total: Int64?) {
        state.withLock { s in
            if let total { s.data.expectedLength = total }
        }
    }

    /// What the `416` received means.
    func answeredUnsatisfiable(_ verdict: DownloadContinuationVerdict) {
        state.withLock { s in
            s.unsatisfiable = verdict
            if verdict == .restart {
                s.data.entityTag = nil
                s.data.lastModified = nil
            }
        }
    }

    var expectedLength: Int64? { state.withLock { $0.data.expectedLength } }

    /// The file is complete and about to be handed over.
    func finished() {
        state.withLock { $0.finished = true }
    }

    static func isContentCoded(_ response: HTTPResponse) -> Bool {
        guard let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces) else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }

    /// The size of the regular file at `url`; `nil` when there is none.
    static func size(of url: URL) -> Int64? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }
}

/// `Content-Range: bytes first-last/total` or `bytes */total` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    /// The first and last byte sent; `nil` for `bytes */total`.
    var range: ClosedRange<Int64>?
    /// The length of the whole body; `nil` for `*`.
    var total: Int64?

    init?(_ header: String?) {
        guard let header = header?.trimmingCharacters(in: .whitespaces), header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let span = spec[..<slash]
        let length = spec[spec.index(after: slash)...]
        if length == "*" {
            total = nil
        } else {
            guard let value = Int64(length), value >= 0 else { return nil }
            total = value
        }
        if span == "*" {
            range = nil
            guard total != nil else { return nil }
            return
        }
        guard let dash = span.firstIndex(of: "-"), let first = Int64(span[..<dash]),
              let last = Int64(span[span.index(after: dash)...]), first >= 0, last >= first
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}

/// Writes the responses of one attempt of a resumable download to its file: a `206` that goes on
/// where the file ends is appended, a whole body replaces the file, a `416` is judged, any other
/// response is refused and leaves the file alone. The file is kept whatever happens.
final class ResumingFileWriter: ContentHandler {
    private let resumption: DownloadResumption
    private let state = Locked(WriterState())

    private enum Mode {
        /// Not a body for the file (a redirect, an error): the file is left alone.
        case ignoring
        case writing(Int32)
        /// A `416` for a file that is already whole.
        case complete
    }

    private struct WriterState {
        var mode = Mode.ignoring
        var response: HTTPResponse?
    }

    init(_ resumption: DownloadResumption) {
        self.resumption = resumption
    }

    func prepare(for response: HTTPResponse) throws {
        closeFile()
        state.withLock { $0.response = response }
        let path = resumption.file.path
        switch response.statusCode ?? 0 {
        case 206:
            let offset = resumption.requestedOffset
            let contentRange = ContentRange(response.value(forHTTPHeaderField: "Content-Range"))
            guard let contentRange, contentRange.range?.lowerBound == offset, !DownloadResumption.isContentCoded(response) else {
                throw ContentHandlerError(
                    .unparsableContent, reason: "a 206 that doesn't go on from byte \(offset) of \(path)", response: response)
            }
            let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw systemError(.unusableDestination, "can't open \(path)", response) }
            state.withLock { $0.mode = .writing(fd) }
            guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
                throw systemError(.writeFailed, "can't go to byte \(offset) of \(path)", response)
            }
            resumption.beganRange(total: contentRange.total)
        case 416:
            let total = ContentRange(response.value(forHTTPHeaderField: "Content-Range"))?.total
            let size = DownloadResumption.size(of: resumption.file) ?? 0
            if let total, total == size, size > 0, resumption.hasValidator {
                state.withLock { $0.mode = .complete }
                resumption.answeredUnsatisfiable(.complete)
            } else {
                // Bytes the server can't place: start again from the first.
                if truncate(path, 0) != 0, errno != ENOENT {
                    throw systemError(.writeFailed, "can't empty \(path)", response)
                }
                resumption.answeredUnsatisfiable(.restart)
            }
        case 200..<300:
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw systemError(.unusableDestination, "can't create \(path)", response) }
            state.withLock { $0.mode = .writing(fd) }
            resumption.beganWholeBody(response)
        default:
            // Refused, so that the feed keeps its body for the error (an API's message) and the
            // file is left alone; a redirect is followed all the same.
            throw ContentHandlerError(
                .unacceptableStatus, reason: "a download takes a 2xx, or a 416 for a complete file", response: response)
        }
    }

    func append(_ data: Data) throws {
        let (mode, response) = state.withLock { ($0.mode, $0.response) }
        guard case .writing(let fd) = mode else { return }
        guard POSIXFile.writeAll(data, to: fd) else {
            throw systemError(.writeFailed, "can't write to \(resumption.file.path)", response)
        }
    }

    /// Closes the file; no content. A file shorter than the body the server announced is kept and
    /// the download fails, so that a resume fetches the rest.
    func parseContent() throws -> (any Sendable)? {
        let (mode, response) = state.withLock { s in (s.mode, s.response) }
        switch mode {
        case .ignoring:
            throw ContentHandlerError(
                .unacceptableStatus, reason: "a download takes a 2xx or a 416 for a complete file", response: response)
        case .complete:
            resumption.finished()
            return nil
        case .writing:
            closeFile()
            let size = DownloadResumption.size(of: resumption.file) ?? 0
            if let expected = resumption.expectedLength, expected != size {
                throw ContentHandlerError(
                    .writeFailed, reason: "\(resumption.file.path) has \(size) of \(expected) bytes", response: response)
            }
            resumption.finished()
            return nil
        }
    }

    func cleanup() {
        closeFile()
    }

    var receivedData: Data? { nil }

    private func closeFile() {
        let fd = state.withLock { s -> Int32? in
            guard case .writing(let fd) = s.mode else { return nil }
            s.mode = .ignoring
            return fd
        }
        if let fd { _ = POSIXFile.close(fd) }
    }

    private func systemError(_ code: ContentHandlerError.Code, _ what: String, _ response: HTTPResponse?) -> ContentHandlerError {
        let number = errno
        return ContentHandlerError(code, reason: "\(what): \(String(cString: strerror(number)))", response: response)
    }
}
