// Fuzz target `uritemplate`: RFC 6570 template parsing and expansion.
//
// Input: the template, then after a NUL byte the variables, NUL-separated, each
// `name=value`; the value's first character picks its type: `s` string, `l` list (comma
// separated), `p` pairs (`k:v` comma separated), `i` integer, `d` double, `b` Bool, `-` nil.
import Foundation
@testable import Jewzruxin

private func fail(_ message: String) -> Never {
    fatalError("uritemplate fuzz invariant: \(message)")
}

private func value(_ text: Substring) -> any Sendable {
    let kind = text.first ?? "s"
    let rest = text.dropFirst()
    switch kind {
    case "l": return rest.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    case "p":
        return URITemplate.Value.pairs(rest.split(separator: ",").map { pair in
            let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return URITemplate.Value.Pair(String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
    case "i": return Int(rest) ?? rest.count
    case "d": return Double(rest) ?? -0.5
    case "b": return rest.isEmpty
    case "-": return String?.none
    case "c": return Character(rest.first.map(String.init) ?? "x")
    case "m": return Dictionary(rest.split(separator: ",").map { (String($0), String($0.reversed())) }, uniquingKeysWith: { a, _ in a })
    default: return String(rest)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let text = String(decoding: parts[0], as: UTF8.self)
    var values: [String: any Sendable] = ["var": "value", "list": ["red", "green"], "keys": ["semi": ";", "dot": "."]]
    if parts.count > 1 {
        for item in String(decoding: parts[1], as: UTF8.self).split(separator: "\0") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(pair[0])] = value(pair.count > 1 ? pair[1] : "")
        }
    }
    let template: URITemplate
    do {
        template = try URITemplate(text)
    } catch {
        _ = error.description
        return 0
    }
    // The text of a template parses again to an equal template with the same variables.
    guard let again = try? URITemplate(template.description), again == template,
          again.variableNames == template.variableNames else { fail("template does not reparse") }
    if Set(template.variableNames).count != template.variableNames.count { fail("duplicate variable names") }
    do {
        let expanded = try template.expand(values)
        // Everything outside ASCII is percent-encoded.
        if !expanded.utf8.allSatisfy({ $0 < 0x80 }) { fail("non-ASCII in expansion: \(expanded)") }
        // Expansion is deterministic.
        guard (try? template.expand(values)) == expanded else { fail("expansion differs on a second run") }
    } catch {
        _ = error.description
    }
    // Without values, every expression expands to nothing.
    do {
        _ = try template.expand([:])
    } catch {
        fail("expansion without values threw \(error)")
    }
    return 0
}
