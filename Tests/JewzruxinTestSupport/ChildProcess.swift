import Foundation
import Jewzruxin
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for tests that run a command.
///
/// Foundation's `Process.run()` on Linux crashes now and then (Swift 6.3.1): it reads
/// `/proc/self/fd` with a 256-byte copy of each `dirent`, past the end of glibc's buffer when a
/// record sits at its tail (swift-corelibs-foundation#5472, fixed upstream after that release).
/// Test suites that start many processes hit it about once in ten runs.
public final class ChildProcess: Sendable {
    /// The process identifier.
    public let identifier: pid_t
    private let status = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: The whole environment of the child; this process's when `nil`.
    ///   - directory: The working directory of the child; this process's when `nil`.
    ///   - input, output, error: Descriptors the child gets as 0, 1 and 2; `/dev/null` when `nil`.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, directory: URL? = nil,
        input: Int32? = nil, output: Int32? = nil, error: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in [(input, Int32(0)), (output, 1), (error, 2)] {
            if let descriptor {
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        if let directory {
            guard let addChdir = Self.fileAction("posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else {
                throw ChildProcessError(executable: executable, code: ENOSYS)
            }
            _ = addChdir(&actions, directory.path)
        }
        // Nothing else open here goes to the child (other tests' pipes would stay open in it).
        if let addCloseFrom = Self.fileAction("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) {
            _ = addCloseFrom(&actions, 3)
        }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var identifier: pid_t = 0
        let result = withCStrings([executable] + arguments) { argv in
            withCStrings(variables) { envp in
                posix_spawn(&identifier, executable, &actions, nil, argv, envp)
            }
        }
        guard result == 0 else { throw ChildProcessError(executable: executable, code: result) }
        self.identifier = identifier
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// A glibc file action the Swift module map doesn't show (they need `_GNU_SOURCE`), looked up
    /// at run time; `nil` where the C library has none.
    private static func fileAction<F>(_ name: String, as type: F.Type) -> F? {
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// Sends `signal` to the child (`SIGINT`, `SIGKILL`…) unless it has been waited for already.
    public func send(_ signal: Int32) {
        status.withLock { done in
            if done == nil { _ = kill(identifier, signal) }
        }
    }

    /// Waits for the child to end; blocks the calling thread.
    ///
    /// - Returns: Its exit status, or 128 plus the signal that ended it (as a shell reports it).
    @discardableResult
    public func waitUntilExit() -> Int32 {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        while waitpid(identifier, &raw, 0) < 0 && errno == EINTR {}
        let code = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        return status.withLock { done in
            if done == nil { done = code }
            return done ?? code
        }
    }
}

/// `posix_spawn` refused to start a command.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// The command.
    public let executable: String
    /// The `errno` value `posix_spawn` returned.
    public let code: Int32
    public var description: String { "\(executable) could not be started: errno \(code)" }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
