// LeakSanitizer false positive: the weak-reference side table of an object that is alive until
// exit is reported as a direct leak (llvm/llvm-project#56751).
//
//   swiftc -sanitize=address weak-side-table.swift -o /tmp/weak-side-table && /tmp/weak-side-table
//
// reports "Direct leak of 32 byte(s)" allocated in swift::RefCounts<…>::formWeakReference() under
// swift_weakInit, although `kept` holds the object: once a weak reference has been formed, the
// object's refcount word holds the side table's address shifted right by 3 with flag bits set,
// which LSan's pointer scan doesn't recognise. With `kept` released before exit (pass `release`),
// nothing is reported: the side table goes with the object.
final class Box { var value = 42 }

nonisolated(unsafe) var kept: Box? = Box()
func formWeakReference() {
    weak let reference = kept
    _ = reference?.value
}
formWeakReference()
if CommandLine.arguments.dropFirst().first == "release" { kept = nil }
