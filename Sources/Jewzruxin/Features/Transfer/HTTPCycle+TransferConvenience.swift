import Foundation

extension HTTPCycle {
    /// Uploads data or a file and calls `completionHandler` when the cycle ends.
    ///
    /// - Parameters:
    ///   - urlString: An absolute `http` or `https` URL.
    ///   - source: The bytes to send: `.data(Data)`, `.file(URL)` or `.multipart(MultipartFormData)`.
    ///   - method: The method, `POST` by default.
    ///   - parameters: Query parameters merged into the URL.
    ///   - requestProcessors: Processors for the request (headers; the body comes from `source`).
    ///   - responseProcessors: Processors for the response; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - didSendBodyDataHandler: Reports upload progress on the session's ``HTTPSession/handlerQueue``.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` when the cycle ends.
    /// - Returns: The started cycle.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func upload(
        _ urlString: String, source: UploadSource, method: HTTPMethod = .post,
        parameters: [String: any Sendable]? = nil, requestProcessors: [HTTPProcessor]? = nil,
        responseProcessors: [HTTPProcessor]? = nil, authentications: [any HTTPAuthenticator]? = nil,
        solicited: Bool = false, session: HTTPSession = .default,
        didSendBodyDataHandler: DidSendBodyDataHandler? = nil,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try makeUpload(
            method, urlString, source, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session),
            didSendBodyDataHandler)
        cycle.start(completionHandler)
        return cycle
    }

    /// Downloads to a temporary file and calls `completionHandler` when the cycle ends.
    ///
    /// The body goes straight to a file readable by its owner only, so memory stays flat whatever
    /// its size. `downloadFileHandler` gets the file, on the session's handler queue, only when the download
    /// succeeded; the file is removed when it returns. Whatever happens, no partial or temporary
    /// file is left behind.
    /// - Parameters:
    ///   - urlString: An absolute `http` or `https` URL.
    ///   - parameters: Query parameters merged into the URL.
    ///   - requestProcessors: Processors for the request; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - didWriteDataHandler: Reports download progress on the session's ``HTTPSession/handlerQueue``.
    ///   - downloadFileHandler: Gets the downloaded file; move or copy it.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` when the cycle ends,
    ///     after `downloadFileHandler`.
    /// - Returns: The started cycle.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func download(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try makeDownload(
            urlString, Options(parameters, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        cycle.start(completionHandler)
        return cycle
    }

    /// Uploads data or a file and returns the finished cycle.
    ///
    /// The arguments are those of the callback form; Task cancellation cancels the upload.
    @discardableResult
    public static func upload(
        _ urlString: String, source: UploadSource, method: HTTPMethod = .post,
        parameters: [String: any Sendable]? = nil, requestProcessors: [HTTPProcessor]? = nil,
        responseProcessors: [HTTPProcessor]? = nil, authentications: [any HTTPAuthenticator]? = nil,
        solicited: Bool = false, session: HTTPSession = .default,
        didSendBodyDataHandler: DidSendBodyDataHandler? = nil
    ) async throws -> HTTPCycle {
        let cycle = try makeUpload(
            method, urlString, source, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session),
            didSendBodyDataHandler)
        try await cycle.start()
        return cycle
    }

    /// Downloads to a temporary file, gives it to `downloadFileHandler`, and returns the finished
    /// cycle.
    ///
    /// The arguments are those of the callback form; Task cancellation cancels the download and
    /// removes the partial file.
    @discardableResult
    public static func download(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        didWriteDataHandler: DidWriteBodyDataHandler? = nil,
        downloadFileHandler: @escaping DownloadFileHandler
    ) async throws -> HTTPCycle {
        let cycle = try makeDownload(
            urlString, Options(parameters, nil, requestProcessors, [], authentications, solicited, session),
            didWriteDataHandler, downloadFileHandler)
        try await cycle.start()
        return cycle
    }

    private static func makeUpload(
        _ method: HTTPMethod, _ urlString: String, _ source: UploadSource, _ options: Options,
        _ progress: DidSendBodyDataHandler?
    ) throws -> HTTPCycle {
        let cycle = try make(method, urlString, options)
        cycle.configure { settings in
            settings.uploadSource = source
            settings.didSendBodyData = progress
        }
        return cycle
    }

    private static func makeDownload(
        _ urlString: String, _ options: Options, _ progress: DidWriteBodyDataHandler?,
        _ handler: @escaping DownloadFileHandler
    ) throws -> HTTPCycle {
        let cycle = try make(.get, urlString, options)
        cycle.configure { settings in
            settings.didWriteData = progress
            settings.download = HTTPCycle.download(handler)
        }
        return cycle
    }
}
