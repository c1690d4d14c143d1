/// A URI template (RFC 6570, up to level 4): text with `{expressions}` that expand to a URI.
///
/// The template is parsed once, when created; ``expand(_:)`` then fills in values.
///
/// ```swift
/// let template = try URITemplate("{+base}/repos{/owner,repo}/issues{?state,labels*}")
/// try template.expand(["base": "https://api.example.com", "owner": "apple", "repo": "swift",
///                      "state": "open", "labels": ["bug", "good first issue"]])
/// // "https://api.example.com/repos/apple/swift/issues?state=open&labels=bug&labels=good%20first%20issue"
/// ```
///
/// Two templates are equal when their texts are.
public struct URITemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template text.
    public let description: String
    /// The names of the template's variables, in order of first appearance, without duplicates.
    public let variableNames: [String]
    private let parts: [URITemplateParser.Part]

    /// Parses a template.
    ///
    /// - Parameter template: The template text, such as `"/users{/id}{?fields*}"`.
    /// - Throws: ``URITemplateError`` naming the problem and its position when the text is not a valid
    ///   level 4 template.
    public init(_ template: String) throws(URITemplateError) {
        let parts = try URITemplateParser(template).parse()
        var names: [String] = []
        var seen: Set<String> = []
        for part in parts {
            switch part {
            case .literal:
                continue
            case .expression(let expression):
                for variable in expression.variables {
                    if seen.insert(variable.name).inserted { names.append(variable.name) }
                }
            }
        }
        self.description = template
        self.variableNames = names
        self.parts = parts
    }

    public static func == (lhs: URITemplate, rhs: URITemplate) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }

    /// Expands the template with `values`.
    ///
    /// Values may be `String`, `Substring`, `Character`, integers, floating-point numbers, `Bool`
    /// (`true`/`false`), ``Value``, or other `LosslessStringConvertible` values; arrays of those (lists);
    /// `[(String, V)]` and `KeyValuePairs` (associative arrays, in their order); `[String: V]`
    /// (associative arrays, keys sorted so that the result is stable). A missing name, `nil`, an empty
    /// list and an empty associative array are undefined, and expand to nothing.
    ///
    /// - Parameter values: The variables' values, by name.
    /// - Returns: The expanded URI reference.
    /// - Throws: ``URITemplateError`` with ``URITemplateError/Problem/prefixOnCompositeValue`` when a
    ///   prefix modifier applies to a list or associative array, or
    ///   ``URITemplateError/Problem/unsupportedValue(type:)`` for a value of another type.
    public func expand(_ values: [String: any Sendable]) throws(URITemplateError) -> String {
        // Expansions usually fit in the stack scratch buffer; the output moves to the heap otherwise.
        let result: Result<String, URITemplateError> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) {
            scratch in
            var output = URITemplateOutput(scratch: scratch)
            do throws(URITemplateError) {
                for part in parts {
                    switch part {
                    case .literal(let bytes):
                        output.append(bytes)
                    case .expression(let expression):
                        try expand(expression, values, into: &output)
                    }
                }
            } catch {
                return .failure(error)
            }
            return .success(output.makeString())
        }
        return try result.get()
    }

    private func expand(
        _ expression: URITemplateParser.Expression, _ values: [String: any Sendable],
        into output: inout URITemplateOutput
    ) throws(URITemplateError) {
        let op = expression.op
        var first = true
        for variable in expression.variables {
            guard let raw = values[variable.name] else { continue }
            // Fast paths for the commonest types, chosen by exact type so that no cast has to fail;
            // other types (and those that merely cast to these) take the general path below.
            if let string = Self.exactly(raw, String.self) {
                writeSeparator(op, first: &first, into: &output)
                if op.named { appendName(variable.nameBytes, empty: string.isEmpty, op, into: &output) }
                URITemplateEncoding.append(string, allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
                continue
            }
            if let int = Self.exactly(raw, Int.self) {
                writeSeparator(op, first: &first, into: &output)
                if op.named { appendName(variable.nameBytes, empty: false, op, into: &output) }
                if variable.prefix == 0 || variable.prefix >= 20 {
                    output.append(decimal: int)
                } else {
                    URITemplateEncoding.append(String(int), allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
                }
                continue
            }
            if let strings = Self.exactly(raw, [String].self) {
                if strings.isEmpty { continue }
                guard variable.prefix == 0 else {
                    throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
                }
                writeSeparator(op, first: &first, into: &output)
                appendList(strings, variable, op, into: &output)
                continue
            }
            if let string = raw as? String {
                writeSeparator(op, first: &first, into: &output)
                if op.named { appendName(variable.nameBytes, empty: string.isEmpty, op, into: &output) }
                URITemplateEncoding.append(string, allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
                continue
            }
            if let int = raw as? Int {
                writeSeparator(op, first: &first, into: &output)
                if op.named { appendName(variable.nameBytes, empty: false, op, into: &output) }
                if variable.prefix == 0 || variable.prefix >= 20 {
                    output.append(decimal: int)
                } else {
                    URITemplateEncoding.append(String(int), allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
                }
                continue
            }
            let value: Value
            if let strings = raw as? [String] {
                if strings.isEmpty { continue }
                value = .list(strings)
            } else {
                switch Value.converting(raw) {
                case .value(let converted): value = converted
                case .undefined: continue
                case .unsupported(let type):
                    throw URITemplateError(.unsupportedValue(type: type), at: variable.position, in: description)
                }
            }
            switch value {
            case .string(let string):
                writeSeparator(op, first: &first, into: &output)
                if op.named { appendName(variable.nameBytes, empty: string.isEmpty, op, into: &output) }
                URITemplateEncoding.append(string, allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
            case .list(let items):
                guard variable.prefix == 0 else {
                    throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
                }
                writeSeparator(op, first: &first, into: &output)
                appendList(items, variable, op, into: &output)
            case .pairs(let pairs):
                guard variable.prefix == 0 else {
                    throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
                }
                writeSeparator(op, first: &first, into: &output)
                appendPairs(pairs, variable, op, into: &output)
            }
        }
    }

    /// `value` if its dynamic type is exactly `T`, without a runtime cast.
    @inline(__always)
    private static func exactly<T>(_ value: any Sendable, _: T.Type) -> T? {
        func open<V>(_ value: V) -> T? {
            // The types are identical, so the bits are the value.
            V.self == T.self ? unsafeBitCast(value, to: T.self) : nil
        }
        return open(value)
    }

    /// Writes the operator's first byte before the first defined variable, its separator before the others.
    @inline(__always)
    private func writeSeparator(_ op: URITemplateParser.Operator, first: inout Bool, into output: inout URITemplateOutput) {
        if first {
            if op.first != 0 { output.append(op.first) }
            first = false
        } else {
            output.append(op.separator)
        }
    }

    /// Writes `name=`, or `name` (`;`) / `name=` (`?`, `&`) before an empty value.
    @inline(__always)
    private func appendName(
        _ name: [UInt8], empty: Bool, _ op: URITemplateParser.Operator, into output: inout URITemplateOutput
    ) {
        output.append(name)
        if !empty || op.equalsIfEmpty { output.append(0x3D) }
    }

    private func appendList(
        _ items: [String], _ variable: URITemplateParser.Variable, _ op: URITemplateParser.Operator,
        into output: inout URITemplateOutput
    ) {
        if !variable.explode {
            if op.named { output.append(variable.nameBytes); output.append(0x3D) }
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(0x2C) }
                URITemplateEncoding.append(item, allowReserved: op.allowReserved, prefix: 0, to: &output)
            }
            return
        }
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(op.separator) }
            if op.named { appendName(variable.nameBytes, empty: item.isEmpty, op, into: &output) }
            URITemplateEncoding.append(item, allowReserved: op.allowReserved, prefix: 0, to: &output)
        }
    }

    private func appendPairs(
        _ pairs: [Value.Pair], _ variable: URITemplateParser.Variable, _ op: URITemplateParser.Operator,
        into output: inout URITemplateOutput
    ) {
        if !variable.explode {
            if op.named { output.append(variable.nameBytes); output.append(0x3D) }
            for (index, pair) in pairs.enumerated() {
                if index > 0 { output.append(0x2C) }
                URITemplateEncoding.append(pair.key, allowReserved: op.allowReserved, prefix: 0, to: &output)
                output.append(0x2C)
                URITemplateEncoding.append(pair.value, allowReserved: op.allowReserved, prefix: 0, to: &output)
            }
            return
        }
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(op.separator) }
            URITemplateEncoding.append(pair.key, allowReserved: op.allowReserved, prefix: 0, to: &output)
            if !pair.value.isEmpty || !op.named || op.equalsIfEmpty { output.append(0x3D) }
            URITemplateEncoding.append(pair.value, allowReserved: op.allowReserved, prefix: 0, to: &output)
        }
    }
}
