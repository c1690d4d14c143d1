/// Turns the bytes a terminal in raw mode sends into ``Key`` presses.
///
/// Understands UTF-8 text, the control keys of Emacs-style editing (Ctrl-A, E, B, F, P, N, U, K, W,
/// H, C, D, L) and the escape sequences of arrows, Home, End and Delete in their `CSI` (`ESC [`) and
/// `SS3` (`ESC O`) forms, with modifiers (`ESC [ 1 ; 5 C` is Ctrl-Right). Unknown sequences are
/// dropped whole, so they never insert stray characters.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.feed(Array("a\u{1B}[D".utf8)) // [.character("a"), .left]
/// ```
struct KeyDecoder: Sendable {
    private enum State: Sendable {
        case ground
        case escape
        case csi(String)
        case ss3
        case utf8(expected: Int, bytes: [UInt8])
    }

    private var state = State.ground

    /// Creates a decoder waiting for the first byte.
    init() {}

    /// Decodes bytes; a sequence split across calls is completed by the next call.
    ///
    /// - Parameter bytes: Bytes read from the terminal.
    /// - Returns: The keys they complete, in order.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            if let key = feed(byte) { keys.append(key) }
        }
        return keys
    }

    private mutating func feed(_ byte: UInt8) -> Key? {
        switch state {
        case .ground:
            return ground(byte)
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): state = .csi("")
            case UInt8(ascii: "O"): state = .ss3
            case UInt8(ascii: "b"): return .wordLeft
            case UInt8(ascii: "f"): return .wordRight
            case 0x7F, 0x08: return .deleteWordBefore
            case 0x1B: state = .escape
            default: break
            }
            return nil
        case .csi(let parameters):
            // Parameter and intermediate bytes, then one final byte.
            if (0x20...0x3F).contains(byte) {
                state = .csi(parameters + String(UnicodeScalar(byte)))
                return nil
            }
            state = .ground
            return Self.csiKey(final: byte, parameters: parameters)
        case .ss3:
            state = .ground
            return Self.csiKey(final: byte, parameters: "")
        case .utf8(let expected, var bytes):
            guard byte & 0xC0 == 0x80 else {
                state = .ground
                return ground(byte)
            }
            bytes.append(byte)
            guard bytes.count == expected else {
                state = .utf8(expected: expected, bytes: bytes)
                return nil
            }
            state = .ground
            let text = String(decoding: bytes, as: UTF8.self)
            guard let character = text.first, !text.unicodeScalars.contains("\u{FFFD}") else { return nil }
            return .character(character)
        }
    }

    private mutating func ground(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x1B: state = .escape; return nil
        case 0x01: return .home
        case 0x02: return .left
        case 0x03: return .interrupt
        case 0x04: return .endOfInput
        case 0x05: return .end
        case 0x06: return .right
        case 0x08, 0x7F: return .backspace
        case 0x0A, 0x0D: return .enter
        case 0x0B: return .deleteToEnd
        case 0x0C: return .clearScreen
        case 0x0E: return .down
        case 0x10: return .up
        case 0x15: return .deleteToStart
        case 0x17: return .deleteWordBefore
        case 0x09: return .character(" ")
        case 0x20...0x7E: return .character(Character(UnicodeScalar(byte)))
        case 0xC2...0xDF: state = .utf8(expected: 2, bytes: [byte]); return nil
        case 0xE0...0xEF: state = .utf8(expected: 3, bytes: [byte]); return nil
        case 0xF0...0xF4: state = .utf8(expected: 4, bytes: [byte]); return nil
        default: return nil
        }
    }

    private static func csiKey(final: UInt8, parameters: String) -> Key? {
        let fields = parameters.split(separator: ";", omittingEmptySubsequences: false)
        // xterm modifiers: 1 + (shift 1, alt 2, ctrl 4); alt or ctrl with an arrow moves by word.
        let modifier = fields.count > 1 ? Int(fields[1]) ?? 1 : 1
        let byWord = modifier > 1 && (modifier - 1) & 0b110 != 0
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return byWord ? .wordRight : .right
        case UInt8(ascii: "D"): return byWord ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch fields.first.flatMap({ Int($0) }) {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
