import Foundation

/// The `application/x-www-form-urlencoded` format of the WHATWG URL Standard (§5), always UTF-8.
///
/// Serializing keeps ASCII letters, digits and `*-._`, writes a space as `+` and percent-encodes
/// every other byte of the UTF-8 form: the `.form` rule of the library's one encoder,
/// ``URLEncoding`` (whose `.query` rule writes queries, with `%20` for a space). Parsing is
/// lenient, as the standard's parser is: it never fails, a `%` not followed by two hex digits stays
/// as it is, and bytes that aren't UTF-8 decode to U+FFFD.
enum FormEncoding {
    /// The application/x-www-form-urlencoded serializer: `name=value` pairs joined with `&`, in order.
    static func serialize(_ pairs: some Sequence<(String, String)>) -> String {
        URLEncoding.serialize(pairs, .form)
    }

    /// One name or value as the serializer writes it.
    static func encode(_ string: String) -> String {
        URLEncoding.encode(string, .form)
    }

    /// The application/x-www-form-urlencoded parser: the pairs of `data`, in order.
    ///
    /// Splits on `&` (skipping empty pieces), then on the first `=` (a piece without one is a name
    /// with an empty value), turns `+` into a space, percent-decodes and decodes UTF-8.
    static func parse(_ data: Data) -> [(name: String, value: String)] {
        let bytes = [UInt8](data)
        var pairs: [(name: String, value: String)] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((decode(piece[..<equals]), decode(piece[piece.index(after: equals)...])))
            } else {
                pairs.append((decode(piece), ""))
            }
        }
        return pairs
    }

    /// The pairs of a string, parsed from its UTF-8 bytes.
    static func parse(_ string: String) -> [(name: String, value: String)] {
        parse(Data(string.utf8))
    }

    /// A name or value: `+` becomes a space, `%XX` the byte XX, anything else stays; then UTF-8
    /// with U+FFFD for ill-formed sequences.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.endIndex - index >= 3,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
                continue
            }
            output.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
