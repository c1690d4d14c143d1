import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal whose secondary side is the child's standard input and output.
final class PseudoTerminal: Sendable {
    let primary: Int32
    let secondary: Int32
    private let output = Mutex(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Whether pseudo-terminals can be opened here.
    static let isAvailable = FileManager.default.fileExists(atPath: "/dev/ptmx")

    init() throws {
        #if canImport(Darwin)
        primary = posix_openpt(O_RDWR | O_NOCTTY)
        guard primary >= 0, grantpt(primary) == 0, unlockpt(primary) == 0, let name = ptsname(primary) else {
            throw POSIXError(.ENXIO)
        }
        let path = String(cString: name)
        #else
        // Glibc's module doesn't export posix_openpt: the Linux ioctls TIOCSPTLCK and TIOCGPTN.
        let descriptor = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard descriptor >= 0,
              withUnsafeMutablePointer(to: &unlock, { ioctl(descriptor, UInt(0x4004_5431), $0) }) == 0,
              withUnsafeMutablePointer(to: &number, { ioctl(descriptor, UInt(0x8004_5430), $0) }) == 0
        else { throw POSIXError(.ENXIO) }
        primary = descriptor
        let path = "/dev/pts/\(number)"
        #endif
        secondary = open(path, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw POSIXError(.ENXIO) }
    }

    /// Starts collecting what the child writes, until it closes the terminal.
    func startReading() {
        let primary = primary
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(primary, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                output.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            finished.signal()
        }
    }

    /// Types keys.
    func type(_ keys: String) {
        _ = keys.utf8CString.withUnsafeBufferPointer { write(primary, $0.baseAddress, $0.count - 1) }
    }

    var text: String { String(decoding: output.withLock { $0 }, as: UTF8.self) }

    /// Waits until the output has `count` occurrences of `fragment`.
    func waitFor(_ fragment: String, count: Int = 1) async throws {
        try await waitUntil { text.components(separatedBy: fragment).count > count }
    }

    /// Waits for the child to close the terminal.
    func waitForEnd() { finished.wait() }

    /// The local modes of the terminal (echo, canonical input…).
    var localModes: tcflag_t {
        var settings = termios()
        tcgetattr(secondary, &settings)
        return settings.c_lflag
    }
}
