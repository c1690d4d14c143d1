// LeakSanitizer false positive: a Data that is alive until exit is reported as a direct leak.
//
//   swiftc -sanitize=address data-in-global.swift -o /tmp/data-in-global && /tmp/data-in-global
//
// prints the two words of the Data value, then LSan reports "Direct leak of 65 byte(s)" (the
// __DataStorage object, allocated under Data._Representation) and "Indirect leak of 125 byte(s)"
// (its bytes), although `kept` holds them: the storage pointer is stored with the enum case's tag
// in its spare top bits (e.g. 0x4000_7b86_bf7e_0090), which LSan's pointer scan doesn't
// recognise. With `kept` released before exit (pass `release`), nothing is reported.
import Foundation

nonisolated(unsafe) var kept: Data? = Data(repeating: 7, count: 100)  // past inline capacity
let words = withUnsafeBytes(of: kept) { raw in
    (0..<2).map { String(raw.load(fromByteOffset: $0 * 8, as: UInt64.self), radix: 16) }
}
FileHandle.standardError.write(Data("Data value: \(words)\n".utf8))
if CommandLine.arguments.dropFirst().first == "release" { kept = nil }
