import Foundation

extension HTTPCycle {
    /// Where an upload's body comes from.
    public enum UploadSource: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// A local file, read as it is sent.
        case file(URL)
    }

    /// Reports upload progress, on the session's delegate queue.
    ///
    /// The arguments are the cycle, the bytes sent since the last call, the bytes sent so far, and
    /// the bytes expected in all (`-1` when unknown).
    public typealias DidSendBodyDataHandler = @Sendable (
        _ cycle: HTTPCycle, _ bytesSent: Int64, _ totalBytesSent: Int64, _ totalBytesExpectedToSend: Int64
    ) -> Void

    /// Reports download progress, on the session's delegate queue.
    ///
    /// The arguments are the cycle, the bytes written since the last call, the bytes written so far,
    /// and the bytes expected in all (`-1` when unknown, or when the body is compressed on the wire,
    /// since its `Content-Length` then doesn't count the bytes written, L13).
    public typealias DidWriteBodyDataHandler = @Sendable (
        _ cycle: HTTPCycle, _ bytesWritten: Int64, _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64
    ) -> Void

    /// Gets a finished download, on the session's delegate queue, before the completion handler.
    ///
    /// `location` is a temporary file readable by its owner only; it is removed when the handler
    /// returns, so move or copy it there. Called only when the download succeeded.
    public typealias DownloadFileHandler = @Sendable (_ cycle: HTTPCycle, _ location: URL) -> Void

    /// The body to upload instead of ``HTTPRequest/data``; `nil` for an ordinary request.
    public var uploadSource: UploadSource? {
        get { locked.withLock { $0.uploadSource } }
        set { locked.withLock { $0.uploadSource = newValue } }
    }

    /// Reports upload progress.
    public var didSendBodyDataHandler: DidSendBodyDataHandler? {
        get { locked.withLock { $0.didSendBodyData } }
        set { locked.withLock { $0.didSendBodyData = newValue } }
    }

    /// Reports download progress; setting it alone doesn't make the cycle a download.
    public var didWriteDataHandler: DidWriteBodyDataHandler? {
        get { locked.withLock { $0.didWriteData } }
        set { locked.withLock { $0.didWriteData = newValue } }
    }

    /// When set, the response body is streamed to a temporary file instead of memory and this
    /// handler gets the file once the download has succeeded; ``HTTPResponse/data`` stays empty.
    public var downloadFileHandler: DownloadFileHandler? {
        get { locked.withLock { $0.downloadFileHandler } }
        set { locked.withLock { $0.downloadFileHandler = newValue } }
    }
}
