import Synchronization
import Testing

/// Runs the tests that hold or need the process's main queue one at a time, whichever suite or
/// test target they are in.
///
/// The main queue is the process's, shared by every test running beside it: a test that holds it
/// (``MainQueueBlocker``) stalls every handler, `@MainActor` body and main-queue session of the
/// others for as long as it holds it, and such a test must not wait for one of theirs. Mark each
/// test (or suite) that blocks the main queue, runs on the main actor, or waits for a handler on the
/// main queue (the delegate queue of a session made without one, `HTTPSession.default`, `.main`):
///
/// ```swift
/// @Suite("Async calls and their context", .onEveryTransport, .usesMainQueue)
/// ```
///
/// The other tests still run in parallel with them; they must not touch the main queue.
public struct MainQueueTrait: TestCaseScoping {
    public func scope(_ testCase: @Sendable () async throws -> Void) async throws {
        await MainQueueTurn.shared.begin()
        defer { MainQueueTurn.shared.end() }
        try await testCase()
    }
}

extension Trait where Self == MainQueueTrait {
    /// The test holds or needs the process's main queue: it runs alone among such tests.
    public static var usesMainQueue: Self { MainQueueTrait() }
}

/// One turn at a time, in the order asked for, across the whole test process.
final class MainQueueTurn: Sendable {
    static let shared = MainQueueTurn()

    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Waits for the turn.
    func begin() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends the turn: the next waiting test has it.
    func end() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
