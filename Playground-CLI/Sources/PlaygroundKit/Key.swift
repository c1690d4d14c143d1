/// A key press at the prompt, as the line editor understands it.
enum Key: Sendable, Hashable {
    /// A printable character, to insert.
    case character(Character)
    /// Return or Enter: submit the line.
    case enter
    /// Backspace (DEL or Ctrl-H): delete the character before the cursor.
    case backspace
    /// Delete: the character under the cursor.
    case delete
    /// Left arrow or Ctrl-B.
    case left
    /// Right arrow or Ctrl-F.
    case right
    /// Up arrow or Ctrl-P: the previous history line.
    case up
    /// Down arrow or Ctrl-N: the next history line.
    case down
    /// Home or Ctrl-A.
    case home
    /// End or Ctrl-E.
    case end
    /// Alt-B or Ctrl-Left: one word left.
    case wordLeft
    /// Alt-F or Ctrl-Right: one word right.
    case wordRight
    /// Ctrl-U: delete from the start of the line to the cursor.
    case deleteToStart
    /// Ctrl-K: delete from the cursor to the end of the line.
    case deleteToEnd
    /// Ctrl-W or Alt-Backspace: delete the word before the cursor.
    case deleteWordBefore
    /// Ctrl-C.
    case interrupt
    /// Ctrl-D: end of input on an empty line, else delete.
    case endOfInput
    /// Ctrl-L: clear the screen.
    case clearScreen
}
