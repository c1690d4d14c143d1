// Fuzz target `curlhead`: the curl transport's head reader (`CurlHeadReader`) fed arbitrary header
// lines, as libcurl's header callback hands them over (the bytes cut after each LF), and checked
// against the native transport's decoder (`ResponseDecoder`) on the same bytes: the two apply one
// set of rules (`ResponseRules`), so a head the native transport accepts, the curl transport
// accepts alike, with the same status and fields.
//
// Input: byte 0 = flags (bit 0: the request was HEAD; bit 1: it asked to upgrade; bit 2: the reader
// holds heads, as during an NTLM handshake; bits 3-4: head limit); the rest is the wire.
import Foundation
@testable import Jewzruxin

private func fail(_ message: String) -> Never {
    fatalError("curlhead fuzz invariant: \(message)")
}

/// The wire cut as libcurl cuts it: after each LF (the last piece may have none).
private func lines(_ wire: [UInt8]) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = 0
    for (index, byte) in wire.enumerated() where byte == 0x0A {
        result.append(wire[start...index])
        start = index + 1
    }
    if start < wire.count { result.append(wire[start...]) }
    return result
}

/// Whether a delivered head keeps the rules: token names, values with no CR, LF or NUL and no
/// whitespace around them, a framing the rules accept.
private func checkDelivered(_ head: CurlHeadReader.Head, isHead: Bool, upgrade: Bool) {
    for (name, value) in head.fields {
        if name.isEmpty || !name.utf8.allSatisfy(HTTPHeaderSyntax.isTokenByte) { fail("delivered a field name that is not a token") }
        if !ResponseRules.isValidValue(value.utf8) { fail("delivered a value with CR, LF or NUL") }
        if let first = value.utf8.first, HTTPHeaderSyntax.isSpace(first) { fail("delivered a value with leading whitespace") }
        if let last = value.utf8.last, HTTPHeaderSyntax.isSpace(last) { fail("delivered a value with trailing whitespace") }
    }
    if !ResponseRules.isValidValue(head.reason.utf8) { fail("delivered a reason with CR, LF or NUL") }
    if (100..<200).contains(head.status), head.status != 101 { fail("delivered an interim head") }
    do {
        _ = try ResponseRules.framing(status: head.status, http10: head.version == "HTTP/1.0", fields: head.fields,
                                      isHeadRequest: isHead, upgradeRequested: upgrade)
    } catch {
        fail("delivered a head whose framing breaks the rules: \(error)")
    }
}

/// The head the native decoder reads from `wire`, or `nil` when it reads none (an error, or too
/// few bytes).
private func nativeHead(_ wire: [UInt8], isHead: Bool, upgrade: Bool, limit: Int) -> ResponseHead? {
    var decoder = ResponseDecoder(isHeadRequest: isHead, upgradeRequested: upgrade, headerLimit: limit)
    var buffer = ReadBuffer()
    buffer.append(wire)
    guard case .head(let head)? = try? decoder.next(&buffer) else { return nil }
    return head
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let flags = input[0]
    let wire = Array(input[1...])
    let isHead = flags & 1 != 0
    let upgrade = flags & 2 != 0
    let holds = flags & 4 != 0
    let limit = [65_536, 64, 200, 1024][Int(flags >> 3) & 3]

    var reader = CurlHeadReader()
    reader.isHeadRequest = isHead
    reader.upgradeRequested = upgrade
    reader.holdsHeads = holds
    reader.limit = limit
    var delivered: [CurlHeadReader.Head] = []
    var failure: ResponseDecodingError?
    var fed = 0
    var sinceHead = 0
    for line in lines(wire) {
        let wasDelivered = reader.isDelivered
        let result = line.withUnsafeBytes { bytes in Result { () throws(ResponseDecodingError) in try reader.read(bytes) } }
        fed += line.count
        sinceHead += line.count
        switch result {
        case .success(let head?):
            if wasDelivered { fail("a head after the final one") }
            if sinceHead > limit { fail("a head of \(sinceHead) bytes past the limit \(limit)") }
            checkDelivered(head, isHead: isHead, upgrade: upgrade)
            if !holds, !reader.isDelivered { fail("a head returned but not final, without holding") }
            if holds, reader.isDelivered { fail("a held head made final before its body") }
            delivered.append(head)
            sinceHead = 0
        case .success(nil):
            if wasDelivered != reader.isDelivered { fail("delivered without returning the head") }
        case .failure(let error):
            if wasDelivered { fail("an error after the final head: lines after it are trailers, ignored") }
            failure = error
        }
        if failure != nil { break }
    }
    if holds {
        if reader.replaced.count != max(0, delivered.count - 1) { fail("\(reader.replaced.count) replaced of \(delivered.count) held") }
        let last = reader.takeHeld()
        if (last == nil) != delivered.isEmpty { fail("takeHeld disagrees with the heads held") }
        if last != nil, !reader.isDelivered { fail("takeHeld did not make the head final") }
        return 0
    }
    // One set of rules: a head the native transport reads, the curl transport reads alike (where
    // libcurl lets the lines through, which a wire the native decoder accepts they are).
    if let native = nativeHead(wire, isHead: isHead, upgrade: upgrade, limit: limit) {
        guard let curl = delivered.first else { fail("native read a head, curl did not: \(String(describing: failure))") }
        if curl.status != native.status { fail("status \(curl.status) on curl, \(native.status) on native") }
        if !curl.fields.elementsEqual(native.fields, by: { $0.name == $1.name && $0.value == $1.value }) {
            fail("fields differ: curl \(curl.fields), native \(native.fields)")
        }
    }
    return 0
}
