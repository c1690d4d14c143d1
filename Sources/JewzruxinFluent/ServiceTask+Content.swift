import Foundation
import Jewzruxin
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// hotpotato's content handler shortcuts: they set the cycle's content handler, which receives the
// body as it arrives. They configure the request, so they go before the response handlers, right
// after the request method; once the task has started they change nothing.
extension ServiceTask {
    /// Keeps the body in memory as `Data` with an `Accumulator`, which takes the statuses
    /// 200–203 only (another status fails the task with a `ContentHandlerError`).
    ///
    /// Call it before adding response handlers.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func asData() -> Self {
        setContentHandler(Accumulator())
    }

    /// Decodes the body as text with a `StringConverter`, which takes the statuses 200–203 only;
    /// ``responseString(_:_:)-(_,(String)->Void)`` then gets that text.
    ///
    /// Call it before adding response handlers.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func asString() -> Self {
        setContentHandler(StringConverter())
    }

    /// Parses the body as JSON as it arrives with a `JSONParser`, which takes the statuses 200–203
    /// with a JSON `Content-Type` only; ``responseJSON(_:_:)-(_,(JSON)->Void)`` then gets the parsed value.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"])
    ///     .asJSON()
    ///     .responseJSON { json in
    ///         let zip = json["0.address.zip"]?.stringValue
    ///     }
    /// ```
    ///
    /// Call it before adding response handlers.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func asJSON() -> Self {
        setContentHandler(JSONParser())
    }

    /// Reads the body as an image with an `ImageDecoder` (hotpotato's `downloadContentAsImage`),
    /// which takes the statuses 200–203 with an `image/*` `Content-Type` only;
    /// ``responseImage(_:_:)-(_,(ImageContent)->Void)`` then gets the `ImageContent` it made.
    ///
    /// ```swift
    /// service.GET("/avatars/42.png")
    ///     .asImage()
    ///     .responseImage { image in
    ///         print(image.format, image.width, image.height)  // png 64 64
    ///     }
    /// ```
    ///
    /// The decoder makes an `ImageContent` on Linux and on Apple platforms alike: the format and
    /// size in pixels read from a PNG, JPEG or GIF header, and the encoded bytes (`image.data`), for
    /// the image type of your platform (`UIImage(data: image.data)`) or a decoder of your choice.
    /// Another `image/*` format, or a body cut short, fails the task with a `ContentHandlerError` of
    /// code `.unparsableContent`; a response that isn't `image/*`, with `.unacceptableContentType`.
    ///
    /// Call it before adding response handlers.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func asImage() -> Self {
        setContentHandler(ImageDecoder())
    }

    /// Streams the body to a file with a `FileWriter`, so memory stays flat whatever its size.
    ///
    /// Only a complete body with a status of 200–203 replaces the file, once the transfer is over;
    /// after a failure the file is left as it was. The response's data stays empty.
    ///
    /// Call it before adding response handlers.
    /// - Parameter path: Where the body goes; its directory must exist.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func downloadToFile(_ path: String) -> Self {
        setContentHandler(FileWriter(path: path))
    }

    /// Streams the body to a file through a partial file that a failure or a cancel keeps, so the
    /// download can be resumed where it stopped, on every transport.
    ///
    /// The bytes go to `path` + `.partial` (or the file of `resumeData`) and, once complete, replace
    /// `path`. After a failure the error handlers get a `DownloadInterruptedError` whose
    /// `resumeData` (also ``downloadResumeData``) resumes it: a later task with
    /// `downloadToFile(path, resumingFrom: resumeData)` asks for the bytes after those on disk with
    /// `Range` and `If-Range`, and appends them; a server that ignores the range or whose body
    /// changed sends it whole, which replaces the partial file.
    ///
    /// ```swift
    /// service.GET("/catalog.zip")
    ///     .downloadToFile(path, resumingFrom: savedResumeData) // nil for a first try
    ///     .responseError { error in
    ///         if let interrupted = error as? DownloadInterruptedError { save(interrupted.resumeData) }
    ///     }
    /// ```
    ///
    /// The request goes to the task's URL, without content coding (`Accept-Encoding: identity`);
    /// the response's data stays empty. Call it before adding response handlers.
    /// - Parameters:
    ///   - path: Where the complete body goes; its directory must exist.
    ///   - resumeData: What an interrupted download of the same URL gave; `nil` starts one.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func downloadToFile(_ path: String, resumingFrom resumeData: DownloadResumeData?) -> Self {
        let destination = URL(fileURLWithPath: path)
        configureCycle { cycle in
            guard let url = cycle.request.url ?? resumeData?.url else { return }
            var data = resumeData ?? DownloadResumeData(url: url, fileURL: URL(fileURLWithPath: path + ".partial"))
            data.url = url
            cycle.makeResumableDownload(from: data) { _, location in
                // The engine removes the file after this handler: it must be at `path` by then, in
                // one rename when the partial file is next to it, else copied.
                if rename(location.path, destination.path) != 0 {
                    try? FileManager.default.removeItem(at: destination)
                    try? FileManager.default.copyItem(at: location, to: destination)
                }
            }
        }
        return self
    }

    /// What a resumable download (``downloadToFile(_:resumingFrom:)``) needs to go on from the bytes
    /// on disk now; `nil` for another task, and once the download has succeeded.
    public var downloadResumeData: DownloadResumeData? { cycle?.downloadResumeData }

    /// Writes the body to an output stream as it arrives with a `StreamWriter`, which opens the
    /// stream if needed and closes it after a successful response (statuses 200–203).
    ///
    /// Call it before adding response handlers.
    /// - Parameter stream: Where the bytes go.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func downloadToStream(_ stream: OutputStream) -> Self {
        setContentHandler(StreamWriter(stream: stream))
    }

    /// Discards the body with `SelectiveDiscarder.shared`, which takes the statuses 200–203 only,
    /// for a request whose answer is of no interest beyond its status.
    ///
    /// Call it before adding response handlers.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func discardResponseContent() -> Self {
        setContentHandler(SelectiveDiscarder.shared)
    }

    /// Sets any content handler: an `Accumulator` with a maximum size, a `JSONParser` that takes
    /// other statuses, a subclass of your own…
    ///
    /// ```swift
    /// service.GET("/export")
    ///     .contentHandler(Accumulator(maximumSize: 1 << 20))
    ///     .response { response, data in }
    /// ```
    ///
    /// Call it before adding response handlers.
    /// - Parameter handler: What receives the body as it arrives.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func contentHandler(_ handler: any ContentHandler) -> Self {
        setContentHandler(handler)
    }

    private func setContentHandler(_ handler: any ContentHandler) -> Self {
        configureCycle { $0.contentHandler = handler }
        return self
    }
}
