import Foundation

// Resumable downloads: the library's own, since URLSession's resume data doesn't exist on Linux;
// they work the same on every transport. Opt-in: a plain download still leaves no partial file.
extension HTTPCycle {
    /// Downloads to a file that is kept after a failure or a cancel, so the download can be resumed;
    /// calls `completionHandler` when the cycle ends.
    ///
    /// Every request asks for the body without content coding (`Accept-Encoding: identity`), so the
    /// bytes on disk are those a range counts. When the download fails or is cancelled, the error is
    /// a ``DownloadInterruptedError`` with the ``DownloadResumeData`` to give
    /// ``download(resumingFrom:requestProcessors:authentications:solicited:session:didWriteDataHandler:downloadFileHandler:completionHandler:)``
    /// (also in ``downloadResumeData``, for an explicit cancel, whose handler isn't called). A retry
    /// or a new ``start(_:)`` of the cycle goes on from the bytes on disk too.
    ///
    /// ```swift
    /// try HTTPCycle.resumableDownload(url) { _, location in
    ///     try? FileManager.default.moveItem(at: location, to: destination)
    /// } completionHandler: { cycle, error in
    ///     if let interrupted = error as? DownloadInterruptedError { save(interrupted.resumeData) }
    /// }
    /// ```
    /// - Parameters:
    ///   - urlString: An absolute `http` or `https` URL.
    ///   - partialFile: Where the bytes go as they arrive and stay after a failure; a new file in
    ///     the session's ``HTTPSession/downloadDirectory`` by default. Choose a lasting place to
    ///     resume after a relaunch (a temporary directory may be emptied).
    ///   - parameters: Query parameters merged into the URL.
    ///   - requestProcessors: Processors for the request; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - didWriteDataHandler: Reports the progress of each response on the session's
    ///     ``HTTPSession/handlerQueue``, counting the file: after a resume, from the bytes it held
    ///     to the whole body's length.
    ///   - downloadFileHandler: Gets the complete file; move or copy it. It is removed when the
    ///     handler returns.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` when the cycle ends,
    ///     after `downloadFileHandler`.
    /// - Returns: The started cycle.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func resumableDownload(
        _ urlString: String, partialFile: URL? = nil, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, authentications: [any HTTPAuthenticator]? = nil,
        solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try makeResumable(
            urlString, partialFile, Options(parameters, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        cycle.startResumable(completionHandler)
        return cycle
    }

    /// Downloads to a file kept after a failure or a cancel, gives it to `downloadFileHandler`, and
    /// returns the finished cycle.
    ///
    /// The arguments are those of the callback form. A failure or a cancel (Task cancellation
    /// included) throws a ``DownloadInterruptedError`` with what to resume from.
    @discardableResult
    public static func resumableDownload(
        _ urlString: String, partialFile: URL? = nil, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, authentications: [any HTTPAuthenticator]? = nil,
        solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler
    ) async throws -> HTTPCycle {
        let cycle = try makeResumable(
            urlString, partialFile, Options(parameters, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        try await cycle.startResumable()
        return cycle
    }

    /// Resumes a download where `resumeData` says it stopped, and calls `completionHandler` when
    /// the cycle ends.
    ///
    /// The request goes to ``DownloadResumeData/url`` with `Range: bytes=N-` (N the size of the
    /// file now) and `If-Range:` ``DownloadResumeData/validator``. A `206` that goes on from byte N
    /// is appended; a `200` (a server that ignores ranges, or a body that changed) replaces the file
    /// from the first byte; a `416` for a file already whole completes the download, and any other
    /// `416` fetches the body again, once. A file without a validator is fetched whole. It fails and
    /// is cancelled as ``resumableDownload(_:partialFile:parameters:requestProcessors:authentications:solicited:session:didWriteDataHandler:downloadFileHandler:completionHandler:)``
    /// does, so it can be resumed again.
    /// - Parameters:
    ///   - resumeData: What a failed or cancelled download gave, possibly decoded after a relaunch.
    ///   - requestProcessors: Processors for the request; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - didWriteDataHandler: Reports the progress of each response, on the session's
    ///     ``HTTPSession/handlerQueue``, counting the file: from the bytes it held to the whole
    ///     body's length.
    ///   - downloadFileHandler: Gets the complete file; move or copy it.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` when the cycle ends.
    /// - Returns: The started cycle.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func download(
        resumingFrom resumeData: DownloadResumeData, requestProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try makeResuming(
            resumeData, Options(nil, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        cycle.startResumable(completionHandler)
        return cycle
    }

    /// Resumes a download where `resumeData` says it stopped, and returns the finished cycle.
    ///
    /// The arguments are those of the callback form. A failure or a cancel throws a
    /// ``DownloadInterruptedError`` with what to resume from next.
    @discardableResult
    public static func download(
        resumingFrom resumeData: DownloadResumeData, requestProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler
    ) async throws -> HTTPCycle {
        let cycle = try makeResuming(
            resumeData, Options(nil, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        try await cycle.startResumable()
        return cycle
    }

    /// What a resumable download needs to go on from the bytes on disk now: `nil` for a cycle that
    /// isn't a resumable download, and once its download has succeeded (the file was handed over).
    ///
    /// Read it after an explicit cancel, whose completion handler isn't called.
    public var downloadResumeData: DownloadResumeData? {
        (settings.download?.continuation as? DownloadResumption)?.resumeData
    }

    /// Makes this cycle a resumable download from `resumeData`: the fluent layer's
    /// `downloadToFile(_:resumingFrom:)`.
    package func makeResumableDownload(from resumeData: DownloadResumeData, downloadFileHandler: @escaping DownloadFileHandler) {
        var download = HTTPCycle.download(downloadFileHandler)
        download.continuation = DownloadResumption(resumeData)
        configure { $0.download = download }
    }

    /// `error`, as a resumable download reports it: with what to resume from.
    package func interrupted(_ error: any Error) -> any Error {
        guard !(error is DownloadInterruptedError), let resumeData = downloadResumeData else { return error }
        return DownloadInterruptedError(resumeData: resumeData, underlyingError: error)
    }

    private func startResumable(_ completionHandler: @escaping CompletionHandler) {
        start { cycle, error in completionHandler(cycle, error.map(cycle.interrupted)) }
    }

    private func startResumable() async throws {
        do {
            try await start()
        } catch {
            throw interrupted(error)
        }
    }

    private static func makeResumable(
        _ urlString: String, _ partialFile: URL?, _ options: Options, _ progress: DidWriteBodyDataHandler?,
        _ handler: @escaping DownloadFileHandler
    ) throws -> HTTPCycle {
        let cycle = try make(.get, urlString, options)
        let file = partialFile ?? options.session.downloadDirectory.appendingPathComponent("Jewzruxin-\(UUID().uuidString).partial")
        cycle.didWriteDataHandler = progress
        guard let url = cycle.request.url else { throw HTTPError.invalidURL(urlString, reason: "it names no resource") }
        cycle.makeResumableDownload(from: DownloadResumeData(url: url, fileURL: file), downloadFileHandler: handler)
        return cycle
    }

    private static func makeResuming(
        _ resumeData: DownloadResumeData, _ options: Options, _ progress: DidWriteBodyDataHandler?,
        _ handler: @escaping DownloadFileHandler
    ) throws -> HTTPCycle {
        let cycle = try make(.get, resumeData.url.absoluteString, options)
        cycle.didWriteDataHandler = progress
        cycle.makeResumableDownload(from: resumeData, downloadFileHandler: handler)
        return cycle
    }
}
