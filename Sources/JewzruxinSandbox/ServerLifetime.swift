import Foundation
import JewzruxinPrimitives

/// How the servers of this module (``Sandbox``, ``ScriptedServer``, ``SOCKSProxy``,
/// ``HTTPConnectProxy``) stop and are scoped: one implementation for them all.
enum ServerLifetime {
    /// Wakes every thread of a server with its stop signal, waits for them, then closes the
    /// listener; once only, however often and from whichever threads it is called (a second call
    /// waits for the first).
    static func stop(_ stopped: Locked<Bool>, signal: StopSignal, threads: ThreadTracker, listener: Int32) {
        stopped.withLock { isStopped in
            guard !isStopped else { return }
            signal.fire()
            threads.waitForAll()
            Platform.closeDescriptor(listener)
            signal.close()
            isStopped = true
        }
    }

    /// Runs `body` with `server`, then stops it on a thread of its own (stopping blocks while the
    /// server's threads finish, which must not hold up the cooperative pool), whatever `body` did.
    ///
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, after the server stopped.
    static func run<Server: Sendable, T>(
        _ server: Server, stop: @escaping @Sendable (Server) -> Void, _ body: (Server) async throws -> T
    ) async throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try await body(server))
        } catch {
            result = .failure(error)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                stop(server)
                continuation.resume()
            }
        }
        return try result.get()
    }
}
