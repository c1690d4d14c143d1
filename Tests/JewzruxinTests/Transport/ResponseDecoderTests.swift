import Foundation
import Testing
@testable import Jewzruxin

/// Decodes `input` fed in pieces of `piece` bytes (all at once when `nil`), then the end of the
/// connection when `close` is set.
private func decode(
    _ input: String, head: Bool = false, upgrade: Bool = false, piece: Int? = nil, close: Bool = true, limit: Int = 65_536
) -> (events: [ResponseDecoder.Event], error: ResponseDecodingError?, leftover: Int) {
    var decoder = ResponseDecoder(isHeadRequest: head, upgradeRequested: upgrade, headerLimit: limit)
    var buffer = ReadBuffer()
    var events: [ResponseDecoder.Event] = []
    let bytes = Array(input.utf8)
    var offset = 0
    do {
        repeat {
            let end = min(bytes.count, offset + (piece ?? bytes.count))
            buffer.append(bytes[offset..<end])
            offset = end
            while let event = try decoder.next(&buffer) {
                events.append(event)
            }
        } while offset < bytes.count
        if close, let last = try decoder.connectionClosed(&buffer) { events.append(last) }
    } catch {
        return (events, error, buffer.count)
    }
    return (events, nil, buffer.count)
}

/// The body bytes of `events`, joined.
private func body(_ events: [ResponseDecoder.Event]) -> String {
    var data = Data()
    for case .body(let part) in events { data += part }
    return String(decoding: data, as: UTF8.self)
}

/// The fields of `head` as the `HTTPURLResponse` of its ``HTTPResponseHead`` gets them.
private func joinedFields(_ head: ResponseHead) -> [String: String] {
    HTTPResponseHead(url: URL(fileURLWithPath: "/"), statusCode: head.status, reasonPhrase: head.reason, httpVersion: "HTTP/1.1", orderedFields: head.fields)
        .joinedFields
}

private func firstHead(_ events: [ResponseDecoder.Event]) -> ResponseHead? {
    for case .head(let head) in events { return head }
    return nil
}

@Suite("Native transport: response decoding")
struct ResponseDecoderTests {
    @Test("a Content-Length body, whole or a byte at a time", arguments: [nil, 1, 2, 7])
    func contentLength(piece: Int?) throws {
        let result = decode("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello", piece: piece, close: false)
        #expect(result.error == nil)
        let head = try #require(firstHead(result.events))
        #expect(head.status == 200 && head.reason == "OK" && head.minor == 1)
        #expect(head.values("X-A") == ["1", "2"])
        #expect(joinedFields(head)["X-A"] == "1, 2")
        #expect(body(result.events) == "hello")
        #expect(result.events.last == .end(reusable: true))
    }

    @Test("a chunked body with extensions and trailers", arguments: [nil, 1, 3])
    func chunked(piece: Int?) {
        let input = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=x\r\nhello\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: t\r\n\r\n"
        let result = decode(input, piece: piece, close: false)
        #expect(result.error == nil)
        #expect(body(result.events) == "hello, chunked!")
        #expect(result.events.last == .end(reusable: true))
    }

    @Test("no Content-Length and no chunking: the body ends with the connection")
    func untilClose() {
        let result = decode("HTTP/1.1 200 OK\r\n\r\nall of it", piece: 4)
        #expect(result.error == nil)
        #expect(body(result.events) == "all of it")
        #expect(result.events.last == .end(reusable: false))
    }

    @Test("HEAD, 204 and 304 have no body whatever their headers say")
    func bodiless() {
        let headResult = decode("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", head: true, close: false)
        #expect(headResult.events.count == 2 && headResult.events.last == .end(reusable: true))
        for status in [204, 304] {
            let result = decode("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\n", close: false)
            #expect(result.events.last == .end(reusable: true), "\(status)")
            #expect(body(result.events).isEmpty)
        }
    }

    @Test("interim 1xx responses are skipped; the final one is reported")
    func interim() throws {
        let result = decode("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", piece: 5, close: false)
        #expect(try #require(firstHead(result.events)).status == 201)
        #expect(result.events.count == 2)
    }

    @Test("the head bytes counted, for the metrics: interim heads and the final one; no body, no trailer")
    func headBytes() throws {
        let heads = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\n"
        let input = heads + "5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n"
        var decoder = ResponseDecoder(isHeadRequest: false)
        var buffer = ReadBuffer()
        #expect(decoder.headBytes == 0)
        for byte in input.utf8 {
            buffer.append(CollectionOfOne(byte))
            while try decoder.next(&buffer) != nil {}
        }
        #expect(decoder.isFinished)
        #expect(decoder.headBytes == heads.utf8.count)
    }

    @Test("Connection: close and HTTP/1.0 without keep-alive make the connection single-use")
    func connectionReuse() {
        #expect(decode("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", close: false).events.last == .end(reusable: false))
        #expect(decode("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", close: false).events.last == .end(reusable: false))
        #expect(decode("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", close: false).events.last == .end(reusable: true))
    }

    @Test("field names and tokens match in any ASCII case; lists are split and trimmed")
    func caseAndLists() throws {
        let mixed = decode("HTTP/1.1 200 OK\r\ncontent-LENGTH: 2\r\nCONNECTION: Upgrade ,  CLOSE\r\n\r\nok", close: false)
        #expect(body(mixed.events) == "ok")
        #expect(mixed.events.last == .end(reusable: false))
        let chunked = decode("HTTP/1.1 200 OK\r\ntransfer-encoding:  Chunked ,\r\n\r\n2\r\nok\r\n0\r\n\r\n", close: false)
        #expect(body(chunked.events) == "ok" && chunked.events.last == .end(reusable: true))
        // Another transfer coding, before chunked or after it: refused, never handed on as the body
        // (the client sends no TE, RFC 9112 §6.1).
        #expect(decode("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip ,Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n").error == .badTransferEncoding)
        #expect(decode("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw").error == .badTransferEncoding)
        // "keep-alive" is a token of its own, not a substring.
        #expect(decode("HTTP/1.0 200 OK\r\nConnection: no-keep-alive-please\r\nContent-Length: 0\r\n\r\n", close: false).events.last == .end(reusable: false))
        #expect(decode("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", close: false).events.last == .end(reusable: true))
        // Repeated values, in one field or several, are one length; Int64.max is accepted, one more is not.
        #expect(body(decode("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n\r\nok", close: false).events) == "ok")
        let largest = decode("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n", close: false)
        #expect(largest.error == nil && largest.events.count == 1)
        #expect(decode("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n").error == .badContentLength)
        // Values keep inner spaces and lose the optional whitespace around them.
        let head = try #require(firstHead(decode("HTTP/1.1 200 OK\r\nX-A: \t a  b \t\r\nx-a: c\r\nContent-Length: 0\r\n\r\n", close: false).events))
        #expect(head.values("X-a") == ["a  b", "c"])
        #expect(joinedFields(head)["X-A"] == "a  b, c" && joinedFields(head).count == 2)
        #expect(head.hasToken("C", in: "x-A") && !head.hasToken("a", in: "X-A"))
    }

    @Test("names compare equal in any ASCII case only: not across other bytes 0x20 apart, nor Unicode case")
    func asciiCase() {
        let equal = HTTPHeaderSyntax.equalIgnoringASCIICase
        #expect(equal("Content-Length", "cONTENT-lENGTH") && equal("", "") && equal("x-1_~", "X-1_~"))
        // '@' and '`', '[' and '{', '^' and '~' differ by 0x20 but are not letters.
        #expect(!equal("a@", "a`") && !equal("[", "{") && !equal("^", "~") && !equal("\u{0}", " "))
        #expect(!equal("é", "É") && !equal("ab", "abc") && !equal("abc", "abd"))
        // Slices, and bytes that are not a String's.
        let bytes = Array("xHOSTx".utf8)
        #expect(HTTPHeaderSyntax.equalIgnoringASCIICase(bytes[1..<5], "host".utf8))
        #expect(HTTPHeaderSyntax.equalIgnoringASCIICase("Host".utf8.reversed(), "TSOH".utf8))
        #expect(!HTTPHeaderSyntax.equalIgnoringASCIICase(Substring("hostx").utf8.dropLast(), "hosT ".utf8))
    }

    @Test("list items are read in place, trimmed; empty ones only when asked for")
    func listItems() {
        func items(_ value: String, keepingEmpty: Bool = false) -> [String] {
            HTTPHeaderSyntax.listItems(value, keepingEmpty: keepingEmpty).map { String(Substring($0)) }
        }
        #expect(items(" gzip ,\tchunked ") == ["gzip", "chunked"])
        #expect(items("a,, ,b,") == ["a", "b"])
        #expect(items("a,, ,b,", keepingEmpty: true) == ["a", "", "", "b", ""])
        #expect(items("") == [] && items("", keepingEmpty: true) == [""])
        #expect(items("no commas here") == ["no commas here"])
    }

    @Test("bytes after the body: the response stands, the connection is not reused")
    func garbageAfterBody() {
        let result = decode("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE", close: false)
        #expect(body(result.events) == "ok")
        #expect(result.events.last == .end(reusable: false))
    }

    @Test("Content-Length and chunked together: chunked wins, the connection is not reused")
    func bothFramings() {
        let result = decode("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", close: false)
        #expect(body(result.events) == "ok")
        #expect(result.events.last == .end(reusable: false))
    }

    @Test("LF-only line endings are tolerated")
    func bareLineFeeds() {
        let result = decode("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", close: false)
        #expect(result.error == nil && body(result.events) == "ok")
    }

    static let malformed: [(String, String, ResponseDecodingError)] = [
        ("not HTTP", "HELLO 200 OK\r\n\r\n", .badStatusLine),
        ("status of two digits", "HTTP/1.1 20 OK\r\n\r\n", .badStatusLine),
        ("status below 100", "HTTP/1.1 099 X\r\n\r\n", .badStatusLine),
        ("HTTP/2 status line", "HTTP/2.0 200 OK\r\n\r\n", .badStatusLine),
        ("header without a colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", .badHeaderField),
        ("space in a header name", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .badHeaderField),
        ("a folded line before any field", "HTTP/1.1 200 OK\r\n  folded\r\n\r\n", .badHeaderField),
        ("a CR inside a field value", "HTTP/1.1 200 OK\r\nX-Cr: a\rSet-Cookie: b=1\r\n\r\n", .badHeaderField),
        ("a NUL inside a field value", "HTTP/1.1 200 OK\r\nX-Nul: a\u{0}b\r\n\r\n", .badHeaderField),
        ("whitespace before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok", .badHeaderField),
        ("an empty line before the status line", "\r\nHTTP/1.1 200 OK\r\n\r\n", .badStatusLine),
        ("Content-Length with a sign", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok", .badContentLength),
        ("Content-Length: 2, 3", "HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok", .badContentLength),
        ("a transfer coding before chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", .badTransferEncoding),
        ("a transfer coding after chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, x\r\n\r\n0\r\n\r\n", .badTransferEncoding),
        ("chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .badTransferEncoding),
        ("an unknown transfer coding alone", "HTTP/1.1 200 OK\r\nTransfer-Encoding: x\r\n\r\nok", .badTransferEncoding),
        ("an unsolicited 101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .unsolicitedUpgrade),
        ("negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("Content-Length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n", .badContentLength),
        ("Content-Lengths that disagree", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .badContentLength),
        ("Content-Length empty", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", .badContentLength),
        ("Content-Length with an empty item", "HTTP/1.1 200 OK\r\nContent-Length: 2,\r\n\r\nok", .badContentLength),
        ("Content-Length of two numbers", "HTTP/1.1 200 OK\r\nContent-Length: 2 2\r\n\r\nok", .badContentLength),
        ("Content-Length too large", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", .badContentLength),
        ("chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .badChunk),
        ("chunk size empty", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .badChunk),
        ("chunk size overflowing", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", .badChunk),
        ("chunk without its CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n", .badChunk),
        ("body shorter than Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", .bodyTruncated),
        ("chunked body cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", .bodyTruncated),
        ("closed mid-headers", "HTTP/1.1 200 OK\r\nContent-Len", .unexpectedEnd),
        ("closed before anything", "", .unexpectedEnd),
    ]

    @Test("malformed responses give a typed error", arguments: 0..<malformed.count)
    func malformedResponses(index: Int) {
        let (name, input, expected) = Self.malformed[index]
        for piece in [nil, 1] {
            #expect(decode(input, piece: piece).error == expected, "\(name), pieces of \(piece ?? 0)")
        }
    }

    @Test("a header section over the limit fails as soon as the limit is passed, even without an end")
    func headerLimit() {
        let big = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 70_000)
        #expect(decode(big, piece: 4096, close: false).error == .headerTooLarge(limit: 65_536))
        let many = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Many: 1\r\n", count: 7000) + "\r\n"
        #expect(decode(many, close: false).error == .headerTooLarge(limit: 65_536))
        let trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + String(repeating: "T: 1\r\n", count: 12_000) + "\r\n"
        #expect(decode(trailers, close: false).error == .headerTooLarge(limit: 65_536))
    }

    @Test("interim responses count against the head limit: within it they are skipped, past it the response fails")
    func manyInterim() throws {
        let final = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        let within = decode(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 2_000) + final, close: false)
        #expect(try #require(firstHead(within.events)).status == 200)
        for piece in [nil, 7] {
            let endless = decode(String(repeating: "HTTP/1.1 103 Early Hints\r\n\r\n", count: 20_000) + final, piece: piece, close: false)
            #expect(endless.error == .headerTooLarge(limit: 65_536))
            #expect(endless.events.isEmpty)
        }
    }

    @Test("obsolete line folding is unfolded to a space (RFC 9112 §5.2, a user agent)")
    func obsoleteFolding() throws {
        let result = decode("HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\n\tmore\r\nContent-Length: 2\r\n\r\nok", close: false)
        let head = try #require(firstHead(result.events))
        #expect(head.values("X-A") == ["1 folded more"])
        #expect(body(result.events) == "ok")
    }

    @Test("a 101 asked for ends the response, with no body; repeated equal lengths are one length")
    func allowedVariants() throws {
        let switching = decode("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", upgrade: true, close: false)
        #expect(try #require(firstHead(switching.events)).status == 101)
        #expect(switching.events.last == .end(reusable: false))
        let repeated = decode("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok", close: false)
        #expect(repeated.error == nil && body(repeated.events) == "ok")
    }

    @Test("a body in a single read across a large buffer keeps every byte")
    func largeBody() {
        let payload = String(repeating: "0123456789", count: 100_000)
        let result = decode("HTTP/1.1 200 OK\r\nContent-Length: \(payload.utf8.count)\r\n\r\n" + payload, piece: 65_536, close: false)
        #expect(body(result.events) == payload)
    }
}
