import Foundation

extension Process {
    private static let launchLock = NSLock()

    /// Launches the process while no other test launches one.
    ///
    /// Foundation's `Process.run()` on Linux can crash (a bad `memmove` inside `run()`) when
    /// several threads launch processes at once, which the parallel suites do (the playground
    /// executable, `curl`, `openssl`). Only the launch is serialised; the processes run side by side.
    public func runSerially() throws {
        Self.launchLock.lock()
        defer { Self.launchLock.unlock() }
        try run()
    }
}
