import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Jewzruxin

extension HTTPSession {
    /// Sends swift-http-types' request and returns swift-http-types' response with its whole body.
    ///
    /// ```swift
    /// let request = HTTPTypes.HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("/hello/"))
    /// let (response, body) = try await HTTPSession.default.send(request)
    /// print(response.status.code, String(decoding: body, as: UTF8.self)) // 200 Hello World
    /// ```
    ///
    /// **Every status is returned**, 4xx and 5xx included, with its body: this call, as
    /// AsyncHTTPClient's and URLSession's, leaves judging it to the caller. Everything else is the
    /// session's: its transports, interceptors, event monitors, redirects, authentication, and its
    /// retry policy (a `503` to a `GET` is resent as the policy says, a `POST` only when
    /// `retryableMethods` allows it; the last answer is returned).
    ///
    /// - Parameters:
    ///   - request: The request: method, scheme, authority, path and header fields.
    ///   - body: The request body; `nil` for none.
    ///   - configure: Changes the cycle before it starts: an upload source instead of `body`
    ///     (`cycle.uploadSource = .file(url)`), its own `retryableMethods`, interceptors, deadline.
    /// - Returns: The response head and its body.
    /// - Throws: ``HTTPTypesConversionError`` for a request without a URL, the library's
    ///   `HTTPError` for what isn't a status (a transport failure, a deadline), or
    ///   `CancellationError` when the task was cancelled, which cancels the request.
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: Data? = nil, configure: (HTTPCycle) -> Void = { _ in }
    ) async throws -> (response: HTTPTypes.HTTPResponse, body: Data) {
        let cycle = try makeCycle(request, body: body)
        configure(cycle)
        let response: Jewzruxin.HTTPResponse
        do {
            response = try await cycle.start()
        } catch HTTPError.statusCodeSeemsToHaveErred(let failed) {
            response = failed
        }
        return (try HTTPTypes.HTTPResponse(response), response.data)
    }

    /// Sends swift-http-types' request and returns swift-http-types' response as soon as its head
    /// arrives, with its body to read as it comes.
    ///
    /// ```swift
    /// let request = HTTPTypes.HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("/bytes/1048576"))
    /// let (response, body) = try await HTTPSession.default.stream(request)
    /// var total = 0
    /// for try await chunk in body { total += chunk.count }
    /// print(response.status.code, total) // 200 1048576
    /// ```
    ///
    /// Every status is returned, as by ``send(_:body:configure:)``. A 2xx body streams (see
    /// ``StreamedResponseBody``); the body of another status came whole before the call returns,
    /// up to 1 MiB of it for a status the session treats as a failure (≥ 400 by default: the
    /// library keeps that much of such a body, `ContentHandlerError.maximumKeptBodySize`).
    /// Redirects and authentication challenges are answered first; once bytes of the body were
    /// given, the request is not resent.
    ///
    /// - Parameters:
    ///   - request: The request: method, scheme, authority, path and header fields.
    ///   - body: The request body; `nil` for none.
    ///   - configure: Changes the cycle before it starts (see ``send(_:body:configure:)``).
    /// - Returns: The response head and its body, as a ``StreamedResponseBody``.
    /// - Throws: As ``send(_:body:configure:)`` does, before the head.
    public func stream(
        _ request: HTTPTypes.HTTPRequest, body: Data? = nil, configure: (HTTPCycle) -> Void = { _ in }
    ) async throws -> (response: HTTPTypes.HTTPResponse, body: StreamedResponseBody) {
        let cycle = try makeCycle(request, body: body)
        configure(cycle)
        let method = cycle.request.method
        do {
            let (response, bytes) = try await cycle.stream()
            let length = StreamedResponseBody.expectedLength(of: response, method: method)
            return (try HTTPTypes.HTTPResponse(response), StreamedResponseBody(bytes, expectedLength: length))
        } catch HTTPError.statusCodeSeemsToHaveErred(let failed) {
            return (try HTTPTypes.HTTPResponse(failed), StreamedResponseBody(whole: method == .head ? Data() : failed.data))
        }
    }

    /// A cycle of this session for `request`, not started.
    private func makeCycle(_ request: HTTPTypes.HTTPRequest, body: Data?) throws(HTTPTypesConversionError) -> HTTPCycle {
        let converted = try Jewzruxin.HTTPRequest(request, body: body)
        guard let url = converted.url else { throw .missingURL }
        let cycle = HTTPCycle(requestURL: url, requestMethod: converted.method, session: self)
        cycle.request = converted
        return cycle
    }
}
