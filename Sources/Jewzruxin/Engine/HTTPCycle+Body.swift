import Foundation

extension HTTPCycle {
    /// Where an upload's body comes from.
    public enum UploadSource: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// A local file, read as it is sent.
        case file(URL)
        /// A `multipart/form-data` body, its files and streams read as it is sent; the request's
        /// `Content-Type` becomes the form's (``MultipartFormData/contentType``).
        case multipart(MultipartFormData)
        /// Bytes produced as they are sent, by an async sequence made again for each attempt.
        case stream(UploadStream)
    }

    /// Reports upload progress, on the cycle's ``handlerQueue``.
    ///
    /// The arguments are the cycle, the bytes sent since the last call, the bytes sent so far, and
    /// the bytes expected in all (`-1` when unknown).
    public typealias DidSendBodyDataHandler = @Sendable (
        _ cycle: HTTPCycle, _ bytesSent: Int64, _ totalBytesSent: Int64, _ totalBytesExpectedToSend: Int64
    ) -> Void

    /// Reports download progress, on the cycle's ``handlerQueue``.
    ///
    /// The arguments are the cycle, the bytes written since the last call, the bytes written so far,
    /// and the bytes expected in all (`-1` when unknown, or when the body is compressed on the wire,
    /// since its `Content-Length` then doesn't count the bytes written, L13).
    public typealias DidWriteBodyDataHandler = @Sendable (
        _ cycle: HTTPCycle, _ bytesWritten: Int64, _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64
    ) -> Void

    /// Gets a finished download, on the cycle's ``handlerQueue``, before the completion handler.
    ///
    /// `location` is a temporary file readable by its owner only; it is removed when the handler
    /// returns, so move or copy it there. Called only when the download succeeded.
    public typealias DownloadFileHandler = @Sendable (_ cycle: HTTPCycle, _ location: URL) -> Void

    /// The body to upload instead of ``HTTPRequest/data``; `nil` for an ordinary request.
    public var uploadSource: UploadSource? {
        get { setup.withLock { $0.uploadSource } }
        set { setup.withLock { $0.uploadSource = newValue } }
    }

    /// Reports upload progress.
    public var didSendBodyDataHandler: DidSendBodyDataHandler? {
        get { setup.withLock { $0.didSendBodyData } }
        set { setup.withLock { $0.didSendBodyData = newValue } }
    }

    /// Reports download progress; setting it alone doesn't make the cycle a download.
    public var didWriteDataHandler: DidWriteBodyDataHandler? {
        get { setup.withLock { $0.didWriteData } }
        set { setup.withLock { $0.didWriteData = newValue } }
    }

    /// What receives the response body and makes ``HTTPResponse/content`` from it; `nil` (the
    /// default) keeps the body in memory as ``HTTPResponse/data``, whatever the status and type.
    ///
    /// ```swift
    /// let cycle = HTTPCycle(requestURL: url)
    /// cycle.contentHandler = JSONParser()
    /// try await cycle.start()
    /// let zip = (cycle.response.content as? JSON)?["store.address.zip"]
    /// ```
    ///
    /// A handler with acceptance rules (every one the library ships has them: 200–203 by default)
    /// ends the cycle with a ``ContentHandlerError`` when the response doesn't meet them; a status
    /// the session treats as a failure still ends it with ``HTTPError/statusCodeSeemsToHaveErred(_:)``.
    /// ``HTTPResponse/data`` holds the body when the handler is an ``Accumulator``. Ignored while a
    /// ``downloadFileHandler`` is set. Changes apply to the next start.
    public var contentHandler: (any ContentHandler)? {
        get { setup.withLock { $0.contentHandler } }
        set { setup.withLock { $0.contentHandler = newValue } }
    }

    /// How the body of every attempt is written to a file instead of memory, for a download.
    struct Download: Sendable {
        /// Gets the file once the download has succeeded.
        let handler: DownloadFileHandler
        /// Makes the content handler that writes an attempt's body to a new file.
        let makeWriter: @Sendable (URL) -> any ContentHandler
        /// For a resumable download: the file every attempt writes to and keeps after a failure,
        /// used instead of ``makeWriter``.
        var continuation: (any DownloadContinuation)?
    }

    /// What the caller configured, as it is now.
    var settings: Settings { setup.withLock { $0 } }

    /// Changes what the caller configured, at once and under its lock: for the features and
    /// convenience methods that set several settings of a cycle they made.
    func configure(_ change: (inout Settings) -> Void) {
        setup.withLock { change(&$0) }
    }
}
