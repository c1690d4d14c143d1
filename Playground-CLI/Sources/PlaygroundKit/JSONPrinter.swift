import Jewzruxin

/// Writes ``JSON`` values as text whose form never varies: object keys sorted, two-space indent.
///
/// ```swift
/// JSONPrinter.pretty(["b": [1, 2], "a": "x"])
/// // {
/// //   "a": "x",
/// //   "b": [
/// //     1,
/// //     2
/// //   ]
/// // }
/// ```
///
/// Strings keep non-ASCII characters and `/` as they are; quotes, backslashes and control
/// characters are escaped.
enum JSONPrinter {
    /// The value on several lines, keys sorted, indented by two spaces per level; empty arrays and
    /// objects stay on one line (`[]`, `{}`).
    ///
    /// - Parameter value: The value to print.
    /// - Returns: The text, without a final newline.
    static func pretty(_ value: JSON) -> String {
        var output = ""
        write(value, indent: 0, pretty: true, into: &output)
        return output
    }

    /// The value on one line with no spaces, keys sorted.
    ///
    /// - Parameter value: The value to print.
    /// - Returns: The text.
    static func compact(_ value: JSON) -> String {
        var output = ""
        write(value, indent: 0, pretty: false, into: &output)
        return output
    }

    private static func write(_ value: JSON, indent: Int, pretty: Bool, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .int(let int): output += String(int)
        case .double(let double): output += double.description
        case .string(let string): output += quoted(string)
        case .array(let array):
            writeContainer(array.map { (nil, $0) }, open: "[", close: "]", indent: indent, pretty: pretty, into: &output)
        case .object(let object):
            let members = object.sorted { $0.key < $1.key }.map { (Optional($0.key), $0.value) }
            writeContainer(members, open: "{", close: "}", indent: indent, pretty: pretty, into: &output)
        }
    }

    private static func writeContainer(
        _ members: [(key: String?, value: JSON)], open: String, close: String, indent: Int, pretty: Bool,
        into output: inout String
    ) {
        output += open
        guard !members.isEmpty else {
            output += close
            return
        }
        let inner = String(repeating: "  ", count: indent + 1)
        for (index, member) in members.enumerated() {
            if index > 0 { output += "," }
            if pretty { output += "\n" + inner }
            if let key = member.key { output += quoted(key) + (pretty ? ": " : ":") }
            write(member.value, indent: indent + 1, pretty: pretty, into: &output)
        }
        if pretty { output += "\n" + String(repeating: "  ", count: indent) }
        output += close
    }

    /// A JSON string literal.
    static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
