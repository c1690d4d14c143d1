import Foundation

extension String {
    /// This URL string with `parameters` merged into its query.
    ///
    /// Each value is one value or an array of values, written as `key=value` pairs (an array repeats
    /// the key). Keys and values are percent-encoded so that only unreserved characters
    /// (`A–Z a–z 0–9 - . _ ~`) stay as they are: `&`, `=`, `+`, space (as `%20`) and non-ASCII
    /// characters all come out encoded. Pairs already in the string are kept as written, except those whose key is also
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
            let encodedKey = URLEncoding.encode(key, .query)
            for item in URLEncoding.flatten(value) {
                pairs.append((key, encodedKey + "=" + URLEncoding.encode(item, .query)))
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

/// The one percent-encoder of the names and values the library writes as `name=value` pairs: URL
/// queries and `application/x-www-form-urlencoded` bodies.
///
/// A character the rule keeps is written as it is; a space is written as the rule says; every
/// other character is written as the `%XX` escapes of its UTF-8 bytes, in upper-case hex. The two
/// rules differ in nothing else:
///
/// | Rule     | Kept as they are                              | Space | Written by                                              |
/// |----------|-----------------------------------------------|-------|---------------------------------------------------------|
/// | `.query` | `A–Z a–z 0–9 - . _ ~` (RFC 3986 unreserved)   | `%20` | `mergingQueryParameters` (every query the library adds), the fluent layer's `.percent` bodies |
/// | `.form`  | `A–Z a–z 0–9 * - . _` (WHATWG URL Standard §5) | `+`   | `FormData.encoded`, `HTTPFormProcessor` bodies            |
///
/// Why two: a query is read by every kind of server code, and `%20` is a space to all of them (an
/// RFC 3986 decoder reads `+` as a plus), so queries keep only unreserved characters and write a
/// space as `%20`. `FormData` follows the WHATWG application/x-www-form-urlencoded serializer byte
/// for byte, as browsers submit forms: `+` for a space. The fluent `.percent` body is the Swallow
/// seed's: the query a `GET` would send, without its `?` (`this%20needs%20percent%20encoded`).
/// Form parsers, `FormData(parsing:)` included, read both back as the same pairs.
package enum URLEncoding {
    /// Which characters stay as they are and how a space is written; see ``URLEncoding``.
    package enum Rule: Sendable {
        /// RFC 3986 unreserved characters kept, a space as `%20`: queries, fluent `.percent` bodies.
        case query
        /// The WHATWG application/x-www-form-urlencoded serializer: `*-._` and alphanumerics kept,
        /// a space as `+`: `FormData`, `HTTPFormProcessor`.
        case form
    }

    /// `string` percent-encoded by `rule`.
    ///
    /// - Parameters:
    ///   - string: A name or value.
    ///   - rule: What is kept, and how a space is written.
    /// - Returns: The encoded text, ASCII only.
    package static func encode(_ string: String, _ rule: Rule) -> String {
        let utf8 = string.utf8
        if utf8.allSatisfy({ keeps($0, rule) }) { return string }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + utf8.count / 2)
        for byte in utf8 {
            if keeps(byte, rule) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " "), rule == .form {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `name=value` pairs, each name and value encoded by `rule`, joined with `&` in order.
    ///
    /// - Parameters:
    ///   - pairs: The names and values; a name may repeat.
    ///   - rule: What is kept, and how a space is written.
    /// - Returns: The serialized text, without a leading `?`.
    package static func serialize(_ pairs: some Sequence<(String, String)>, _ rule: Rule) -> String {
        pairs.map { encode($0.0, rule) + "=" + encode($0.1, rule) }.joined(separator: "&")
    }

    /// The pairs a parameter dictionary stands for: keys sorted, each value turned into text as
    /// ``flatten(_:)`` says (an array repeats its key, in order).
    ///
    /// - Parameter parameters: Names and values.
    /// - Returns: The pairs, in the order they are written.
    package static func pairs(_ parameters: [String: Any]) -> [(String, String)] {
        var pairs: [(String, String)] = []
        pairs.reserveCapacity(parameters.count)
        for key in parameters.keys.sorted() {
            guard let value = parameters[key] else { continue }
            for text in flatten(value) { pairs.append((key, text)) }
        }
        return pairs
    }

    /// The text of each value: arrays give one item per element, `nil` none.
    package static func flatten(_ value: Any) -> [String] {
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

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func keeps(_ byte: UInt8, _ rule: Rule) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        case UInt8(ascii: "~"): return rule == .query
        case UInt8(ascii: "*"): return rule == .form
        default: return false
        }
    }
}
