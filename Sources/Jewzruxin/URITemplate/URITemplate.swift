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
    /// The template compiled for expansion.
    private let program: URITemplateProgram

    /// Parses a template.
    ///
    /// - Parameter template: The template text, such as `"/users{/id}{?fields*}"`.
    /// - Throws: ``URITemplateError`` naming the problem and its position when the text is not a valid
    ///   level 4 template.
    public init(_ template: String) throws(URITemplateError) {
        let parts = try URITemplateParser(template).parse()
        let program = URITemplateProgram(parts)
        self.description = template
        self.variableNames = program.names
        self.program = program
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
        let program = program
        // Each variable's value is looked up once, into a slot numbered like `variableNames`.
        let result: Result<String, URITemplateError> = withUnsafeTemporaryAllocation(
            of: [String: any Sendable].Index.self, capacity: program.names.count
        ) { slots in
            withUnsafeTemporaryAllocation(of: Bool.self, capacity: program.names.count) { found in
                found.initialize(repeating: false)
                program.resolve(values, into: slots, found: found)
                defer {
                    for slot in found.indices where found[slot] { slots.deinitializeElement(at: slot) }
                }
                // Expansions usually fit in the stack scratch buffer; the output moves to the heap otherwise.
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
                    var output = URITemplateOutput(scratch: scratch)
                    do throws(URITemplateError) {
                        try expand(program, values, UnsafeBufferPointer(slots), UnsafeBufferPointer(found), into: &output)
                    } catch {
                        return .failure(error)
                    }
                    return .success(output.makeString())
                }
            }
        }
        return try result.get()
    }

    private func expand(
        _ program: URITemplateProgram, _ values: [String: any Sendable],
        _ slots: UnsafeBufferPointer<[String: any Sendable].Index>, _ found: UnsafeBufferPointer<Bool>,
        into output: inout URITemplateOutput
    ) throws(URITemplateError) {
        precondition(slots.count == program.names.count && found.count == program.names.count)
        try program.bytes.withUnsafeBufferPointer { bytes throws(URITemplateError) in
            try program.variables.withUnsafeBufferPointer { variables throws(URITemplateError) in
                for segment in program.segments {
                    output.append(UnsafeBufferPointer(rebasing: bytes[segment.literalStart..<segment.literalEnd]))
                    if segment.variableStart == segment.variableEnd { continue }
                    try expand(
                        segment.op, UnsafeBufferPointer(rebasing: variables[segment.variableStart..<segment.variableEnd]),
                        bytes, values, slots, found, into: &output)
                }
            }
        }
    }

    private func expand(
        _ op: URITemplateParser.Operator, _ variables: UnsafeBufferPointer<URITemplateProgram.Variable>,
        _ bytes: UnsafeBufferPointer<UInt8>, _ values: [String: any Sendable],
        _ slots: UnsafeBufferPointer<[String: any Sendable].Index>,
        _ found: UnsafeBufferPointer<Bool>, into output: inout URITemplateOutput
    ) throws(URITemplateError) {
        var first = true
        for variable in variables where found[variable.slot] {
            try expand(
                values.values[slots[variable.slot]], variable, UnsafeBufferPointer(rebasing: bytes[variable.nameStart..<variable.nameEnd]),
                op, first: &first, into: &output)
        }
    }

    private func expand(
        _ raw: any Sendable, _ variable: URITemplateProgram.Variable, _ name: UnsafeBufferPointer<UInt8>,
        _ op: URITemplateParser.Operator, first: inout Bool, into output: inout URITemplateOutput
    ) throws(URITemplateError) {
        // Fast paths for the commonest types, chosen by exact type so that no cast has to fail;
        // other types (and those that merely cast to these) take the general path below.
        func common<V>(_ value: V) throws(URITemplateError) -> Bool {
            // Each test compares metadata pointers; when the types are identical the bits are the value.
            if V.self == String.self {
                appendScalar(unsafeBitCast(value, to: String.self), variable, name, op, first: &first, into: &output)
                return true
            }
            if V.self == Int.self {
                appendInteger(unsafeBitCast(value, to: Int.self), variable, name, op, first: &first, into: &output)
                return true
            }
            if V.self == [String].self {
                let strings = unsafeBitCast(value, to: [String].self)
                if strings.isEmpty { return true }
                guard variable.prefix == 0 else {
                    throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
                }
                writeSeparator(op, first: &first, into: &output)
                appendList(strings, name, variable.explode, op, into: &output)
                return true
            }
            return false
        }
        if try common(raw) { return }
        if let string = raw as? String {
            appendScalar(string, variable, name, op, first: &first, into: &output)
            return
        }
        if let int = raw as? Int {
            appendInteger(int, variable, name, op, first: &first, into: &output)
            return
        }
        let value: Value
        if let strings = raw as? [String] {
            if strings.isEmpty { return }
            value = .list(strings)
        } else {
            switch Value.converting(raw) {
            case .value(let converted): value = converted
            case .undefined: return
            case .unsupported(let type):
                throw URITemplateError(.unsupportedValue(type: type), at: variable.position, in: description)
            }
        }
        switch value {
        case .string(let string):
            writeSeparator(op, first: &first, into: &output)
            if op.named { appendName(name, empty: string.isEmpty, op, into: &output) }
            URITemplateEncoding.append(string, allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
        case .list(let items):
            guard variable.prefix == 0 else {
                throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
            }
            writeSeparator(op, first: &first, into: &output)
            appendList(items, name, variable.explode, op, into: &output)
        case .pairs(let pairs):
            guard variable.prefix == 0 else {
                throw URITemplateError(.prefixOnCompositeValue, at: variable.position, in: description)
            }
            writeSeparator(op, first: &first, into: &output)
            appendPairs(pairs, name, variable.explode, op, into: &output)
        }
    }

    /// Writes one string value (a defined, non-composite variable).
    @inline(__always)
    private func appendScalar(
        _ string: String, _ variable: URITemplateProgram.Variable, _ name: UnsafeBufferPointer<UInt8>,
        _ op: URITemplateParser.Operator, first: inout Bool, into output: inout URITemplateOutput
    ) {
        writeSeparator(op, first: &first, into: &output)
        if op.named { appendName(name, empty: string.isEmpty, op, into: &output) }
        URITemplateEncoding.append(string, allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
    }

    /// Writes one integer value: its digits directly unless a prefix could cut them.
    @inline(__always)
    private func appendInteger(
        _ int: Int, _ variable: URITemplateProgram.Variable, _ name: UnsafeBufferPointer<UInt8>,
        _ op: URITemplateParser.Operator, first: inout Bool, into output: inout URITemplateOutput
    ) {
        writeSeparator(op, first: &first, into: &output)
        if op.named { appendName(name, empty: false, op, into: &output) }
        if variable.prefix == 0 || variable.prefix >= 20 {
            output.append(decimal: int)
        } else {
            URITemplateEncoding.append(String(int), allowReserved: op.allowReserved, prefix: variable.prefix, to: &output)
        }
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
        _ name: UnsafeBufferPointer<UInt8>, empty: Bool, _ op: URITemplateParser.Operator, into output: inout URITemplateOutput
    ) {
        output.append(name)
        if !empty || op.equalsIfEmpty { output.append(0x3D) }
    }

    private func appendList(
        _ items: [String], _ name: UnsafeBufferPointer<UInt8>, _ explode: Bool, _ op: URITemplateParser.Operator,
        into output: inout URITemplateOutput
    ) {
        if !explode {
            if op.named { output.append(name); output.append(0x3D) }
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(0x2C) }
                URITemplateEncoding.append(item, allowReserved: op.allowReserved, prefix: 0, to: &output)
            }
            return
        }
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(op.separator) }
            if op.named { appendName(name, empty: item.isEmpty, op, into: &output) }
            URITemplateEncoding.append(item, allowReserved: op.allowReserved, prefix: 0, to: &output)
        }
    }

    private func appendPairs(
        _ pairs: [Value.Pair], _ name: UnsafeBufferPointer<UInt8>, _ explode: Bool, _ op: URITemplateParser.Operator,
        into output: inout URITemplateOutput
    ) {
        if !explode {
            if op.named { output.append(name); output.append(0x3D) }
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
