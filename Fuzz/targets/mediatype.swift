// Fuzz target `mediatype`: Content-Type parsing (WHATWG MIME type rules), charset label
// lookup, and the decoding of response text with the encoding they give.
//
// Input: the Content-Type value, then after a newline the body. The first byte of the body
// also picks an encoding to decode it with directly.
import Foundation
@testable import Jewzruxin

private func fail(_ message: String) -> Never {
    fatalError("mediatype fuzz invariant: \(message)")
}

private let encodings: [String.Encoding] = [
    .utf8, .utf16, .utf16BigEndian, .utf16LittleEndian, .isoLatin1, .isoLatin2, .windowsCP1250,
    .windowsCP1251, .windowsCP1252, .windowsCP1253, .windowsCP1254, .ascii, .shiftJIS, .japaneseEUC,
    .iso2022JP, .macOSRoman, .utf32, .utf32BigEndian, .utf32LittleEndian, .nonLossyASCII,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let newline = bytes.firstIndex(of: 0x0A) ?? count
    let header = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = Data(bytes[min(count, newline + 1)...])

    if let mediaType = MediaType(header) {
        // Serialising and parsing again gives the same type (WHATWG MIME Sniffing §4.5).
        guard let again = MediaType(mediaType.description) else { fail("serialisation does not parse: \(mediaType.description)") }
        if again != mediaType { fail("serialisation reparses differently: \(mediaType.description)") }
        if mediaType.type.isEmpty || mediaType.subtype.isEmpty { fail("empty type or subtype") }
    }
    let contentType = MediaType(contentTypeHeader: header)
    if let charset = contentType?.charset {
        _ = String.Encoding(charsetLabel: charset)
    }
    _ = String.Encoding(charsetLabel: header)

    let encoding = ResponseTextEncoding.encoding(contentType: header, body: body)
    let text = ResponseTextEncoding.decode(body, encoding: encoding)
    if text == nil, TextDecoding.decodesLeniently(encoding) {
        fail("lenient encoding \(encoding) gave nil")
    }
    // The same body at an offset (a slice of larger Data) decodes the same.
    let padded = Data([0x41]) + body
    let slice = padded.dropFirst()
    if ResponseTextEncoding.decode(slice, encoding: encoding) != text { fail("a Data slice decodes differently") }

    let direct = encodings[Int(body.first ?? 0) % encodings.count]
    let decoded = TextDecoding.decode(body, encoding: direct)
    if decoded == nil, TextDecoding.decodesLeniently(direct) { fail("lenient encoding \(direct) gave nil") }
    _ = EncodingSniffer.sniffEncoding(of: body)
    if EncodingSniffer.isValidUTF8(body) != (String(validating: body, as: UTF8.self) != nil) {
        fail("isValidUTF8 disagrees with the standard library")
    }
    // UTF-8 text is made without the standard library's own check once isValidUTF8 accepted it.
    if !TextDecoding.decodeUTF8(body).utf8.elementsEqual(String(decoding: body, as: UTF8.self).utf8) {
        fail("decodeUTF8 differs from String(decoding:as:)")
    }
    return 0
}
