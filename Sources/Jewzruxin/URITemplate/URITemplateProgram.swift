/// A parsed template laid out for expansion: literals and variable names in one byte array, the
/// expressions and their variables in flat tables, so that expanding copies and retains nothing per part.
struct URITemplateProgram: Sendable {
    /// A literal (possibly empty) followed by an expression (absent when it has no variables).
    struct Segment: Sendable {
        var literalStart: Int
        var literalEnd: Int
        var variableStart: Int
        var variableEnd: Int
        var op: URITemplateParser.Operator
    }

    /// One variable of an expression.
    struct Variable: Sendable {
        /// The index of its name in ``URITemplateProgram/names``.
        var slot: Int
        /// The name's bytes in ``URITemplateProgram/bytes``.
        var nameStart: Int
        var nameEnd: Int
        /// The prefix length, or 0 for none.
        var prefix: Int
        var explode: Bool
        /// The name's offset in the template, for errors found while expanding.
        var position: Int
    }

    /// The distinct variable names, in order of first appearance.
    let names: [String]
    /// Where each name's bytes start in ``bytes``, by slot.
    let nameStarts: [Int]
    /// Each name's ``fingerprint(_:)``, by slot: a key is compared byte by byte only with the names
    /// that share its fingerprint.
    let nameFingerprints: [Int]
    let bytes: [UInt8]
    let segments: [Segment]
    let variables: [Variable]

    /// Dictionaries with at most this many entries are walked once rather than looked up per name.
    private static var walkLimit: Int { 16 }

    init(_ parts: [URITemplateParser.Part]) {
        var names: [String] = []
        var nameStarts: [Int] = []
        var nameEnds: [Int] = []
        var slots: [String: Int] = [:]
        var bytes: [UInt8] = []
        var segments: [Segment] = []
        var variables: [Variable] = []
        var literalStart = 0
        for part in parts {
            switch part {
            case .literal(let literal):
                bytes.append(contentsOf: literal)
            case .expression(let expression):
                let literalEnd = bytes.count
                let variableStart = variables.count
                for variable in expression.variables {
                    let slot: Int
                    if let found = slots[variable.name] {
                        slot = found
                    } else {
                        slot = names.count
                        slots[variable.name] = slot
                        names.append(variable.name)
                        nameStarts.append(bytes.count)
                        bytes.append(contentsOf: variable.nameBytes)
                        nameEnds.append(bytes.count)
                    }
                    variables.append(
                        Variable(
                            slot: slot, nameStart: nameStarts[slot], nameEnd: nameEnds[slot], prefix: variable.prefix,
                            explode: variable.explode, position: variable.position))
                }
                segments.append(
                    Segment(
                        literalStart: literalStart, literalEnd: literalEnd, variableStart: variableStart,
                        variableEnd: variables.count, op: expression.op))
                literalStart = bytes.count
            }
        }
        if literalStart < bytes.count {
            segments.append(
                Segment(
                    literalStart: literalStart, literalEnd: bytes.count, variableStart: variables.count,
                    variableEnd: variables.count, op: .simple))
        }
        self.names = names
        self.nameStarts = nameStarts
        self.nameFingerprints = bytes.withUnsafeBufferPointer { bytes in
            zip(nameStarts, nameEnds).map { Self.fingerprint(UnsafeBufferPointer(rebasing: bytes[$0..<$1])) }
        }
        self.bytes = bytes
        self.segments = segments
        self.variables = variables
    }

    /// Stores the dictionary index of each name's value in its slot and sets its flag in `found`; slots
    /// whose flag stays false are left uninitialized.
    func resolve(
        _ values: [String: any Sendable], into slots: UnsafeMutableBufferPointer<[String: any Sendable].Index>,
        found: UnsafeMutableBufferPointer<Bool>
    ) {
        precondition(slots.count == names.count && found.count == names.count)
        guard let slotBase = slots.baseAddress, !values.isEmpty else { return }
        guard values.count <= Self.walkLimit else {
            for slot in names.indices {
                guard let index = values.index(forKey: names[slot]) else { continue }
                (slotBase + slot).initialize(to: index)
                found[slot] = true
            }
            return
        }
        // Small dictionaries: match each key against the names instead of hashing every name.
        var remaining = names.count
        bytes.withUnsafeBufferPointer { bytes in
            nameStarts.withUnsafeBufferPointer { starts in
                nameFingerprints.withUnsafeBufferPointer { fingerprints in
                    let keys = values.keys
                    var index = keys.startIndex
                    let end = keys.endIndex
                    while index != end {
                        if let slot = Self.slot(of: keys[index], bytes, starts, fingerprints, names), !found[slot] {
                            (slotBase + slot).initialize(to: index)
                            found[slot] = true
                            remaining &-= 1
                            if remaining == 0 { break }
                        }
                        keys.formIndex(after: &index)
                    }
                }
            }
        }
    }

    /// A name's length with its first and last bytes, which tell apart most of the names of a
    /// template; 0 for no bytes (names have at least one).
    @inline(__always)
    private static func fingerprint(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let first = bytes.first, let last = bytes.last else { return 0 }
        return bytes.count << 16 | Int(first) << 8 | Int(last)
    }

    /// The slot of the name equal to `key`, if there is one.
    @inline(__always)
    private static func slot(
        of key: String, _ bytes: UnsafeBufferPointer<UInt8>, _ starts: UnsafeBufferPointer<Int>,
        _ fingerprints: UnsafeBufferPointer<Int>, _ names: [String]
    ) -> Int? {
        // Names are ASCII, and a String equal to an ASCII string is either the same bytes or contains
        // non-ASCII characters (such as U+212A KELVIN SIGN for "K"); only the latter need `==`.
        // `utf8.withContiguousStorageIfAvailable` reads a native string's bytes where they are (the
        // mutating `withUTF8` would copy the key first); only a lazily bridged string has no such
        // storage, and is compared with `==`.
        let match = key.utf8.withContiguousStorageIfAvailable { keyBytes -> Int? in
            let length = keyBytes.count
            let fingerprint = fingerprint(keyBytes)
            for slot in fingerprints.indices where fingerprints[slot] == fingerprint {
                let start = starts[slot]
                precondition(start >= 0 && start &+ length <= bytes.count)
                var index = 0
                while index < length && bytes[start &+ index] == keyBytes[index] { index &+= 1 }
                if index == length { return slot }
            }
            guard keyBytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return names.firstIndex { $0 == key }
        }
        guard let match else { return names.firstIndex { $0 == key } }
        return match
    }
}
