import Foundation

extension HTTPCycle {
    /// When set, the response body is streamed to a temporary file instead of memory and this
    /// handler gets the file once the download has succeeded; ``HTTPResponse/data`` stays empty.
    ///
    /// Each attempt writes a new owner-only file in the session's ``HTTPSession/downloadDirectory``
    /// with a ``FileWriter``; the file is removed after a failure, a cancel, or once the handler has
    /// returned.
    public var downloadFileHandler: DownloadFileHandler? {
        get { settings.download?.handler }
        set { configure { $0.download = newValue.map(Self.download) } }
    }

    /// A download to files written by a ``FileWriter`` that takes every response.
    static func download(_ handler: @escaping DownloadFileHandler) -> Download {
        Download(handler: handler, makeWriter: { FileWriter(url: $0, acceptableResponses: [], acceptableContentTypes: []) })
    }
}
