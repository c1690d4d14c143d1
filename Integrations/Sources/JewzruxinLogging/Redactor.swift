import Foundation

/// Hides what a ``LoggingMonitor`` must not write: credentials in headers, URLs and bodies.
struct Redactor: Sendable {
    static let mask = "<redacted>"

    /// Lowercased header names.
    let headers: Set<String>
    let queryItems: Set<String>
    let formFields: Set<String>

    init(configuration: LoggingMonitor.Configuration) {
        headers = LoggingMonitor.Configuration.alwaysRedactedHeaders.union(configuration.redactedHeaders.map { $0.lowercased() })
        queryItems = configuration.redactedQueryItems
        formFields = configuration.redactedFormFields
    }

    /// The value of header `name` as it may be written.
    func header(_ name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? Self.mask : value
    }

    /// `url` as it may be written: its password and the values of the configured query items
    /// replaced. The result is text for a log, not a URL (`<redacted>` isn't valid in one).
    func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        var text = url.absoluteString
        if url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.password = "redacted"
            text = components.url?.absoluteString ?? text
        }
        guard !queryItems.isEmpty, let mark = text.firstIndex(of: "?") else { return text }
        let queryStart = text.index(after: mark)
        let queryEnd = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        return String(text[..<queryStart]) + redactingForm(String(text[queryStart..<queryEnd])) + String(text[queryEnd...])
    }

    /// A form-encoded string (a query, an `application/x-www-form-urlencoded` body) with the values
    /// of the configured names replaced; the rest as it was.
    func redactingForm(_ encoded: String, names: Set<String>? = nil) -> String {
        let names = names ?? queryItems
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            guard names.contains(name), parts.count == 2 else { return String(pair) }
            return rawName + "=" + Self.mask
        }.joined(separator: "&")
    }

    /// At most `limit` bytes of a body, as text, with the configured fields redacted when it is a
    /// form or JSON.
    func body(_ data: Data, contentType: String?, limit: Int) -> String {
        var data = data
        let type = contentType?.lowercased() ?? ""
        if !formFields.isEmpty {
            if type.hasPrefix("application/x-www-form-urlencoded") {
                data = Data(redactingForm(String(decoding: data, as: UTF8.self), names: formFields).utf8)
            } else if type.hasPrefix("application/json") || type.contains("+json") {
                data = redactingJSON(data) ?? Data(Self.mask.utf8)
            }
        }
        let shown = String(decoding: data.prefix(limit), as: UTF8.self)
        return data.count > limit ? shown + "… (\(data.count - limit) more bytes)" : shown
    }

    /// A JSON document with the values of the configured keys replaced at every depth; `nil` when
    /// it isn't JSON (then the whole body is hidden: it may hold what should be).
    private func redactingJSON(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return try? JSONSerialization.data(withJSONObject: redacting(object), options: [.sortedKeys, .fragmentsAllowed])
    }

    private func redacting(_ object: Any) -> Any {
        if let dictionary = object as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in dictionary { result[key] = formFields.contains(key) ? Self.mask : redacting(value) }
            return result
        }
        if let array = object as? [Any] { return array.map(redacting) }
        return object
    }
}
