import Foundation

extension HTTPCycle {
    /// The arguments every convenience method shares.
    struct Options {
        var parameters: [String: any Sendable]?
        var requestObject: (any Sendable)?
        var requestProcessors: [HTTPProcessor]?
        var responseProcessors: [HTTPProcessor]?
        var authentications: [any HTTPAuthenticator]?
        var solicited: Bool
        var session: HTTPSession

        init(
            _ parameters: [String: any Sendable]?, _ requestObject: (any Sendable)?, _ requestProcessors: [HTTPProcessor]?,
            _ responseProcessors: [HTTPProcessor]?, _ authentications: [any HTTPAuthenticator]?, _ solicited: Bool,
            _ session: HTTPSession
        ) {
            self.parameters = parameters
            self.requestObject = requestObject
            self.requestProcessors = requestProcessors
            self.responseProcessors = responseProcessors
            self.authentications = authentications
            self.solicited = solicited
            self.session = session
        }
    }

    /// A cycle made from a convenience method's arguments, not started.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` for a URL string that can't be used.
    static func make(_ method: HTTPMethod, _ urlString: String, _ options: Options) throws -> HTTPCycle {
        let url = try validatedURL(urlString.mergingQueryParameters(options.parameters ?? [:]), given: urlString)
        let cycle = HTTPCycle(requestURL: url, requestMethod: method, session: options.session)
        cycle.configure { settings in
            settings.request.object = options.requestObject
            settings.requestProcessors = options.requestProcessors
            settings.responseProcessors = options.responseProcessors
            settings.authentications = options.authentications
            settings.solicited = options.solicited
        }
        return cycle
    }

    /// The URL a string names, if it is an absolute `http` or `https` URL with a host; shared with the
    /// fluent layer, so both reject the same strings with the same reasons.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` saying what is wrong with `given`.
    package static func validatedURL(_ string: String, given: String) throws -> URL {
        // A blank string is reported as such, but only once something failed: trimming costs more than
        // every other check of a valid URL, on every request.
        func invalid(_ reason: String) -> HTTPError {
            let blank = given.trimmingCharacters(in: .whitespaces).isEmpty
            return HTTPError.invalidURL(given, reason: blank ? "the URL is empty" : reason)
        }
        guard let url = URL(string: string) else { throw invalid("not a valid URL") }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw invalid("the scheme must be http or https")
        }
        guard let host = url.host, !host.isEmpty else { throw invalid("the URL has no host") }
        return url
    }

    // MARK: Callbacks

    /// Sends a GET request and calls `completionHandler` when the cycle ends.
    ///
    /// - Parameters:
    ///   - urlString: An absolute `http` or `https` URL.
    ///   - parameters: Query parameters merged into the URL (see `String.mergingQueryParameters(_:)`).
    ///   - requestProcessors: Processors for the request; `nil` uses the session's.
    ///   - responseProcessors: Processors for the response; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` (its delegate
    ///     queue by default) when the cycle ends.
    /// - Returns: The started cycle, to cancel or restart it.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func get(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.get, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a HEAD request and calls `completionHandler` when the cycle ends.
    ///
    /// The arguments are those of ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``.
    @discardableResult
    public static func head(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.head, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a DELETE request and calls `completionHandler` when the cycle ends.
    ///
    /// The arguments are those of ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``:
    /// `parameters` go in the query, as for every convenience method (seeds 001, 002).
    @discardableResult
    public static func delete(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.delete, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a POST request and calls `completionHandler` when the cycle ends.
    ///
    /// - Parameters:
    ///   - urlString: An absolute `http` or `https` URL.
    ///   - parameters: Query parameters merged into the URL (see `String.mergingQueryParameters(_:)`).
    ///   - requestObject: The model the request processors turn into the body (`Data` with
    ///     ``HTTPDataProcessor``, a dictionary or ``JSON`` value with ``HTTPJSONProcessor``…).
    ///   - requestProcessors: Processors for the request; `nil` uses the session's.
    ///   - responseProcessors: Processors for the response; `nil` uses the session's.
    ///   - authentications: What answers authentication challenges; `nil` uses the session's.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - session: The session to run on.
    ///   - completionHandler: Runs on the session's ``HTTPSession/handlerQueue`` (its delegate
    ///     queue by default) when the cycle ends.
    /// - Returns: The started cycle, to cancel or restart it.
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` at once for a URL that can't be used.
    @discardableResult
    public static func post(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.post, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a PUT request and calls `completionHandler` when the cycle ends.
    ///
    /// The arguments are those of ``post(_:parameters:requestObject:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``.
    @discardableResult
    public static func put(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.put, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a PATCH request and calls `completionHandler` when the cycle ends.
    ///
    /// The arguments are those of ``post(_:parameters:requestObject:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``.
    @discardableResult
    public static func patch(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        try request(.patch, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    private static func request(
        _ method: HTTPMethod, _ urlString: String, _ options: Options, _ completionHandler: @escaping CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try make(method, urlString, options)
        cycle.start(completionHandler)
        return cycle
    }

    // MARK: Async

    /// Sends a GET request and returns the finished cycle.
    ///
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` before sending; afterwards the error the cycle
    ///   ended with (``HTTPError/statusCodeSeemsToHaveErred(_:)`` keeps the response), or
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public static func get(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.get, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    /// Sends a HEAD request and returns the finished cycle.
    @discardableResult
    public static func head(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.head, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    /// Sends a DELETE request and returns the finished cycle.
    @discardableResult
    public static func delete(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.delete, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    /// Sends a POST request and returns the finished cycle.
    @discardableResult
    public static func post(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.post, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    /// Sends a PUT request and returns the finished cycle.
    @discardableResult
    public static func put(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.put, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    /// Sends a PATCH request and returns the finished cycle.
    @discardableResult
    public static func patch(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default
    ) async throws -> HTTPCycle {
        try await run(.patch, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session))
    }

    private static func run(_ method: HTTPMethod, _ urlString: String, _ options: Options) async throws -> HTTPCycle {
        let cycle = try make(method, urlString, options)
        try await cycle.start()
        return cycle
    }
}
