import Foundation

/// Serves the requests of one accepted TCP connection on the calling thread.
///
/// The loop reads a request, asks the routes for a response, writes it, and repeats
/// while the connection is persistent (HTTP/1.1 without `Connection: close`, or
/// HTTP/1.0 with `Connection: keep-alive`). Malformed requests are answered with a
/// `400` (or `505`) and the connection closed; I/O failures and stopping the sandbox
/// just close it. The descriptor is always closed before ``serve(fd:core:number:)`` returns.
enum Connection {
    /// How the connection ends.
    private enum Ending {
        /// Half-close and drain, so the last response reaches the client intact.
        case graceful
        /// Close right away (peer gone, or the sandbox is stopping).
        case immediate
        /// Already closed by the response writer.
        case alreadyClosed
    }

    /// Serves connection `number` (what its requests carry as ``SandboxRequest/connection``).
    static func serve(fd: Int32, core: ServerCore, number: Int) {
        let stream = SocketStream(fd: fd, stop: core.stopSignal)
        switch serveRequests(on: stream, core: core, number: number) {
        case .graceful:
            stream.lingeringClose()
        case .immediate:
            Platform.closeDescriptor(fd)
        case .alreadyClosed:
            break
        }
    }

    private static func serveRequests(on stream: SocketStream, core: ServerCore, number: Int) -> Ending {
        while !core.stopSignal.isFired {
            let head: RequestHead
            let body: Data
            do {
                guard let received = try readRequest(from: stream) else { return .immediate }
                (head, body) = received
            } catch {
                return reject(error, on: stream)
            }
            var request = SandboxRequest(
                method: head.method,
                target: head.target,
                version: head.version,
                headers: head.headers,
                body: body
            )
            request.connection = number
            let response = core.respond(to: request)
            do {
                switch try ResponseWriter.write(response, for: head, keepAlive: head.wantsKeepAlive, to: stream) {
                case .keepOpen: continue
                case .close: return .graceful
                case .dropped: return .alreadyClosed
                }
            } catch {
                return .immediate
            }
        }
        return .immediate
    }

    /// Reads one complete request, answering `Expect: 100-continue` before the body.
    ///
    /// - Returns: `nil` when the client closed the connection between requests.
    private static func readRequest(from stream: SocketStream) throws(RequestError) -> (RequestHead, Data)? {
        guard let head = try HTTPParser.readHead(from: stream) else { return nil }
        let framing = try HTTPParser.framing(for: head)
        if framing != .none, !head.isHTTP10,
           HTTPParser.hasToken("100-continue", in: head.headers, name: "Expect") {
            try stream.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let body = try HTTPParser.readBody(framing, from: stream)
        return (head, body)
    }

    /// Answers a rejected request with its error status, then closes.
    private static func reject(_ error: RequestError, on stream: SocketStream) -> Ending {
        guard case let .rejected(status, message) = error else { return .immediate }
        let response = SandboxResponse.error(status, message)
        do {
            _ = try ResponseWriter.write(response, for: nil, keepAlive: false, to: stream)
        } catch {
            return .immediate
        }
        return .graceful
    }
}
