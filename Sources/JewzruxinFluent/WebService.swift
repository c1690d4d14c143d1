import Foundation
import Jewzruxin

/// A web service at a base URL: makes the ``ServiceTask`` of each request, to chain handlers on.
///
/// ```swift
/// WebService(baseURLString: "https://storelocator/")
///     .GET("/stores", parameters: ["zip": "15217"])
///     .responseJSON([StoreModel].self) { stores in
///         // update the UI with the stores
///     }
///     .responseError { error in
///         // I am error
///     }
/// ```
///
/// A value is cheap to make and to copy; every request runs as an `HTTPCycle` on ``session``.
/// Extend `WebService` with a method per endpoint to keep the HTTP details of a call in one place:
///
/// ```swift
/// extension WebService {
///     func searchStores(zipCode: String) -> ServiceTask {
///         GET("/stores", parameters: ["zip": zipCode])
///     }
/// }
/// ```
///
/// The request is made at once; nothing is thrown. When it can't be made (an invalid URL, a
/// parameter with no JSON form), the task fails with that error and only its error handlers run.
public struct WebService: Sendable {
    /// The URL that request paths are resolved against, such as `https://storelocator/`.
    public let baseURLString: String
    /// The session every request of this service runs on.
    public let session: HTTPSession
    /// What adapts this service's requests and decides about retrying them: the cycle's
    /// `interceptors` of each request; `nil` uses the session's.
    ///
    /// As for a cycle, a list replaces the session's (`session.interceptors + [mine]` adds to
    /// them); a request can replace it in turn with ``ServiceTask/interceptors(_:)``.
    public var interceptors: [any HTTPInterceptor]?

    /// Creates a service.
    ///
    /// ```swift
    /// let auth = AuthenticationInterceptor(token: savedToken) { old in try await refresh(old) }
    /// let api = WebService(baseURLString: "https://api.example", interceptors: [auth])
    /// ```
    ///
    /// - Parameters:
    ///   - baseURLString: The URL that request paths are resolved against.
    ///   - session: The session to run requests on; `HTTPSession.default` (handlers on the main
    ///     queue) by default.
    ///   - interceptors: The interceptors of this service's requests; `nil` (the default) uses the
    ///     session's.
    public init(baseURLString: String, session: HTTPSession = .default, interceptors: [any HTTPInterceptor]? = nil) {
        self.baseURLString = baseURLString
        self.session = session
        self.interceptors = interceptors
    }

    /// The URL string a request for `path` goes to.
    ///
    /// `path` is joined to ``baseURLString`` with exactly one slash between them, whatever slashes
    /// either has on that side: `https://host/api/` and `/stores` give `https://host/api/stores`. A
    /// query in `path` is kept (`/stores?zip=15217`), a path that is empty or starts with `?` or `#`
    /// is appended as it is, and a path that is an absolute URL (`https://other.host/x`) is used as
    /// it is, as is any path when the base is empty. It is the rule `HTTPService` joins a profile's
    /// base URL and templates by.
    /// - Parameter path: A path relative to the base URL, or an absolute URL.
    /// - Returns: The URL string, before parameters are added.
    public func absoluteURLString(_ path: String) -> String {
        URLJoining.join(baseURLString, path)
    }

    /// Makes the task of a request.
    ///
    /// The result may be ignored: a task released with no handler sends its request then.
    ///
    /// Parameters go in the query of `GET` and `HEAD` requests, percent-encoded and merged with any
    /// query `path` has; for every other method, `DELETE` included (as in the Swallow seed), they are
    /// the body, encoded as the ``ServiceTask/Option/parameterEncoding(_:)`` option says
    /// (percent-encoded by default), or go in the query with `.parameterEncoding(.query)`. The
    /// task starts when its first response handler is added, or ``ServiceTask/resume()`` is called, or
    /// else when it is released.
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: A path relative to ``baseURLString`` (see ``absoluteURLString(_:)``), or an absolute URL.
    ///   - parameters: Names and values: strings, numbers, booleans, arrays of those (a key repeated
    ///     in a query), and for JSON anything `JSON.init(converting:)` takes.
    ///   - options: Headers, the parameter encoding, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func request(
        _ method: HTTPMethod, _ path: String, parameters: [String: any Sendable]? = nil,
        options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        let urlString = absoluteURLString(path)
        let sendsQuery = RequestBuilder.queryMethods.contains(method)
        if options.isEmpty, sendsQuery || parameters?.isEmpty != false {
            // Only a URL and a method: the request the cycle makes of them is the one
            // `RequestBuilder` would make, so it isn't made twice.
            let target = sendsQuery ? urlString.mergingQueryParameters(parameters ?? [:]) : urlString
            do {
                let url = try HTTPCycle.validatedURL(target, given: urlString)
                return ServiceTask(cycle: makeCycle(url, method))
            } catch {
                return ServiceTask(failure: error, session: session)
            }
        }
        return task(method, urlString, parameters: parameters, options: options)
    }

    /// The task of the request `RequestBuilder` makes of these, its cycle completed by `prepare`
    /// before the task exists (a task released at once starts then); failed from the start when
    /// the request can't be made.
    func task(
        _ method: HTTPMethod, _ urlString: String, parameters: [String: any Sendable]?, options: [ServiceTask.Option],
        prepare: (HTTPCycle) -> Void = { _ in }
    ) -> ServiceTask {
        let request: HTTPRequest
        do {
            request = try RequestBuilder.request(method, urlString, parameters: parameters, options: options)
        } catch {
            return ServiceTask(failure: error, session: session)
        }
        guard let url = request.url else {
            return ServiceTask(failure: HTTPError.invalidURL(urlString, reason: "not a valid URL"), session: session)
        }
        let cycle = makeCycle(url, method)
        cycle.request = request
        if options.contains(.retryable) {
            cycle.retryableMethods = session.retryStrategy.retryableMethods.union([method])
        }
        prepare(cycle)
        return ServiceTask(cycle: cycle)
    }

    /// A cycle on ``session`` with this service's interceptors, if it has any.
    private func makeCycle(_ url: URL, _ method: HTTPMethod) -> HTTPCycle {
        let cycle = HTTPCycle(requestURL: url, requestMethod: method, session: session)
        if let interceptors { cycle.interceptors = interceptors }
        return cycle
    }

    /// Makes the task of a `GET` request; the parameters go in the query.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: Query parameters, merged with any query `path` has.
    ///   - options: Headers, the cache policy, the timeout…
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func GET(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.get, path, parameters: parameters, options: options)
    }

    /// Makes the task of a `HEAD` request; the parameters go in the query.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: Query parameters, merged with any query `path` has.
    ///   - options: Headers, the cache policy, the timeout…
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func HEAD(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.head, path, parameters: parameters, options: options)
    }

    /// Makes the task of a `DELETE` request; the parameters are the body, as for `POST`.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: The body's names and values, percent-encoded unless the options say
    ///     `.parameterEncoding(.json)`; with `.parameterEncoding(.query)`, query parameters merged
    ///     with any query `path` has.
    ///   - options: The parameter encoding, headers, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func DELETE(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.delete, path, parameters: parameters, options: options)
    }

    /// Makes the task of a `POST` request; the parameters are the body.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: The body's names and values, percent-encoded unless the options say
    ///     `.parameterEncoding(.json)`; with `.parameterEncoding(.query)`, query parameters merged
    ///     with any query `path` has.
    ///   - options: The parameter encoding, headers, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func POST(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.post, path, parameters: parameters, options: options)
    }

    /// Makes the task of a `PUT` request; the parameters are the body.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: The body's names and values, percent-encoded unless the options say
    ///     `.parameterEncoding(.json)`; with `.parameterEncoding(.query)`, query parameters merged
    ///     with any query `path` has.
    ///   - options: The parameter encoding, headers, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func PUT(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.put, path, parameters: parameters, options: options)
    }

    /// Makes the task of a `PATCH` request; the parameters are the body.
    ///
    /// - Parameters:
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - parameters: The body's names and values, percent-encoded unless the options say
    ///     `.parameterEncoding(.json)`; with `.parameterEncoding(.query)`, query parameters merged
    ///     with any query `path` has.
    ///   - options: The parameter encoding, headers, a raw body, the cache policy, the timeout.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func PATCH(
        _ path: String, parameters: [String: any Sendable]? = nil, options: [ServiceTask.Option] = []
    ) -> ServiceTask {
        request(.patch, path, parameters: parameters, options: options)
    }
}
