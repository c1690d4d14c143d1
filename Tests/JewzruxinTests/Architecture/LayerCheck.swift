import Foundation

/// The dependency rule of `Sources/Jewzruxin`, as ARCHITECTURE.md states it, and a check of it.
///
/// Each source file belongs to the folder it sits in: a leaf (`Support`, `Text`, `URITemplate`), the
/// `Model`, the request bodies (`Body`), the `Engine`, a feature (`Features/<Name>`) or a transport (`Transports/<Name>`). A folder may
/// name what is declared in the folders it is allowed to use, and nothing else of the module: the
/// check collects every type a folder declares (nested ones too) and every member a folder adds to
/// another folder's type, then reports each file that names one it may not use.
///
/// It reads source text, not the compiler's symbol graph: comments and string literals are skipped,
/// and a name declared by two folders is not held against either. That is enough to catch what the
/// rule is for: the engine naming a transport, a transport naming another or a feature, the model
/// naming anything above it.
struct LayerCheck {
    /// A reference a folder may not make.
    struct Violation: Hashable, CustomStringConvertible {
        var file: String
        var line: Int
        var name: String
        var declaredIn: String

        var description: String { "\(file):\(line) names \(name), declared in \(declaredIn)" }
    }

    /// The folder (layer) of a path relative to `Sources/Jewzruxin`, or `nil` for files outside the rule.
    static func layer(of path: String) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 2, parts.last?.hasSuffix(".swift") == true else { return nil }
        switch parts[0] {
        case "Features", "Transports":
            // A file directly in `Transports/` or `Features/` belongs to that folder as a whole.
            return parts.count >= 3 ? parts[0] + "/" + parts[1] : parts[0]
        default:
            return parts[0]
        }
    }

    static let leaves: Set<String> = ["Support", "Text", "URITemplate"]
    /// The folder of what every transport shares.
    static let sharedByTransports = "Transports/Shared"

    /// Whether files of `user` may name what `owner` declares.
    static func may(_ user: String, use owner: String) -> Bool {
        if user == owner || owner == "Support" { return true }
        switch user {
        // What a session is made of unless told otherwise: names every transport and feature.
        case "Defaults": return true
        case "Support": return false
        case "Text", "URITemplate", "Model": return owner == "Text"
        // The request bodies transports read (multipart forms, upload streams): plain values over
        // the model, which the engine and everything above it may name.
        case "Body": return owner == "Model" || leaves.contains(owner)
        case "Engine": return owner == "Body" || owner == "Model" || leaves.contains(owner)
        default:
            if owner == "Engine" || owner == "Body" || owner == "Model" || leaves.contains(owner) { return true }
            // What every transport shares (the cookie jar, the message rules, the settings) is any
            // transport's to use, and uses no transport itself.
            if owner == sharedByTransports { return user.hasPrefix("Transports/") }
            // Features build on one another (a download uses the file writer); a transport knows no
            // feature and no other transport.
            return user.hasPrefix("Features/") && owner.hasPrefix("Features/")
        }
    }

    /// The Swift files of the module: path relative to `Sources/Jewzruxin` → text.
    let files: [String: String]

    init(files: [String: String]) {
        self.files = files
    }

    /// Reads every Swift file under `root` (`Sources/Jewzruxin`).
    init(root: URL) throws {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            files[relative] = try String(contentsOf: url, encoding: .utf8)
        }
        self.files = files
    }

    /// Every reference that breaks the rule, sorted by file and line.
    func violations() -> [Violation] {
        var lines: [String: [String]] = [:]
        for (path, text) in files where Self.layer(of: path) != nil {
            lines[path] = Self.code(text)
        }
        // Type name → the layers that declare it; member name → the layers that add it to a type of
        // another layer; any name → every layer that declares it as anything.
        var types: [String: Set<String>] = [:]
        var foreignMembers: [String: Set<String>] = [:]
        var declared: [String: Set<String>] = [:]
        for (path, code) in lines {
            guard let layer = Self.layer(of: path) else { continue }
            for line in code {
                for name in Self.typeDeclarations(in: line) {
                    types[name, default: []].insert(layer)
                    declared[name, default: []].insert(layer)
                }
                for name in Self.memberDeclarations(in: line) { declared[name, default: []].insert(layer) }
            }
        }
        for (path, code) in lines {
            guard let layer = Self.layer(of: path) else { continue }
            for name in Self.foreignMembers(in: code, layer: layer, typeLayers: types) {
                foreignMembers[name, default: []].insert(layer)
            }
        }
        var found: [Violation] = []
        for (path, code) in lines {
            guard let layer = Self.layer(of: path) else { continue }
            let local = Self.genericParameters(in: code)
            for (index, line) in code.enumerated() {
                for (token, afterDot, qualifier) in Self.references(in: line) where !local.contains(token) {
                    // A type anywhere but as a member of a type not ours (`URLError.Code`); a member
                    // another layer added only where it is used as one.
                    let ownType = !afterDot || qualifier.map { types[$0] != nil } ?? true
                    guard let owners = (ownType ? types[token] : nil) ?? (afterDot ? foreignMembers[token] : nil),
                          !owners.contains(where: { Self.may(layer, use: $0) }),
                          !(declared[token] ?? []).contains(where: { Self.may(layer, use: $0) })
                    else { continue }
                    found.append(Violation(file: path, line: index + 1, name: token, declaredIn: owners.sorted().joined(separator: ", ")))
                }
            }
        }
        return Array(Set(found)).sorted { ($0.file, $0.line, $0.name) < ($1.file, $1.line, $1.name) }
    }

    // MARK: Reading Swift text

    /// The lines of `text` with comments and string literals blanked out (line numbers kept).
    static func code(_ text: String) -> [String] {
        var result: [String] = []
        var inBlockComment = 0
        var inMultilineString = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var out = ""
            let chars = Array(line)
            var i = 0
            var inString = false
            while i < chars.count {
                let c = chars[i]
                let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
                if inBlockComment > 0 {
                    if c == "*", next == "/" { inBlockComment -= 1; i += 2; continue }
                    if c == "/", next == "*" { inBlockComment += 1; i += 2; continue }
                    i += 1
                    continue
                }
                if inMultilineString {
                    if line.dropFirst(i).hasPrefix("\"\"\"") { inMultilineString = false; i += 3; continue }
                    i += 1
                    continue
                }
                if inString {
                    if c == "\\" { i += 2; continue }
                    if c == "\"" { inString = false }
                    i += 1
                    continue
                }
                if c == "/", next == "/" { break }
                if c == "/", next == "*" { inBlockComment += 1; i += 2; continue }
                if line.dropFirst(i).hasPrefix("\"\"\"") { inMultilineString = true; i += 3; continue }
                if c == "\"" { inString = true; out.append(" "); i += 1; continue }
                out.append(c)
                i += 1
            }
            result.append(out)
        }
        return result
    }

    static func identifiers(in line: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for c in line {
            if c == "_" || c.isLetter || c.isNumber {
                current.append(c)
            } else {
                if let first = current.first, !first.isNumber { tokens.append(current) }
                current = ""
            }
        }
        if let first = current.first, !first.isNumber { tokens.append(current) }
        return tokens
    }

    /// The identifiers of `line`, each with whether it follows a `.` (a member reference) and, if so,
    /// the identifier before the dot (its qualifier, as in `URLError.Code`), if any.
    static func references(in line: String) -> [(String, afterDot: Bool, qualifier: String?)] {
        var result: [(String, afterDot: Bool, qualifier: String?)] = []
        var current = ""
        var previous: Character = " "
        var startsAfterDot = false
        var qualifier: String?
        var lastWord: String?
        for c in line + " " {
            if c == "_" || c.isLetter || c.isNumber {
                if current.isEmpty {
                    startsAfterDot = previous == "."
                    qualifier = startsAfterDot ? lastWord : nil
                }
                current.append(c)
            } else {
                if let first = current.first, !first.isNumber, !keywords.contains(current) {
                    result.append((current, startsAfterDot, qualifier))
                }
                if !current.isEmpty { lastWord = c == "." ? current : nil } else if c != "." && !c.isWhitespace { lastWord = nil }
                current = ""
            }
            if !c.isWhitespace { previous = c }
        }
        return result
    }

    /// Words of the language, never a declaration's name here (`default` is both a keyword and a
    /// static member's name).
    static let keywords: Set<String> = [
        "default", "self", "Self", "init", "case", "let", "var", "func", "return", "if", "else", "guard", "switch",
        "for", "in", "while", "where", "try", "throw", "throws", "import", "extension", "static", "public", "private",
    ]

    /// The generic parameters a file declares (`Locked<Value>`): names local to it.
    static func genericParameters(in code: [String]) -> Set<String> {
        var names: Set<String> = []
        for line in code where line.contains("<") {
            let tokens = identifiers(in: line)
            guard tokens.contains(where: { typeKeywords.contains($0) || $0 == "func" || $0 == "init" }) else { continue }
            var depth = 0
            var expectsName = false
            var token = ""
            for c in line {
                if c == "<" { depth += 1; expectsName = true; token = ""; continue }
                if c == ">" { depth = max(0, depth - 1); continue }
                guard depth > 0 else { continue }
                if c == "_" || c.isLetter || c.isNumber {
                    token.append(c)
                } else {
                    if expectsName, !token.isEmpty { names.insert(token); expectsName = false }
                    token = ""
                    if c == "," { expectsName = true }
                }
            }
        }
        return names
    }

    static let typeKeywords: Set<String> = ["class", "struct", "enum", "protocol", "actor", "typealias"]

    /// The names of the types `line` declares.
    static func typeDeclarations(in line: String) -> [String] {
        let tokens = identifiers(in: line)
        var names: [String] = []
        for (index, token) in tokens.enumerated() where typeKeywords.contains(token) && index + 1 < tokens.count {
            // `class func`, `class var`: not a type.
            let name = tokens[index + 1]
            if ["func", "var", "let", "subscript", "init"].contains(name) { continue }
            names.append(name)
        }
        return names
    }

    static let memberKeywords: Set<String> = ["func", "var", "let", "case"]

    /// The names of the members (functions, properties, cases) `line` declares.
    static func memberDeclarations(in line: String) -> [String] {
        let tokens = identifiers(in: line)
        var names: [String] = []
        for (index, token) in tokens.enumerated() where memberKeywords.contains(token) && index + 1 < tokens.count {
            names.append(tokens[index + 1])
        }
        return names
    }

    /// The members `code` declares directly in an `extension` of a type no file of `layer` declares.
    static func foreignMembers(in code: [String], layer: String, typeLayers: [String: Set<String>]) -> [String] {
        var names: [String] = []
        var depth = 0
        var foreignDepth: Int?
        for line in code {
            let tokens = identifiers(in: line)
            if depth == 0, let index = tokens.firstIndex(of: "extension"), index + 1 < tokens.count,
               let owners = typeLayers[tokens[index + 1]], !owners.contains(layer) {
                foreignDepth = 1
            }
            if let foreign = foreignDepth, depth == foreign {
                for (index, token) in tokens.enumerated() where memberKeywords.contains(token) && index + 1 < tokens.count {
                    names.append(tokens[index + 1])
                }
            }
            for c in line {
                if c == "{" { depth += 1 }
                if c == "}" { depth -= 1 }
            }
            if depth == 0 { foreignDepth = nil }
        }
        return names
    }
}
