// Fuzz target `response`: the native transport's HTTP/1.1 response decoder (`ResponseDecoder`,
// `ReadBuffer`) fed arbitrary bytes, in one piece and in pieces.
//
// Input: byte 0 = flags (bit 0: the request was HEAD; bits 1-2: header limit; bits 3-7: the
// largest piece, 1...32 bytes), byte 1 = seed of the piece sizes; the rest is the wire.
import Foundation
@testable import Jewzruxin

/// What a decoding made of the wire, body pieces merged (their cut depends on the reads).
private struct Outcome: Equatable {
    /// One per response: its head and whole body; `ended` when its end was reported.
    struct Response: Equatable {
        var head: ResponseHead
        var body = Data()
        var ended = false
        var reusable = false
    }
    var responses: [Response] = []
    var error: ResponseDecodingError?
    var bodyBytes = 0
}

private func fail(_ message: String) -> Never {
    fatalError("response fuzz invariant: \(message)")
}

/// Decodes `wire` read in pieces of the sizes `sizes` returns, response after response, then
/// reports the end of the connection.
private func decode(_ wire: [UInt8], isHead: Bool, headerLimit: Int, sizes: (Int) -> Int) -> Outcome {
    var outcome = Outcome()
    var buffer = ReadBuffer()
    var decoder = ResponseDecoder(isHeadRequest: isHead, headerLimit: headerLimit)
    var fed = 0
    var current: Outcome.Response?
    var finishedCurrent = false
    func handle(_ event: ResponseDecoder.Event?) -> Bool {
        guard let event else { return false }
        if finishedCurrent { fail("event after .end") }
        switch event {
        case .head(let head):
            if current != nil { fail("second head in one response") }
            current = Outcome.Response(head: head)
        case .body(let data):
            guard current != nil else { fail("body before head") }
            if data.isEmpty { fail("empty body event") }
            current!.body.append(data)
            outcome.bodyBytes += data.count
            if outcome.bodyBytes > wire.count { fail("more body bytes than input bytes") }
        case .end(let reusable):
            guard current != nil else { fail("end before head") }
            current!.ended = true
            current!.reusable = reusable
            outcome.responses.append(current!)
            current = nil
            finishedCurrent = true
        }
        return true
    }
    do throws(ResponseDecodingError) {
        var rounds = 0
        while true {
            rounds += 1
            if rounds > 4 * wire.count + 64 { fail("no progress") }
            if try handle(decoder.next(&buffer)) { continue }
            if finishedCurrent {
                if !decoder.isFinished { fail("end reported but decoder not finished") }
                if try decoder.next(&buffer) != nil { fail("event after .end") }
                // Keep reading the connection's next response while bytes are left.
                guard !buffer.isEmpty || fed < wire.count else { break }
                decoder = ResponseDecoder(isHeadRequest: isHead, headerLimit: headerLimit)
                finishedCurrent = false
                continue
            }
            guard fed < wire.count else { break }
            let size = min(wire.count - fed, sizes(fed))
            wire[fed..<fed + size].withUnsafeBytes { buffer.append($0) }
            fed += size
        }
        if !finishedCurrent {
            if try handle(decoder.connectionClosed(&buffer)) {
                if !finishedCurrent { fail("connectionClosed reported something else than .end") }
            } else {
                fail("connectionClosed returned nil on an unfinished response")
            }
        }
        if try decoder.connectionClosed(&buffer) != nil { fail("second end at connection close") }
    } catch {
        outcome.error = error
        if let current { outcome.responses.append(current) }
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count >= 2 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let flags = input[0]
    var seed = UInt32(input[1]) &* 2_654_435_761 | 1
    let wire = Array(input[2...])
    let isHead = flags & 1 != 0
    let headerLimit = [65_536, 64, 200, 1024][Int(flags >> 1) & 3]
    let largest = Int(flags >> 3) + 1

    let whole = decode(wire, isHead: isHead, headerLimit: headerLimit) { _ in wire.count }
    let pieces = decode(wire, isHead: isHead, headerLimit: headerLimit) { _ in
        seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5
        return Int(seed % UInt32(largest)) + 1
    }
    let bytes = decode(wire, isHead: isHead, headerLimit: headerLimit) { _ in 1 }
    for other in [pieces, bytes] {
        if other.error != whole.error { fail("error \(String(describing: other.error)) in pieces, \(String(describing: whole.error)) in one piece") }
        if other.responses.count != whole.responses.count { fail("response count differs") }
        for (a, b) in zip(whole.responses, other.responses) {
            if a.head != b.head { fail("heads differ") }
            if a.body != b.body { fail("bodies differ") }
            if a.ended != b.ended { fail("ends differ") }
            // Read in pieces, a response may end before the bytes after it arrive: reusable then,
            // never the other way round.
            if a.reusable && !b.reusable { fail("reusable in one piece only") }
        }
    }
    return 0
}
