import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The controlling terminal: whether the standard streams are one, its width, and raw mode.
///
/// Raw mode (no echo, no line buffering, no signals from Ctrl-C or Ctrl-Z) is on only while a line
/// is being edited; the settings from before are put back when the line is submitted, at exit, and
/// when SIGTERM, SIGHUP or SIGQUIT arrives (see ``restoreOnTermination()``), so the shell is never
/// left in raw mode.
enum Terminal {
    /// The settings raw mode replaced, while it is on.
    private static let saved = Mutex<termios?>(nil)
    /// The dispatch sources that restore the terminal on termination signals.
    private static let signalSources = Mutex<[any DispatchSourceSignal]>([])

    /// Whether a file descriptor is a terminal.
    ///
    /// - Parameter descriptor: `0` for standard input, `1` for output, `2` for error.
    /// - Returns: The answer of `isatty`.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The width of the terminal on standard output, 80 when it is unknown.
    static var columns: Int {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard status == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Puts standard input in raw mode, keeping output processing (so `\n` still starts a line).
    ///
    /// - Returns: Whether raw mode is on.
    @discardableResult
    static func enableRawMode() -> Bool {
        saved.withLock { saved in
            if saved != nil { return true }
            var original = termios()
            guard tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
            var raw = original
            raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            raw.c_cflag |= tcflag_t(CS8)
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            // TCSANOW, not TCSAFLUSH: keys typed ahead while a command ran are kept.
            guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }
            saved = original
            return true
        }
    }

    /// Puts back the settings raw mode replaced; does nothing when raw mode is off.
    static func restore() {
        saved.withLock { saved in
            guard var original = saved else { return }
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &original)
            saved = nil
        }
    }

    /// Makes sure the terminal is restored however the process ends: at `exit`, and on SIGTERM,
    /// SIGHUP and SIGQUIT (which then end the process with status 128 + the signal number).
    static func restoreOnTermination() {
        atexit { Terminal.restore() }
        signalSources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGTERM, SIGHUP, SIGQUIT] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    Terminal.restore()
                    exit(128 + number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
