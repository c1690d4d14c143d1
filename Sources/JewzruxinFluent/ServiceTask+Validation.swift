import Foundation
import Jewzruxin

// Alamofire's `validate()`: steps of the chain that refuse a response the session let through,
// failing the task with a `ResponseValidationError` so the success handlers after them are skipped
// and the error handlers run.
//
// A validation is a step of the chain, as a handler is: it judges the response in its turn, after the
// handlers added before it have run and before those added after it. Written where Alamofire users
// write it, right after the request (and the content handler shortcuts), it applies to every handler.
// Alamofire instead runs its validators when the response arrives, whatever their place in the
// chain, and not at all when added later; here the place decides, so a validation added late never
// races a handler that has already run.
extension ServiceTask {
    /// Refuses a response whose status is not 2xx, or whose `Content-Type` doesn't match the
    /// request's `Accept` header, when the request has one.
    ///
    /// ```swift
    /// service.GET("/stores", parameters: ["zip": "15217"], options: [.header(Request.Headers.accept, "application/json")])
    ///     .validate()
    ///     .responseJSON([Store].self) { stores in }        // a 2xx JSON response only
    ///     .responseError { error in }                      // a ResponseValidationError otherwise
    /// ```
    ///
    /// The same as ``validate(statusCode:)`` with `200..<300`, then ``validate(contentType:)``
    /// with the media ranges of `Accept` (those with `q=0` left out; `*/*` takes any type).
    ///
    /// A validation is a step of the chain: it judges the response in its turn, once the handlers
    /// added before it have run, and applies to the handlers after it. Write it right after the
    /// request and the content handler shortcuts, so that it applies to every handler. It runs only
    /// while the task has no error, and the first error stands: a status the session fails by
    /// itself (400 or more by default, see `HTTPSessionDelegate`) stays
    /// `HTTPError.statusCodeSeemsToHaveErred(_:)`, a content handler's refusal a
    /// `ContentHandlerError`. What is left to refuse is what the session lets through: a 1xx or
    /// 3xx it doesn't follow, such as a 304, and the statuses a session delegate accepts. A
    /// validation doesn't start the task: the first response handler does.
    ///
    /// A refused response fails the task with a ``ResponseValidationError`` keeping the response
    /// and its body: the success handlers after the validation are skipped, the error handlers run
    /// (a typed ``responseError(_:decoder:_:)`` decodes the body), and the async twins throw it.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func validate() -> Self {
        addValidation { response, request in
            try Self.check(response, statusCodes: 200..<300)
            guard let accept = request?.value(forHTTPHeaderField: "Accept") else { return }
            let acceptable = Self.mediaRanges(accept: accept)
            guard !acceptable.isEmpty else { return }
            try Self.check(response, request: request, contentTypes: acceptable)
        }
    }

    /// Refuses a response whose status is not in `acceptable`.
    ///
    /// ```swift
    /// service.GET("/report").validate(statusCode: [200]).response { response, data in }  // not a 204
    /// ```
    ///
    /// A response the session already failed keeps its error (see ``validate()``): a 404 stays
    /// `HTTPError.statusCodeSeemsToHaveErred(_:)` unless a session delegate lets it through, and
    /// listing it here doesn't make it a success.
    /// - Parameter acceptable: The statuses taken, such as `200..<300` or `[200, 204]`.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func validate<S: Sequence<Int> & Sendable>(statusCode acceptable: S) -> Self {
        addValidation { response, _ in try Self.check(response, statusCodes: acceptable) }
    }

    /// Refuses a response with a body whose `Content-Type` matches none of `acceptable`.
    ///
    /// ```swift
    /// service.GET("/avatar").validate(contentType: ["image/*"]).asImage().responseImage { image in }
    /// ```
    ///
    /// Types are compared by their essence, ignoring case and parameters (`charset`); a pattern may
    /// use `*` for the type or the subtype (`*/*`, `application/*`) or before a suffix
    /// (`application/*+json`). A response with a body and no `Content-Type` is refused
    /// (``ResponseValidationError/Reason/missingContentType(acceptable:)``). A response that has
    /// no body, whatever its headers say, passes: a status of 1xx, 204, 205 or 304, the answer to a
    /// `HEAD`, or a `Content-Length` of 0. An empty list takes any type.
    /// - Parameter acceptable: The media types taken, such as `["application/json"]`.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func validate(contentType acceptable: [String]) -> Self {
        addValidation { response, request in
            guard !acceptable.isEmpty else { return }
            try Self.check(response, request: request, contentTypes: acceptable)
        }
    }

    /// Refuses a response that `validation` throws for.
    ///
    /// ```swift
    /// service.GET("/report")
    ///     .validate { response in
    ///         guard response.value(forHTTPHeaderField: "X-Report-Complete") == "yes" else {
    ///             throw ReportError.incomplete
    ///         }
    ///     }
    ///     .responseJSON { json in }
    /// ```
    ///
    /// `validation` runs in the validation's turn off the handler queues, where the response is
    /// read for the handlers (where the request ended for a small body, on the session's worker
    /// queue otherwise), so it may read the body; keep it quick and thread-safe. The error it
    /// throws fails the task as ``ResponseValidationError/Reason/customValidationFailed(_:)``
    /// (a ``ResponseValidationError`` it throws is kept as it is). See ``validate()`` for where a
    /// validation applies.
    /// - Parameter validation: Gets the response, with its body; throws to refuse it.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func validate(_ validation: @escaping @Sendable (HTTPResponse) throws -> Void) -> Self {
        addValidation(reading: true) { response, _ in
            do {
                try validation(response)
            } catch let error as ResponseValidationError {
                throw error
            } catch {
                throw ResponseValidationError(.customValidationFailed(error), response: response)
            }
        }
    }

    /// Refuses a response for which `validation` returns a failure.
    ///
    /// ```swift
    /// service.GET("/report")
    ///     .validate { response in
    ///         response.data.isEmpty ? .failure(ReportError.empty) : .success(())
    ///     }
    ///     .responseJSON { json in }
    /// ```
    ///
    /// The same as the throwing form, `validate { response in try … }`: the failure's error fails
    /// the task as ``ResponseValidationError/Reason/customValidationFailed(_:)``.
    /// - Parameter validation: Gets the response, with its body; returns `.failure` to refuse it.
    /// - Returns: This task, to chain handlers.
    @discardableResult
    public func validate(_ validation: @escaping @Sendable (HTTPResponse) -> Result<Void, any Error>) -> Self {
        validate { (response: HTTPResponse) throws in try validation(response).get() }
    }

    // MARK: The checks

    /// Adds a validation: a success step that doesn't start the task. Its check runs inline, a
    /// quick look at the head, or, when `reading` the body, where the response is read for the
    /// handlers (off the handler queues).
    private func addValidation(
        reading: Bool = false, _ check: @escaping @Sendable (HTTPResponse, HTTPRequest?) throws -> Void
    ) -> Self {
        let cycle = self.cycle
        return add(Handler(kind: .success, place: .handlers(.inline)) { outcome in
            let response = outcome.response ?? HTTPResponse()
            guard reading else { return .run { try check(response, cycle?.request) } }
            return .read {
                try check(response, cycle?.request)
                return nil
            }
        }, starting: false)
    }

    private static func check<S: Sequence<Int>>(_ response: HTTPResponse, statusCodes acceptable: S) throws {
        let status = response.statusCode ?? 0
        guard acceptable.contains(status) else {
            throw ResponseValidationError(.unacceptableStatusCode(status), response: response)
        }
    }

    private static func check(_ response: HTTPResponse, request: HTTPRequest?, contentTypes acceptable: [String]) throws {
        guard hasBody(response, request: request) else { return }
        guard let header = response.value(forHTTPHeaderField: "Content-Type") else {
            throw ResponseValidationError(.missingContentType(acceptable: acceptable), response: response)
        }
        guard let type = MediaType(contentTypeHeader: header) else {
            throw ResponseValidationError(.unacceptableContentType(header, acceptable: acceptable), response: response)
        }
        guard acceptable.contains(where: { SelectiveDiscarder.mediaType(type, matches: $0) }) else {
            throw ResponseValidationError(.unacceptableContentType(type.essence, acceptable: acceptable), response: response)
        }
    }

    /// Whether a response may have a body: not a 1xx, 204, 205 or 304, not the answer to a `HEAD`,
    /// and without a `Content-Length` of 0. A body that went elsewhere (a file, a stream) counts.
    private static func hasBody(_ response: HTTPResponse, request: HTTPRequest?) -> Bool {
        let status = response.statusCode ?? 0
        if (100..<200).contains(status) || [204, 205, 304].contains(status) { return false }
        if request?.method == .head { return false }
        let length = response.value(forHTTPHeaderField: "Content-Length")?.trimmingCharacters(in: .whitespaces)
        return length != "0"
    }

    /// The media ranges of an `Accept` header, without parameters, leaving out those with `q=0`.
    static func mediaRanges(accept: String) -> [String] {
        accept.split(separator: ",").compactMap { part in
            guard let range = MediaType(String(part)) else { return nil }
            if let q = range.parameters["q"].flatMap(Double.init), q <= 0 { return nil }
            return range.essence
        }
    }
}
