// LeakSanitizer false positive: an object held only as the payload of a multi-payload enum whose
// cases all hold class references is reported as a direct leak, although a global holds it.
//
//   swiftc -sanitize=address enum-spare-bits.swift -o /tmp/enum-spare-bits && /tmp/enum-spare-bits
//
// reports "Direct leak of 24 byte(s)" for the `Second` object: Swift packs the enum's case into the
// spare high bits of the pointer, so the word stored for `.second(object)` is not the object's
// address, and LSan's pointer scan doesn't recognise it. The `.first` case stores the bare pointer
// and isn't reported; with the global released before exit (pass `release`), nothing is.
final class First { var value = 1 }
final class Second { var value = 2 }

enum Either {
    case first(First)
    case second(Second)
}

nonisolated(unsafe) var kept: [Either]? = [.first(First()), .second(Second())]
if CommandLine.arguments.dropFirst().first == "release" { kept = nil }
