// Fuzz target `form`: application/x-www-form-urlencoded parsing and serialisation.
import Foundation
@testable import Jewzruxin

private func fail(_ message: String) -> Never {
    fatalError("form fuzz invariant: \(message)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(UnsafeRawBufferPointer(start: start, count: count))
    let pairs = FormEncoding.parse(data)
    let ampersands = data.reduce(0) { $0 + ($1 == UInt8(ascii: "&") ? 1 : 0) }
    if pairs.count > ampersands + 1 { fail("more pairs than pieces") }
    // Serialising the pairs and parsing the result gives them back.
    let serialized = FormEncoding.serialize(pairs.map { ($0.name, $0.value) })
    if !serialized.utf8.allSatisfy({ $0 < 0x80 }) { fail("non-ASCII in serialisation") }
    let again = FormEncoding.parse(serialized)
    // Pairs with an empty name and value (`=`) serialise to `=`, which parses back as one.
    if again.count != pairs.count || !zip(again, pairs).allSatisfy({ $0.name == $1.name && $0.value == $1.value }) {
        fail("round trip changed the pairs: \(serialized)")
    }
    // The String entry point agrees with the Data one for valid UTF-8.
    if let text = String(validating: data, as: UTF8.self) {
        let fromString = FormEncoding.parse(text)
        if fromString.count != pairs.count { fail("String and Data parses differ") }
    }
    return 0
}
