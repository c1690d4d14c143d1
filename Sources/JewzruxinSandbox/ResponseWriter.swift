import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the connection should do after a response was written.
enum ResponseOutcome: Equatable {
    /// Serve the next request on the same connection.
    case keepOpen
    /// Close the connection gracefully.
    case close
    /// The socket was already shut down and closed (``SandboxResponse/dropAfter``).
    case dropped
}

/// Serializes a ``SandboxResponse`` onto a ``SocketStream``, honouring its delivery modes.
enum ResponseWriter {
    /// The largest piece requested from a body producer and sent in one `send()`.
    static let pieceSize = 64 << 10

    /// Header names the writer computes itself; handler-supplied copies are dropped.
    private static let framingHeaders = ["Content-Length", "Transfer-Encoding", "Connection"]

    /// Writes `response` as the answer to `head` (`nil` when the request could not be parsed).
    ///
    /// - Parameter keepAlive: whether the request allows the connection to persist.
    static func write(
        _ response: SandboxResponse, for head: RequestHead?, keepAlive: Bool, to stream: SocketStream
    ) throws(RequestError) -> ResponseOutcome {
        if response.delay > 0 { try stream.pause(response.delay) }
        if let fault = response.wireFault {
            try play(fault, on: stream)
            return .dropped
        }

        let status = response.status
        let isHead = head?.method == "HEAD"
        let bodyAllowed = SandboxResponse.statusAllowsBody(status)
        let sendsBody = bodyAllowed && !isHead
        var chunkSize: Int?
        if case let .chunked(size) = response.transferEncoding, bodyAllowed {
            chunkSize = max(1, size)
        }
        // HTTP/1.0 has no chunked coding: delimit the body by closing the connection.
        let delimitedByClose = chunkSize != nil && (head?.isHTTP10 ?? false)
        if delimitedByClose { chunkSize = nil }
        let announcesClose = !keepAlive || response.closesConnection || delimitedByClose
        let closeAfter = announcesClose || (100...199).contains(status)

        var headers = response.headers
        framingHeaders.forEach { headers.remove($0) }
        if bodyAllowed {
            if chunkSize != nil {
                headers.add("Transfer-Encoding", "chunked")
            } else if !delimitedByClose {
                headers.add("Content-Length", String(response.body.count))
            }
        }
        if announcesClose {
            headers.add("Connection", "close")
        } else if head?.isHTTP10 ?? false {
            headers.add("Connection", "keep-alive")
        }

        var output = serializeHead(status: status, reason: response.reason, headers: headers)
        guard sendsBody else {
            try stream.write(output)
            return closeAfter ? .close : .keepOpen
        }

        let limit = min(response.body.count, max(0, response.dropAfter ?? .max))
        let drip = response.dripInterval.map { max(0, $0) }
        let step = drip != nil ? 1 : min(chunkSize ?? pieceSize, pieceSize)
        var offset: Int64 = 0
        if drip != nil {
            try stream.write(output)
            output.removeAll()
        }
        while offset < limit {
            if let drip {
                guard stream.stop.sleep(drip) else { throw .stopped }
            }
            let length = Int(min(Int64(step), limit - offset))
            let piece = response.body.bytes(at: offset, length: length)
            guard piece.count == length else { throw .disconnected }
            if chunkSize != nil {
                output.append(contentsOf: Array(String(length, radix: 16).utf8) + [0x0D, 0x0A])
                output.append(piece)
                output.append(contentsOf: [0x0D, 0x0A])
            } else {
                output.append(piece)
            }
            offset += Int64(length)
            if drip != nil || output.count >= pieceSize {
                try stream.write(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        if response.dropAfter != nil {
            try stream.write(output)
            stream.abruptClose()
            return .dropped
        }
        if chunkSize != nil {
            output.append(contentsOf: Array("0\r\n\r\n".utf8))
        }
        try stream.write(output)
        return closeAfter ? .close : .keepOpen
    }

    /// Plays a connection-level fault and closes the connection. When it throws, the
    /// connection is still open (the caller closes it).
    private static func play(_ fault: SandboxResponse.WireFault, on stream: SocketStream) throws(RequestError) {
        switch fault {
        case let .raw(bytes, reset):
            try stream.write(bytes)
            if reset {
                ScriptedServerCore.reset(stream.fd)
            } else {
                stream.abruptClose()
            }
        case let .stall(seconds):
            // Ends early when the client closes (readable at EOF) or sends anything more.
            guard stream.stop.wait(for: stream.fd, events: Int16(POLLIN), timeout: seconds) != .stopped else {
                throw .stopped
            }
            stream.abruptClose()
        }
    }

    /// The status line and header section, with CR/LF/NUL in names or values neutralised
    /// so that no handler can split the response.
    static func serializeHead(status: Int, reason: String?, headers: SandboxHeaders) -> Data {
        var text = "HTTP/1.1 \(status) \(sanitize(reason ?? SandboxResponse.reasonPhrase(for: status)))\r\n"
        for field in headers where !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPHeaderSyntax.isTokenByte) {
            text += "\(field.name): \(sanitize(field.value))\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    private static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0 == "\r" || $0 == "\n" || $0 == "\0" ? " " : $0
        }))
    }
}
