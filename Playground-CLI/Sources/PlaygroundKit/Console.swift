/// How the playground writes: to an ``OutputSink``, in colour or not, redrawing lines or not.
struct Console: Sendable {
    /// A colour (or weight) of text on a terminal.
    enum Color: String, Sendable {
        /// Errors and failed statuses.
        case red = "31"
        /// Successful statuses.
        case green = "32"
        /// Redirections.
        case yellow = "33"
        /// The prompt and the spinner.
        case cyan = "36"
        /// Bold text.
        case bold = "1"
        /// Faint text.
        case dim = "2"
    }

    /// Where the text goes.
    let sink: any OutputSink
    /// Whether text is coloured with ANSI escape codes.
    let colors: Bool
    /// Whether the output is a terminal, so a line can be redrawn in place (progress, spinner).
    let redraws: Bool

    /// Creates a console.
    ///
    /// - Parameters:
    ///   - sink: Where the text goes.
    ///   - colors: Whether to colour text.
    ///   - redraws: Whether lines may be redrawn with `\r`.
    init(sink: any OutputSink, colors: Bool = false, redraws: Bool = false) {
        self.sink = sink
        self.colors = colors
        self.redraws = redraws
    }

    /// Writes a line to standard output.
    func line(_ text: String) {
        sink.write(text + "\n", to: .standardOutput)
    }

    /// Writes text as it is to standard output.
    func raw(_ text: String) {
        sink.write(text, to: .standardOutput)
    }

    /// Writes `error: message` to standard error.
    func error(_ message: String) {
        sink.write(paint("error:", .red) + " " + message + "\n", to: .standardError)
    }

    /// `text` in a colour when colours are on, else as it is.
    func paint(_ text: String, _ color: Color) -> String {
        colors ? "\u{1B}[\(color.rawValue)m" + text + "\u{1B}[0m" : text
    }
}
