import Foundation

/// What a resumable download needs to go on where it stopped: the file with the bytes received so
/// far, the URL they came from, and the validator that proves the server still has the same body.
///
/// A failed or cancelled ``HTTPCycle/resumableDownload(_:partialFile:parameters:requestProcessors:authentications:solicited:session:didWriteDataHandler:downloadFileHandler:completionHandler:)``
/// gives it in ``DownloadInterruptedError/resumeData`` and ``HTTPCycle/downloadResumeData``. It is
/// `Codable`: keep it (and the file) to resume after a relaunch, with
/// ``HTTPCycle/download(resumingFrom:requestProcessors:authentications:solicited:session:didWriteDataHandler:downloadFileHandler:completionHandler:)``.
///
/// ```swift
/// let saved = try JSONEncoder().encode(interrupted.resumeData)
/// // … later, even in another process:
/// let resumeData = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
/// try await HTTPCycle.download(resumingFrom: resumeData) { _, location in
///     try? FileManager.default.moveItem(at: location, to: destination)
/// }
/// ```
///
/// A resume asks for the bytes after those in ``fileURL`` (its size on disk then, which
/// ``bytesReceived`` recorded) with `Range: bytes=N-` and `If-Range:` ``validator``, and without
/// content coding. A `206` whose `Content-Range` starts at N is appended; a `200` (a server that
/// ignores ranges, or a body that changed since) replaces the file from the first byte.
public struct DownloadResumeData: Codable, Sendable, Hashable {
    /// The URL requested: a resume requests it again and follows its redirects anew (a redirect's
    /// target may be short-lived, as a signed URL is); `If-Range` keeps a changed body out.
    public var url: URL
    /// The file holding the bytes received so far.
    public var fileURL: URL
    /// The bytes in ``fileURL`` when this value was made.
    public var bytesReceived: Int64
    /// The strong `ETag` of the response the bytes came from; a weak one can't validate a range.
    public var entityTag: String?
    /// The `Last-Modified` of the response the bytes came from.
    public var lastModified: String?
    /// The length of the whole body, when the server said it.
    public var expectedLength: Int64?

    /// What `If-Range` carries: the ``entityTag`` when there is one, else ``lastModified``. Without
    /// either, a resume can't prove the body is the same and fetches it whole.
    public var validator: String? { entityTag ?? lastModified }

    /// Whether the file holds the whole body, as far as the server said its length.
    public var isComplete: Bool { expectedLength.map { bytesReceived == $0 } ?? false }

    /// Creates resume data, for a download of `url` to `fileURL` that has nothing yet or was
    /// recorded by you.
    ///
    /// - Parameters:
    ///   - url: The URL to request.
    ///   - fileURL: The file the bytes go to; created when missing.
    ///   - bytesReceived: The bytes already in the file.
    ///   - entityTag: A strong `ETag` of the body those bytes came from.
    ///   - lastModified: The `Last-Modified` of that body.
    ///   - expectedLength: The length of the whole body, when known.
    public init(
        url: URL, fileURL: URL, bytesReceived: Int64 = 0, entityTag: String? = nil, lastModified: String? = nil,
        expectedLength: Int64? = nil
    ) {
        self.url = url
        self.fileURL = fileURL
        self.bytesReceived = bytesReceived
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.expectedLength = expectedLength
    }
}

/// A resumable download that failed or was cancelled: why, and what to resume it from.
///
/// The partial file stays at ``resumeData``'s ``DownloadResumeData/fileURL`` until you resume or
/// remove it (``discardPartialFile()``).
public struct DownloadInterruptedError: Error, Sendable, CustomStringConvertible {
    /// What to give ``HTTPCycle/download(resumingFrom:requestProcessors:authentications:solicited:session:didWriteDataHandler:downloadFileHandler:completionHandler:)``.
    public let resumeData: DownloadResumeData
    /// Why the download stopped: an ``HTTPError`` (``HTTPError/cancelled`` for a cancel), a
    /// ``ContentHandlerError`` when the file couldn't be written…
    public let underlyingError: any Error

    /// Creates the error.
    public init(resumeData: DownloadResumeData, underlyingError: any Error) {
        self.resumeData = resumeData
        self.underlyingError = underlyingError
    }

    /// Removes the partial file, for a download you won't resume.
    public func discardPartialFile() {
        try? FileManager.default.removeItem(at: resumeData.fileURL)
    }

    public var description: String {
        "download of \(resumeData.url.absoluteString) interrupted after \(resumeData.bytesReceived) bytes: \(underlyingError)"
    }
}
