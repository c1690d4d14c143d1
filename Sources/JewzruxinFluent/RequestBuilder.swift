import Foundation
import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns what a ``WebService`` method was given into the request of a cycle.
enum RequestBuilder {
    /// The methods whose parameters always go in the query (seed 004); every other method sends
    /// them as the body, unless the encoding is ``Request/ParameterEncoding/query``.
    static let queryMethods: Set<HTTPMethod> = [.get, .head]

    /// What a list of options amounts to, the last of each kind winning.
    struct Settings {
        var encoding = Request.ParameterEncoding.percent
        var headers: [(name: String, value: String)] = []
        var body: Data?
        var cachePolicy: URLRequest.CachePolicy?
        var timeout: TimeInterval?

        init(_ options: [ServiceTask.Option]) {
            for option in options {
                switch option {
                case .parameterEncoding(let encoding): self.encoding = encoding
                case .header(let name, let value): headers.append((name, value))
                case .body(let data): body = data
                case .cachePolicy(let policy): cachePolicy = policy
                case .timeout(let interval): timeout = interval
                case .retryable: break // the cycle's, not the request's (WebService.task)
                }
            }
        }
    }

    /// The request for `method` on `urlString` with `parameters` and `options` encoded.
    ///
    /// - Throws: `HTTPError.invalidURL(_:reason:)` naming `urlString`, or the error of a parameter
    ///   that has no JSON form.
    static func request(
        _ method: HTTPMethod, _ urlString: String, parameters: [String: any Sendable]?, options: [ServiceTask.Option]
    ) throws -> HTTPRequest {
        let settings = Settings(options)
        let parameters = parameters ?? [:]
        let sendsQuery = queryMethods.contains(method) || settings.encoding == .query
        let target = sendsQuery ? urlString.mergingQueryParameters(parameters) : urlString
        var request = HTTPRequest(url: try HTTPCycle.validatedURL(target, given: urlString), method: method)
        if let body = settings.body {
            request.data = body
        } else if !sendsQuery, !parameters.isEmpty, let body = try encode(parameters, settings.encoding) {
            request.data = body
            request.setValue(settings.encoding.contentType, forHTTPHeaderField: Request.Headers.contentType)
        }
        for header in settings.headers {
            request.setValue(header.value, forHTTPHeaderField: header.name)
        }
        if let policy = settings.cachePolicy { request.core.cachePolicy = policy }
        if let timeout = settings.timeout { request.core.timeoutInterval = timeout }
        return request
    }

    /// The body `parameters` make with `encoding`; `nil` for ``Request/ParameterEncoding/query``,
    /// which puts them in the query instead.
    static func encode(_ parameters: [String: any Sendable], _ encoding: Request.ParameterEncoding) throws -> Data? {
        switch encoding {
        case .percent:
            // The query a GET writes for these parameters, without its `?`: the core's encoder
            // with its query rule (`%20` for a space), keys sorted.
            return Data(URLEncoding.serialize(URLEncoding.pairs(parameters), .query).utf8)
        case .json:
            return try JSON(converting: parameters).encoded()
        case .query:
            return nil
        }
    }
}
