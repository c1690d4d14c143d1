import Foundation
import Jewzruxin

/// What a request command sends: its method, full URL (query included) and body.
///
/// Made from the command's items (see ``RequestItem``) without touching the network, so the rules
/// can be checked on their own:
///
/// ```swift
/// let plan = try RequestPlan(method: .post, target: "/inspect/", items: [.field("a", "1"), .json("n", 2)],
///                            json: false, base: "http://127.0.0.1:8080")
/// // plan.url == "http://127.0.0.1:8080/inspect/", plan.body == .json(["a": "1", "n": 2])
/// ```
struct RequestPlan: Sendable, Hashable {
    /// The body of a request.
    enum Body: Sendable, Hashable {
        /// No body.
        case empty
        /// An `application/x-www-form-urlencoded` body, sent by ``HTTPFormProcessor``.
        case form(FormData)
        /// A JSON object, sent by ``HTTPJSONProcessor``.
        case json(JSON)
        /// A `multipart/form-data` body of the fields and files, in order, streamed from disk.
        case multipart(MultipartFormData)
    }

    /// The request method.
    var method: HTTPMethod
    /// The absolute URL string, query parameters merged in; checked when the cycle is made.
    var url: String
    /// The body.
    var body: Body

    /// Plans a request.
    ///
    /// - Parameters:
    ///   - method: The method; `POST`, `PUT` and `PATCH` send `key=value` items as a body, the
    ///     others as query parameters.
    ///   - target: A path joined to `base`, or an absolute URL.
    ///   - items: The command's items.
    ///   - json: Whether `--json` was given: the body is JSON even without `key:=json` items.
    ///   - base: The base URL.
    /// - Throws: ``PlaygroundError`` when a method without a body is given `key:=json` items, or
    ///   when `target` is meant as an absolute URL but is not a valid one.
    init(method: HTTPMethod, target: String, items: [RequestItem], json: Bool, base: String) throws(PlaygroundError) {
        let (body, query) = try Self.split(items, method: method, json: json)
        let url = try BaseURL.resolve(target, on: base)
        self.method = method
        self.url = Self.merging(query, into: url)
        self.body = body
    }

    /// Creates a plan from its parts.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL string.
    ///   - body: The body.
    init(method: HTTPMethod, url: String, body: Body) {
        self.method = method
        self.url = url
        self.body = body
    }

    /// The body and query parameters that `items` make for `method`.
    ///
    /// - Returns: The body, and the query pairs in order.
    /// - Throws: ``PlaygroundError`` when a method without a body is given `key:=json` items.
    static func split(
        _ items: [RequestItem], method: HTTPMethod, json: Bool
    ) throws(PlaygroundError) -> (Body, [(String, String)]) {
        var query: [(String, String)] = []
        var fields: [(String, JSON)] = []
        var isJSON = json
        let hasBody = Command.bodyMethods.contains(method)
        if let file = items.first(where: { if case .file = $0 { return true } else { return false } }) {
            guard hasBody else { throw PlaygroundError("\(file) needs a body: file parts are for POST, PUT and PATCH") }
            let query = items.compactMap { item -> (String, String)? in
                if case .query(let name, let value) = item { return (name, value) }
                return nil
            }
            return (try multipart(items, json: json), query)
        }
        for item in items {
            switch item {
            case .query(let name, let value):
                query.append((name, value))
            case .field(let name, let value):
                if hasBody { fields.append((name, .string(value))) } else { query.append((name, value)) }
            case .json(let name, let value):
                guard hasBody else { throw PlaygroundError("\(item) needs a body: raw JSON values are for POST, PUT and PATCH") }
                fields.append((name, value))
                isJSON = true
            case .file:
                break
            }
        }
        guard hasBody, isJSON || !fields.isEmpty else { return (.empty, query) }
        if isJSON {
            return (.json(.object(Dictionary(fields, uniquingKeysWith: { _, last in last }))), query)
        }
        let pairs = fields.map { (name: $0.0, value: $0.1.stringValue ?? "") }
        return (.form(FormData(pairs)), query)
    }

    /// A multipart form of `items`: `key=value` text fields and `key@path` files, in order
    /// (`key==value` items go in the query).
    private static func multipart(_ items: [RequestItem], json: Bool) throws(PlaygroundError) -> Body {
        var form = MultipartFormData()
        for item in items {
            switch item {
            case .field(let name, let value):
                form.append(value, name: name)
            case .file(let name, let path):
                form.append(fileAt: URL(fileURLWithPath: NSString(string: path).expandingTildeInPath), name: name)
            case .json:
                throw PlaygroundError("\(item) can't go in a multipart form: use key=value fields with key@file parts")
            case .query:
                continue
            }
        }
        if json { throw PlaygroundError("--json can't go with key@file parts, which make a multipart form") }
        return .multipart(form)
    }

    /// `url` with the pairs merged into its query (a repeated name is kept as a list).
    static func merging(_ query: [(String, String)], into url: String) -> String {
        guard !query.isEmpty else { return url }
        var parameters: [String: [String]] = [:]
        for (name, value) in query { parameters[name, default: []].append(value) }
        let values = parameters.mapValues { list -> any Sendable in list.count == 1 ? list[0] : list }
        return url.mergingQueryParameters(values)
    }

    /// The request processors that turn ``body`` into bytes: none, a form or a JSON processor.
    var requestProcessors: [HTTPProcessor] {
        switch body {
        case .empty, .multipart: return []
        case .form: return [HTTPFormProcessor()]
        case .json: return [HTTPJSONProcessor()]
        }
    }

    /// The request object the processors turn into the body.
    var requestObject: (any Sendable)? {
        switch body {
        case .empty, .multipart: return nil
        case .form(let form): return form
        case .json(let json): return json
        }
    }

    /// The upload a multipart body is sent as; `nil` for the others, which processors make.
    var uploadSource: HTTPCycle.UploadSource? {
        if case .multipart(let form) = body { return .multipart(form) }
        return nil
    }
}
