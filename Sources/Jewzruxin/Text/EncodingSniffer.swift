import Foundation

/// Guesses the encoding of a body that names none.
///
/// The order is: a byte order mark (UTF-8, UTF-16LE, UTF-16BE); UTF-16 without a BOM when the
/// first bytes show the zero-byte pattern of mostly-ASCII UTF-16 (checked before UTF-8 because
/// such text is also valid UTF-8, full of NULs); valid UTF-8 across the whole body; otherwise
/// windows-1252, which decodes every byte.
enum EncodingSniffer {
    /// How many leading bytes the UTF-16 heuristic looks at.
    static let utf16SniffLength = 512

    /// The encoding a byte order mark at the start of `data` announces.
    ///
    /// - Parameter data: The body.
    /// - Returns: The encoding and the length of the BOM, or `nil` without a BOM.
    static func byteOrderMark(of data: Data) -> (encoding: String.Encoding, length: Int)? {
        var prefix = data.prefix(3).makeIterator()
        let first = prefix.next(), second = prefix.next(), third = prefix.next()
        switch (first, second, third) {
        case (0xEF, 0xBB, 0xBF): return (.utf8, 3)
        case (0xFF, 0xFE, _): return (.utf16LittleEndian, 2)
        case (0xFE, 0xFF, _): return (.utf16BigEndian, 2)
        default: return nil
        }
    }

    /// Sniffs the encoding of a body.
    ///
    /// - Parameter data: The body.
    /// - Returns: The BOM's encoding; UTF-16 by the NUL heuristic; `.utf8` when the body is
    ///   valid UTF-8 (an empty body included); else `.windowsCP1252`.
    static func sniffEncoding(of data: Data) -> String.Encoding {
        if let bom = byteOrderMark(of: data) { return bom.encoding }
        if let utf16 = utf16ByNULPattern(data.prefix(utf16SniffLength)) { return utf16 }
        if isValidUTF8(data) { return .utf8 }
        return .windowsCP1252
    }

    /// UTF-16 recognised by its zero bytes: in mostly-ASCII UTF-16LE every odd byte is 0, in
    /// UTF-16BE every even byte.
    ///
    /// - Parameter prefix: The first bytes of the body.
    /// - Returns: `.utf16LittleEndian`, `.utf16BigEndian` or `nil` when the pattern is not
    ///   clear (at least half the code units with a zero byte on one side, few on the other).
    static func utf16ByNULPattern(_ prefix: Data) -> String.Encoding? {
        let unitCount = prefix.count / 2
        guard unitCount >= 2 else { return nil }
        var evenZeros = 0
        var oddZeros = 0
        for (offset, byte) in prefix.prefix(unitCount * 2).enumerated() where byte == 0 {
            if offset % 2 == 0 { evenZeros += 1 } else { oddZeros += 1 }
        }
        if oddZeros * 2 >= unitCount, evenZeros * 8 <= oddZeros { return .utf16LittleEndian }
        if evenZeros * 2 >= unitCount, oddZeros * 8 <= evenZeros { return .utf16BigEndian }
        return nil
    }

    /// Whether the bytes are well-formed UTF-8 (RFC 3629: no overlongs, surrogates or values
    /// above U+10FFFF).
    ///
    /// - Parameter data: The bytes.
    /// - Returns: `true` when every byte belongs to a well-formed sequence.
    static func isValidUTF8(_ data: Data) -> Bool {
        data.withUnsafeBytes { isValidUTF8($0) }
    }

    /// Whether the bytes are well-formed UTF-8.
    ///
    /// Runs of ASCII are skipped eight bytes at a time: a word's high bits give the offset of its
    /// first non-ASCII byte, where the multi-byte sequence is checked byte by byte. This must accept
    /// exactly what the standard library accepts: ``TextDecoding/decodeUTF8(_:)`` skips the
    /// standard library's own validation for bytes accepted here.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: `true` when every byte belongs to a well-formed sequence.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index < count {
            if index &+ 8 <= count {
                // Little-endian, so that the lowest set bit belongs to the first byte in memory.
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let high = word & highBits
                if high == 0 {
                    index &+= 8
                    continue
                }
                index &+= high.trailingZeroBitCount &>> 3
            } else if base.load(fromByteOffset: index, as: UInt8.self) < 0x80 {
                index &+= 1
                continue
            }
            // `index` is at a byte of 0x80 or more: the lead of a multi-byte sequence, or invalid.
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0xE0 {
                guard lead >= 0xC2, index &+ 1 < count,
                      base.load(fromByteOffset: index &+ 1, as: UInt8.self) & 0xC0 == 0x80
                else { return false }
                index &+= 2
            } else if lead < 0xF0 {
                guard index &+ 2 < count else { return false }
                let second = base.load(fromByteOffset: index &+ 1, as: UInt8.self)
                let third = base.load(fromByteOffset: index &+ 2, as: UInt8.self)
                guard second & 0xC0 == 0x80, third & 0xC0 == 0x80,
                      lead != 0xE0 || second >= 0xA0,  // overlong
                      lead != 0xED || second < 0xA0  // surrogates
                else { return false }
                index &+= 3
            } else {
                guard lead <= 0xF4, index &+ 3 < count else { return false }
                let second = base.load(fromByteOffset: index &+ 1, as: UInt8.self)
                let third = base.load(fromByteOffset: index &+ 2, as: UInt8.self)
                let fourth = base.load(fromByteOffset: index &+ 3, as: UInt8.self)
                guard second & 0xC0 == 0x80, third & 0xC0 == 0x80, fourth & 0xC0 == 0x80,
                      lead != 0xF0 || second >= 0x90,  // overlong
                      lead != 0xF4 || second < 0x90  // above U+10FFFF
                else { return false }
                index &+= 4
            }
        }
        return true
    }
}
