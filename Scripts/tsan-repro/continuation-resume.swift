// ThreadSanitizer false positive: a task resumed by a continuation from a thread outside Swift
// concurrency (a dispatch queue here; a transport's thread in the library) is, for TSan, unordered
// with what that thread did before resuming it.
//
//   swiftc -sanitize=thread -O continuation-resume.swift -o /tmp/continuation-resume
//   /tmp/continuation-resume            # reports "data race" on Head.statusCode
//   /tmp/continuation-resume fenced     # nothing: the same, through a lock both sides take
//
// The queue makes a `Head` and resumes the awaiting task with it; the task reads its status. The
// race TSan reports is the read against the initialiser's write, as in the report the stress suite
// kept showing (`HTTPResponse.statusCode` read by an awaiting caller against `HTTPResponseHead.init`
// on a native-transport thread). Swift 6.3.1's concurrency runtime on Linux orders the two (the
// continuation's status is an atomic exchange) but tells TSan nothing when a continuation is
// resumed, although a task awaiting another task's value is followed (Task { }.value reports
// nothing). A mutex released by the resumer after its writes and taken by the task after the await
// is an order TSan sees: the library's awaiting calls pass through one (`Locked.fence()`).
import Dispatch
import Foundation

final class Head: Sendable {
    let statusCode: Int
    init(_ statusCode: Int) { self.statusCode = statusCode }
}

final class Fence: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    deinit { pthread_mutex_destroy(mutex); mutex.deallocate() }
    func pass() {
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
    }
}

let queue = DispatchQueue(label: "transport")
let fenced = CommandLine.arguments.dropFirst().first == "fenced"
var sum = 0
for i in 0..<300 {
    let fence = Fence()
    let head: Head = await withCheckedContinuation { continuation in
        queue.async {
            let head = Head(i)
            if fenced { fence.pass() }
            continuation.resume(returning: head)
        }
    }
    if fenced { fence.pass() }
    sum += head.statusCode
}
print(fenced ? "fenced" : "unfenced", sum)
