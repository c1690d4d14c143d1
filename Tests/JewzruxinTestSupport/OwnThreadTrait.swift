import Foundation
import Testing

/// Runs each test case on threads of its own rather than on the cooperative pool, for tests that
/// block the thread they run on: synchronous socket reads and writes, a server's `stop()` that waits
/// for its threads, a semaphore.
///
/// Swift Testing runs every test, synchronous ones too, on the cooperative pool, which has a thread
/// per core (two on CI) and never adds one for a thread that blocks: two such tests blocked at once
/// stall every other test of the process, their awaited events and timers with them. A test marked
/// `.onItsOwnThread` runs with a task executor that gives each of its jobs a new thread:
///
/// ```swift
/// @Suite("Streaming endpoints", .onItsOwnThread)
/// ```
public struct OwnThreadTrait: TestCaseScoping {
    public func scope(_ testCase: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await testCase() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// The test blocks the thread it runs on: it runs off the cooperative pool.
    public static var onItsOwnThread: Self { OwnThreadTrait() }
}

/// A task executor that runs each job on a new thread.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    /// The key its threads carry in their `threadDictionary`.
    static let marker = "JewzruxinTestSupport.onItsOwnThread"

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread {
            Thread.current.threadDictionary[Self.marker] = true
            job.runSynchronously(on: executor)
        }
    }
}

/// Whether the calling code runs on a thread of ``Trait/onItsOwnThread``.
public var isOnItsOwnThread: Bool { Thread.current.threadDictionary[ThreadPerJobExecutor.marker] != nil }
