import Foundation
import Jewzruxin

/// Collects what a pipe delivers until its end, for tests that read a child process's output.
///
/// Reads with blocking calls on a thread of its own (Foundation's `readabilityHandler` doesn't
/// always report the end of a pipe on Linux), so the writer never blocks on a full pipe, and calls
/// `onTrigger` once, with the text so far, the first time that text satisfies `trigger`.
public final class PipeCollector: Sendable {
    private let data = Locked(Data())
    private let finished = DispatchSemaphore(value: 0)

    public init(
        _ pipe: Pipe, trigger: (@Sendable (String) -> Bool)? = nil, onTrigger: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var trigger = trigger
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                guard let pending = trigger else {
                    data.withLock { $0.append(chunk) }
                    continue
                }
                let text = data.withLock { data in
                    data.append(chunk)
                    return String(decoding: data, as: UTF8.self)
                }
                if pending(text) {
                    trigger = nil
                    onTrigger(text)
                }
            }
            finished.signal()
        }
    }

    /// What the pipe delivered so far, as text.
    public var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }

    /// Waits for the end of the pipe and returns everything it delivered; blocks the calling thread.
    public func wait() -> Data {
        finished.wait()
        return data.withLock { $0 }
    }
}
