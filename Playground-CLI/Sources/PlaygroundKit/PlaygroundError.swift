/// Why a playground command could not be carried out, as the one line the user reads.
///
/// The playground prints it as `error: <message>` and goes on with the next command; in a script,
/// any such error makes the exit status 1.
struct PlaygroundError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in one line, without the `error:` prefix.
    let message: String

    /// Creates an error.
    ///
    /// - Parameter message: What went wrong, in one line.
    init(_ message: String) {
        self.message = message
    }

    /// The message.
    var description: String { message }

    /// A command was given the wrong arguments: the message shows how to call it.
    ///
    /// - Parameter usage: The command's usage line, such as `header Name: value`.
    /// - Returns: An error reading `usage: <usage>`.
    static func usage(_ usage: String) -> PlaygroundError {
        PlaygroundError("usage: \(usage)")
    }
}
