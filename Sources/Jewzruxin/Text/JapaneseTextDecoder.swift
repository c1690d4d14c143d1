import Foundation

/// The WHATWG EUC-JP and ISO-2022-JP decoders.
///
/// CoreFoundation on Linux cannot decode EUC-JP at all, so the byte structure is decoded here
/// (the state machines of the Encoding Standard, errors becoming U+FFFD) and only the character
/// tables are borrowed: ASCII, half-width katakana and JIS X 0208 characters are rewritten as
/// Shift_JIS (Windows-31J) bytes, which CoreFoundation decodes in one go with the table the
/// WHATWG index uses (NEC and IBM extensions included); a JIS X 0212 character goes through
/// CoreFoundation's ISO-2022-JP-1 converter. ISO-2022-JP is decoded the same way rather than
/// by CoreFoundation's converter, which accepts sequences the standard rejects and fails the
/// whole text on one error.
enum JapaneseTextDecoder {
    /// Decodes EUC-JP.
    ///
    /// - Parameter data: The bytes.
    /// - Returns: The text; invalid or unmapped sequences become U+FFFD.
    static func decodeEUCJP(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var output = Output()
        var lead: UInt8 = 0
        var isJIS0212 = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if lead == 0x8E, (0xA1...0xDF).contains(byte) {
                lead = 0
                output.append(halfWidthKatakana: byte &- 0xA1)
            } else if lead == 0x8F, (0xA1...0xFE).contains(byte) {
                isJIS0212 = true
                lead = byte
            } else if lead != 0 {
                let first = lead
                lead = 0
                let wasJIS0212 = isJIS0212
                isJIS0212 = false
                if (0xA1...0xFE).contains(first), (0xA1...0xFE).contains(byte) {
                    if wasJIS0212 {
                        output.appendJIS0212(first &- 0x80, byte &- 0x80)
                    } else {
                        output.appendJIS0208(pointer: Int(first - 0xA1) * 94 + Int(byte - 0xA1))
                    }
                } else {
                    output.appendReplacement()
                    if byte < 0x80 { index -= 1 }  // an ASCII byte is processed again
                }
            } else if byte < 0x80 {
                output.append(ascii: byte)
            } else if byte == 0x8E || byte == 0x8F || (0xA1...0xFE).contains(byte) {
                lead = byte
            } else {
                output.appendReplacement()
            }
        }
        if lead != 0 { output.appendReplacement() }
        return output.finish()
    }

    private enum ISO2022State {
        case ascii, roman, katakana, leadByte, trailByte(UInt8), escapeStart, escape(UInt8)
    }

    /// Decodes ISO-2022-JP.
    ///
    /// - Parameter data: The bytes.
    /// - Returns: The text; invalid or unmapped sequences become U+FFFD.
    static func decodeISO2022JP(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var output = Output()
        var state = ISO2022State.ascii
        var outputState = ISO2022State.ascii
        var outputFlag = false
        var index = 0
        while true {
            let byte: UInt8? = index < bytes.count ? bytes[index] : nil
            switch state {
            case .ascii, .roman, .katakana, .leadByte:
                guard let byte else { return output.finish() }
                index += 1
                if byte == 0x1B {
                    state = .escapeStart
                    continue
                }
                outputFlag = false
                switch state {
                case .ascii where byte <= 0x7F && byte != 0x0E && byte != 0x0F:
                    output.append(ascii: byte)
                case .roman where byte == 0x5C:
                    output.append("\u{A5}")
                case .roman where byte == 0x7E:
                    output.append("\u{203E}")
                case .roman where byte <= 0x7F && byte != 0x0E && byte != 0x0F:
                    output.append(ascii: byte)
                case .katakana where (0x21...0x5F).contains(byte):
                    output.append(halfWidthKatakana: byte - 0x21)
                case .leadByte where (0x21...0x7E).contains(byte):
                    state = .trailByte(byte)
                default:
                    output.appendReplacement()
                }
            case .trailByte(let lead):
                guard let byte else {
                    output.appendReplacement()
                    return output.finish()
                }
                index += 1
                if byte == 0x1B {
                    state = .escapeStart
                    output.appendReplacement()
                    continue
                }
                state = .leadByte
                if (0x21...0x7E).contains(byte) {
                    output.appendJIS0208(pointer: Int(lead - 0x21) * 94 + Int(byte - 0x21))
                } else {
                    output.appendReplacement()
                }
            case .escapeStart:
                if let byte, byte == 0x24 || byte == 0x28 {
                    index += 1
                    state = .escape(byte)
                    continue
                }
                outputFlag = false
                state = outputState
                output.appendReplacement()
            case .escape(let lead):
                var next: ISO2022State?
                switch (lead, byte) {
                case (0x28, 0x42): next = .ascii
                case (0x28, 0x4A): next = .roman
                case (0x28, 0x49): next = .katakana
                case (0x24, 0x40), (0x24, 0x42): next = .leadByte
                default: next = nil
                }
                if let next {
                    index += 1
                    state = next
                    outputState = next
                    if outputFlag { output.appendReplacement() }
                    outputFlag = true
                } else {
                    index -= 1  // the lead byte (and this byte) are processed again
                    outputFlag = false
                    state = outputState
                    output.appendReplacement()
                }
            }
        }
    }

    /// Collects decoded text. ASCII, half-width katakana and JIS X 0208 characters are queued
    /// as Shift_JIS bytes and decoded together (one CoreFoundation call per run, not per
    /// character); anything else flushes the queue first.
    private struct Output {
        private var text = String.UnicodeScalarView()
        private var pendingShiftJIS: [UInt8] = []

        /// Appends an ASCII byte (0x00–0x7F); Shift_JIS and ASCII agree on all of them.
        mutating func append(ascii byte: UInt8) {
            pendingShiftJIS.append(byte)
        }

        mutating func append(_ scalar: Unicode.Scalar) {
            flush()
            text.append(scalar)
        }

        mutating func appendReplacement() {
            append("\u{FFFD}")
        }

        /// Appends U+FF61 + `offset` (`offset` 0...62), the Shift_JIS single byte 0xA1 + offset.
        mutating func append(halfWidthKatakana offset: UInt8) {
            pendingShiftJIS.append(0xA1 + offset)
        }

        /// Queues the JIS X 0208 character at `pointer` (row × 94 + cell, both from 0) as its
        /// Shift_JIS bytes, the pointer arithmetic of the WHATWG Shift_JIS decoder reversed.
        mutating func appendJIS0208(pointer: Int) {
            let leadIndex = pointer / 188
            let trailIndex = pointer % 188
            pendingShiftJIS.append(UInt8(leadIndex + (leadIndex < 0x1F ? 0x81 : 0xC1)))
            pendingShiftJIS.append(UInt8(trailIndex + (trailIndex < 0x3F ? 0x40 : 0x41)))
        }

        /// Appends the JIS X 0212 character with the given 7-bit row and cell bytes.
        mutating func appendJIS0212(_ row: UInt8, _ cell: UInt8) {
            let sequence: [UInt8] = [0x1B, 0x24, 0x28, 0x44, row, cell, 0x1B, 0x28, 0x42]
            let decoded = String(data: Data(sequence), encoding: .coreFoundation(0x0822))?.unicodeScalars
            if let decoded, decoded.count == 1, let scalar = decoded.first {
                append(scalar)
            } else {
                appendReplacement()
            }
        }

        private mutating func flush() {
            guard !pendingShiftJIS.isEmpty else { return }
            let decoded = MultiByteDecoder.decode(Data(pendingShiftJIS), scheme: .shiftJIS, pairsAreAtomic: true)
            text.append(contentsOf: decoded.unicodeScalars)
            pendingShiftJIS.removeAll(keepingCapacity: true)
        }

        mutating func finish() -> String {
            flush()
            return String(text)
        }
    }
}
