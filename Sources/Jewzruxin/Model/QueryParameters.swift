import Foundation

extension String {
    /// This URL string with `parameters` merged into its query.
    ///
    /// Each value is one value or an array of values, written as `key=value` pairs (an array repeats
    /// the key). Keys and values are percent-encoded so that only unreserved characters
    /// (`A–Z a–z 0–9 - . _ ~`) stay as they are: `&`, `=`, `+`, space and non-ASCII characters all come
    /// out encoded. Pairs already in the string are kept as written, except those whose key is also
    /// in `parameters`, which the new values replace. Pairs are then ordered by key (pairs with the
    /// same key keep their order) and the fragment, if any, stays last.
    ///
    /// ```swift
    /// "/hello/?key2=value2".mergingQueryParameters(["key1": "value1"])
    /// // "/hello/?key1=value1&key2=value2"
    /// ```
    /// - Parameter parameters: The names and values to add.
    /// - Returns: The URL string with the merged query.
    public func mergingQueryParameters(_ parameters: [String: any Sendable]) -> String {
        guard !parameters.isEmpty else { return self }
        var base = Substring(self)
        var fragment: Substring?
        if let hash = base.firstIndex(of: "#") {
            fragment = base[base.index(after: hash)...]
            base = base[..<hash]
        }
        var pairs: [(key: String, text: String)] = []
        if let question = base.firstIndex(of: "?") {
            for raw in base[base.index(after: question)...].split(separator: "&") {
                let rawKey = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                let key = String(rawKey).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawKey)
                if parameters[key] == nil { pairs.append((key, String(raw))) }
            }
            base = base[..<question]
        }
        for (key, value) in parameters {
            let encodedKey = QueryEncoding.encode(key)
            for item in QueryEncoding.flatten(value) {
                pairs.append((key, encodedKey + "=" + QueryEncoding.encode(item)))
            }
        }
        // A stable sort: repeated keys keep the order they were given in.
        let ordered = pairs.enumerated().sorted { lhs, rhs in
            lhs.element.key != rhs.element.key ? lhs.element.key < rhs.element.key : lhs.offset < rhs.offset
        }
        var result = String(base)
        if !ordered.isEmpty {
            result += "?" + ordered.map(\.element.text).joined(separator: "&")
        }
        if let fragment { result += "#" + fragment }
        return result
    }
}

enum QueryEncoding {
    /// Unreserved characters (RFC 3986 §2.3): everything else is percent-encoded.
    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    static func encode(_ string: String) -> String {
        encode(string, allowing: unreserved)
    }

    /// Percent-encodes, as UTF-8, every character of `string` that is not in `allowed`.
    static func encode(_ string: String, allowing allowed: CharacterSet) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }

    /// The text of each value: arrays give one item per element, `nil` none.
    static func flatten(_ value: Any) -> [String] {
        switch value {
        case let string as String: return [string]
        case let array as [Any]: return array.flatMap(flatten)
        case let bool as Bool: return [bool ? "true" : "false"]
        case let url as URL: return [url.absoluteString]
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                return mirror.children.first.map { flatten($0.value) } ?? []
            }
            return [String(describing: value)]
        }
    }
}
