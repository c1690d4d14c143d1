import Foundation
import JewzruxinPrimitives
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A keep-alive connection: the socket, the bytes read ahead, and the buffer reads land in.
final class NativeConnection {
    let socket: NativeSocket
    /// Its two ends, read once, for the metrics of each request it carries.
    let endpoints: NativeSocket.Endpoints
    var buffer = ReadBuffer()
    /// Whether it carried a response already (so a failure before any byte may be a stale
    /// connection the server closed meanwhile).
    var hasServed = false
    /// Where `recv` writes, allocated once per connection (not per response: zeroing 64 KiB per
    /// request was a sixth of the transport's instructions).
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    init(socket: NativeSocket) {
        self.socket = socket
        endpoints = socket.endpoints()
    }

    deinit {
        scratch.deallocate()
    }

    func close() {
        socket.close()
    }
}

/// One transfer on a ``NativeTransport``: its request, how it is going (its ``StateMachine``), and
/// the exchange of bytes a worker runs for it.
final class NativeExchange: HTTPTransfer {
    let request: HTTPRequest
    let upload: HTTPCycle.UploadSource?
    let events: HTTPTransferEvents
    let settings: NativeTransport.Settings
    let origin: Origin
    private weak let pool: HostPool?
    private let state = Locked(StateMachine<Waker>())

    /// The request as the submitting thread sent it on the connection of the idle worker it was handed
    /// to (``handOff(to:socket:)``); the pool gives it to the worker with the transfer.
    ///
    /// Small on purpose (one array and plain values): the pool moves it from the submitting thread to
    /// the worker, per request. Not the encoded head, which a resend on a new connection encodes again.
    struct EarlySend: Sendable {
        /// Head and body, as one message.
        fileprivate let message: [UInt8]
        /// The size of the body in `message`, reported as sent once all of it is.
        fileprivate let bodyCount: Int
        /// How much of `message` went out, or why none could.
        fileprivate let outcome: Result<Int, SocketFailure>
        /// When the response must have begun: the timeout, counted from the send.
        let answerDeadline: MonotonicTime
        /// When the send began: the start of the attempt, and of its request.
        let sentAt: MonotonicTime
    }

    init(request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents, settings: NativeTransport.Settings, pool: HostPool) {
        self.request = request
        self.upload = upload
        self.events = events
        self.settings = settings
        origin = pool.origin
        self.pool = pool
    }

    /// Gives the transfer to its pool, the first time.
    func resume() {
        switch state.withLock({ $0.resume() }) {
        case .submit:
            // A transport that is gone has shut its pools down, which refuses transfers: the same.
            guard let pool else { return finishUnstarted(error: URLError(.cancelled)) }
            pool.submit(self)
        case .none:
            break
        }
    }

    /// Ends the transfer with `URLError(.cancelled)`, from any thread, whatever it is doing (see
    /// ``StateMachine/CancelAction``).
    func cancel() {
        switch state.withLock({ $0.cancel() }) {
        case .none:
            break
        case .report:
            Self.report(URLError(.cancelled), to: events)
        case .withdraw(let doorbell):
            doorbell?.wake()
            if pool?.withdraw(self) ?? true { finishUnstarted(error: URLError(.cancelled)) }
        case .interrupt(let waker):
            waker.wake()
        }
    }

    /// Reports the end of a transfer no worker ran; off the caller's thread, which may hold the
    /// cycle's lock.
    func finishUnstarted(error: any Error) {
        guard state.withLock({ $0.finishUnstarted() }) else { return }
        Self.report(error, to: events)
    }

    private static func report(_ error: any Error, to events: HTTPTransferEvents) {
        reportQueue.async { events.didComplete(error: error) }
    }

    private static let reportQueue = DispatchQueue(label: "Jewzruxin.NativeTransport.report")

    /// The pool handed the transfer to the idle worker whose doorbell is `doorbell`, with the
    /// `socket` of its connection if it has one: notes the doorbell for a cancel to ring, and sends the
    /// request on `socket` from the submitting thread when it is small (no upload, no chunking, a body
    /// of 64 KiB at most) and the connection looks usable. The worker then goes straight to reading
    /// the response.
    ///
    /// - Returns: What was sent, or `nil` when nothing was (the worker sends it).
    func handOff(to doorbell: Waker, socket: NativeSocket?) -> EarlySend? {
        guard state.withLock({ $0.handedOff(to: doorbell) }), let socket,
              // A large body goes from the worker, which encodes the head itself: don't encode it here first.
              upload == nil, (inlineBody?.count ?? 0) <= Self.singleWriteBodyLimit,
              let head = try? encodeHead(), head.framing != .chunked
        else { return nil }
        var message = head.bytes
        var bodyCount = 0
        if case .data(let data) = head.body {
            message.append(contentsOf: data)
            bodyCount = data.count
        }
        // As the worker would: a connection the server closed, or that has stray bytes, is replaced.
        guard socket.isReusable else { return nil }
        let now = MonotonicTime.now
        let answerDeadline = now.adding(seconds: settings.timeout(for: request))
        let outcome = message.withUnsafeBytes { bytes in Result { () throws(SocketFailure) in try socket.sendWithoutWaiting(bytes) } }
        return EarlySend(message: message, bodyCount: bodyCount, outcome: outcome, answerDeadline: answerDeadline, sentAt: now)
    }

    // MARK: Running, on a worker's thread

    /// Runs the exchange on `connection` (reused when set, replaced when it breaks), after what the
    /// submitting thread sent of it (`early`), calls `available` with the connection left once the
    /// worker may take another transfer, then reports the attempt's metrics and the end.
    func run(on connection: inout NativeConnection?, early: EarlySend?, waker: Waker, available: (NativeConnection?) -> Void) {
        let start = state.withLock { $0.start(with: waker) }
        guard start == .run else {
            if early != nil {
                // Its request went out: the answer would arrive where the next transfer's should.
                connection?.close()
                connection = nil
            }
            available(connection)
            if start == .finishCancelled { events.didComplete(error: URLError(.cancelled)) }
            return
        }
        var outcome: (any Error)?
        var measured = AttemptMeasurements(start: early?.sentAt ?? .now)
        do {
            try exchange(on: &connection, early: early, waker: waker, measured: &measured)
        } catch {
            connection?.close()
            connection = nil
            outcome = error
        }
        let end = MonotonicTime.now
        if state.withLock({ $0.finishRunning() }) {
            // A cancel saw the transfer running, and wakes the waker after its lock: wait for that
            // wake-up (it may be here already) and clear it, so it can't stop the next transfer.
            _ = waker.wait(for: -1, events: 0, until: nil)
            waker.reset()
        }
        available(connection)
        // Before the end, so that they land on the attempt's response; none for a cancelled or timed
        // out transfer, as the curl transport reports none.
        if Self.reportsMetrics(after: outcome), let metrics = measured.metrics(end: end) { events.didCollect(metrics) }
        events.didComplete(error: outcome)
    }

    /// Whether an attempt that ended with `outcome` reports its metrics: not when it was cancelled
    /// or timed out.
    private static func reportsMetrics(after outcome: (any Error)?) -> Bool {
        guard let outcome = outcome as? URLError else { return true }
        return outcome.code != .cancelled && outcome.code != .timedOut
    }

    private var isIdempotent: Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains { HTTPHeaderSyntax.equalIgnoringASCIICase($0, request.method.rawValue) }
    }

    private func exchange(on connection: inout NativeConnection?, early: EarlySend?, waker: Waker, measured: inout AttemptMeasurements) throws {
        let timeout = settings.timeout(for: request)
        var early = early
        // Encoded here unless the submitting thread sent the request (then only to send it again).
        var encoded = early == nil ? try encodeHead() : nil
        var retriedStale = false
        while true {
            if early == nil, let current = connection, !current.socket.isReusable {
                current.close()
                connection = nil
            }
            let reused = connection != nil
            let current: NativeConnection
            if let connection {
                current = connection
            } else {
                current = try mapFailure(of: "connecting") {
                    var resolved = MonotonicTime(nanoseconds: 0)
                    let socket = try NativeSocket.connect(
                        to: origin, for: request.url, deadline: MonotonicTime.now(plus: settings.connectTimeout(within: timeout)), waker: waker,
                        resolved: &resolved)
                    measured.resolved = resolved.nanoseconds
                    measured.connected = MonotonicTime.now.nanoseconds
                    return NativeConnection(socket: socket)
                }
                connection = current
            }
            measured.reusedConnection = reused
            measured.endpoints = current.endpoints
            do {
                let answerDeadline: MonotonicTime?
                do {
                    if let sent = early.take() {
                        measured.requestStart = sent.sentAt.nanoseconds
                        try finishSending(sent, on: current, timeout: timeout, waker: waker, measured: &measured)
                        answerDeadline = sent.answerDeadline
                    } else {
                        let head = try encoded ?? encodeHead()
                        encoded = head
                        measured.requestStart = MonotonicTime.now.nanoseconds
                        try send(head, on: current, timeout: timeout, waker: waker, measured: &measured)
                        answerDeadline = nil
                    }
                } catch let failure where Self.isLostConnection(failure) {
                    // The server may have answered before it closed (a 413 to a large upload, sent
                    // while the body was still going): a whole response read after the failed send
                    // is the outcome, as on the other transports. The connection is done with.
                    defer {
                        current.close()
                        connection = nil
                    }
                    guard (try? receive(on: current, timeout: timeout, firstDeadline: nil, waker: waker, measured: &measured)) != nil else {
                        throw failure
                    }
                    return
                }
                let reusable = try receive(on: current, timeout: timeout, firstDeadline: answerDeadline, waker: waker, measured: &measured)
                if reusable {
                    current.hasServed = true
                } else {
                    current.close()
                    connection = nil
                }
                return
            } catch let failure as StaleConnection where reused && isIdempotent && !retriedStale {
                // The server closed the idle connection as it was reused: once, on a new one.
                _ = failure
                retriedStale = true
                current.close()
                connection = nil
                measured.restart()
            } catch let failure as StaleConnection {
                throw failure.error
            }
        }
    }

    /// A failure before any byte of the response arrived on a connection.
    private struct StaleConnection: Error {
        let error: URLError
    }

    /// Whether a send failed because the connection was closed or reset (not cancelled, not timed out).
    private static func isLostConnection(_ error: any Error) -> Bool {
        if error is StaleConnection { return true }
        return (error as? URLError)?.code == .networkConnectionLost
    }

    // MARK: Sending

    private struct EncodedHead {
        let bytes: [UInt8]
        let framing: RequestEncoder.BodyFraming
        let body: Body
    }

    private enum Body {
        case none
        case data(Data)
        case file(URL, Int64)
        /// A form, read from its start on every send (its length `nil` when unknown: chunked).
        case multipart(MultipartFormData.Plan)
        /// A streamed body, opened afresh on every send.
        case stream(UploadStream)
    }

    /// A body this size or smaller goes out with the head in one write.
    private static let singleWriteBodyLimit = 65_536

    /// The body of a request without an upload source.
    private var inlineBody: Data? { request.data ?? request.httpBody }

    private func encodeHead() throws -> EncodedHead {
        let body: Body
        let length: HeaderCompletion.BodyLength
        switch upload {
        case .data(let data)?:
            body = .data(data)
            length = .known(Int64(data.count))
        case .file(let url)?:
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw URLError(.fileDoesNotExist, userInfo: [NSLocalizedDescriptionKey: "The upload file \(url.path) can't be read.", NSUnderlyingErrorKey: error])
            }
            body = .file(url, size)
            length = .known(size)
        case .multipart(let form)?:
            let plan = try form.plan()
            body = .multipart(plan)
            length = plan.length.map(HeaderCompletion.BodyLength.known) ?? .unknown
        case .stream(let stream)?:
            body = .stream(stream)
            length = stream.length.map(HeaderCompletion.BodyLength.known) ?? .unknown
        case nil:
            if let data = inlineBody {
                body = .data(data)
                length = .known(Int64(data.count))
            } else {
                body = .none
                length = .none
            }
        }
        let (head, framing) = try RequestEncoder.head(for: request, fields: request.completedFields ?? [], body: length)
        // A body its framing leaves out (a HEAD's) isn't sent either.
        return EncodedHead(bytes: head, framing: framing, body: framing == .none ? .none : body)
    }

    /// Sends what the submitting thread couldn't of the request it began to send, and reports the body.
    private func finishSending(
        _ sent: EarlySend, on connection: NativeConnection, timeout: TimeInterval, waker: Waker, measured: inout AttemptMeasurements
    ) throws {
        let count = try mapFailure(of: "sending", stale: connection.hasServed ? true : nil) { () throws(SocketFailure) in try sent.outcome.get() }
        if count < sent.message.count {
            try mapFailure(of: "sending", stale: connection.hasServed ? true : nil) {
                try sent.message.withUnsafeBytes {
                    try connection.socket.write(UnsafeRawBufferPointer(rebasing: $0[count...]), deadline: MonotonicTime.now(plus: timeout), waker: waker)
                }
            }
        }
        if sent.bodyCount > 0 {
            let count = Int64(sent.bodyCount)
            measured.requestBodyBytes = count
            events.didSend(bytes: count, totalBytes: count, expectedBytes: count)
        }
    }

    /// Sends the request.
    private func send(
        _ encoded: EncodedHead, on connection: NativeConnection, timeout: TimeInterval, waker: Waker, measured: inout AttemptMeasurements
    ) throws {
        let socket = connection.socket
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            try mapFailure(of: "sending", stale: !connection.hasServed ? nil : true) {
                try socket.write(bytes, deadline: MonotonicTime.now(plus: timeout), waker: waker)
            }
        }
        switch encoded.body {
        case .none:
            try encoded.bytes.withUnsafeBytes { try write($0) }
        case .data(let data) where encoded.framing != .chunked && data.count <= Self.singleWriteBodyLimit:
            // Head and a small body in one segment.
            var message = encoded.bytes
            message.append(contentsOf: data)
            try message.withUnsafeBytes { try write($0) }
            measured.requestBodyBytes = Int64(data.count)
            if !data.isEmpty { events.didSend(bytes: Int64(data.count), totalBytes: Int64(data.count), expectedBytes: Int64(data.count)) }
        case .data(let data):
            try encoded.bytes.withUnsafeBytes { try write($0) }
            var sent: Int64 = 0
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + 65_536)
                try sendBodyPart(data[offset..<end], framing: encoded.framing, write: write)
                let part = Int64(end - offset)
                sent += part
                offset = end
                measured.requestBodyBytes = sent
                events.didSend(bytes: part, totalBytes: sent, expectedBytes: Int64(data.count))
            }
            try finishBody(framing: encoded.framing, write: write)
        case .file(let url, let size):
            guard let handle = try? FileHandle(forReadingFrom: url) else {
                throw URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "The upload file \(url.path) can't be opened."])
            }
            defer { try? handle.close() }
            try encoded.bytes.withUnsafeBytes { try write($0) }
            var sent: Int64 = 0
            while sent < size {
                let part = try handle.read(upToCount: 65_536) ?? Data()
                guard !part.isEmpty else {
                    throw URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "The upload file \(url.path) shrank while it was sent."])
                }
                try sendBodyPart(part, framing: encoded.framing, write: write)
                sent += Int64(part.count)
                measured.requestBodyBytes = sent
                events.didSend(bytes: Int64(part.count), totalBytes: sent, expectedBytes: size)
            }
            try finishBody(framing: encoded.framing, write: write)
        case .multipart(let plan):
            try encoded.bytes.withUnsafeBytes { try write($0) }
            let reader = MultipartBodyReader(plan)
            defer { reader.close() }
            try sendBody(expected: plan.length ?? -1, framing: encoded.framing, measured: &measured, write: write) {
                try reader.read(into: $0)
            }
            try finishBody(framing: encoded.framing, write: write)
        case .stream(let stream):
            try encoded.bytes.withUnsafeBytes { try write($0) }
            let pipe = stream.open()
            defer { pipe.close() }
            try sendBody(expected: stream.length ?? -1, framing: encoded.framing, measured: &measured, write: write) {
                // The app's stream, not the server, is waited for here: a cancel ends the wait.
                try pipe.readWaiting(into: $0) { state.withLock { $0.isCancelled } }
            }
            try finishBody(framing: encoded.framing, write: write)
        }
    }

    /// Sends a body as `read` makes it (a form's reader, a stream's pipe; 0 at its end), 64 KiB at
    /// a time, framed as `framing` says.
    private func sendBody(
        expected: Int64, framing: RequestEncoder.BodyFraming, measured: inout AttemptMeasurements,
        write: (UnsafeRawBufferPointer) throws -> Void, read: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws {
        // Room before the bytes for a chunk's size line, and after them for its CR LF.
        let prefix = 8, capacity = 65_536
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: prefix + capacity + 2, alignment: 16)
        defer { buffer.deallocate() }
        var sent: Int64 = 0
        while true {
            let count = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[prefix..<(prefix + capacity)]))
            guard count > 0 else { return }
            if framing == .chunked {
                let size = Array(String(count, radix: 16).utf8) + [0x0D, 0x0A]
                let start = prefix - size.count
                UnsafeMutableRawBufferPointer(rebasing: buffer[start..<prefix]).copyBytes(from: size)
                buffer[prefix + count] = 0x0D
                buffer[prefix + count + 1] = 0x0A
                try write(UnsafeRawBufferPointer(rebasing: buffer[start..<(prefix + count + 2)]))
            } else {
                try write(UnsafeRawBufferPointer(rebasing: buffer[prefix..<(prefix + count)]))
            }
            sent += Int64(count)
            measured.requestBodyBytes = sent
            events.didSend(bytes: Int64(count), totalBytes: sent, expectedBytes: expected)
        }
    }

    private func sendBodyPart(_ part: Data, framing: RequestEncoder.BodyFraming, write: (UnsafeRawBufferPointer) throws -> Void) throws {
        if framing == .chunked {
            var framed = Array(String(part.count, radix: 16).utf8)
            framed.append(contentsOf: [0x0D, 0x0A])
            framed.append(contentsOf: part)
            framed.append(contentsOf: [0x0D, 0x0A])
            try framed.withUnsafeBytes { try write($0) }
        } else {
            try part.withUnsafeBytes { try write($0) }
        }
    }

    private func finishBody(framing: RequestEncoder.BodyFraming, write: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard framing == .chunked else { return }
        try Array("0\r\n\r\n".utf8).withUnsafeBytes { try write($0) }
    }

    // MARK: Receiving

    /// Reads the response, reporting it as it arrives; `true` when the connection may be reused.
    ///
    /// - Parameter firstDeadline: When the first bytes must have come, if not `timeout` from now;
    ///   given for a request the submitting thread sent.
    private func receive(
        on connection: NativeConnection, timeout: TimeInterval, firstDeadline: MonotonicTime?, waker: Waker, measured: inout AttemptMeasurements
    ) throws -> Bool {
        var decoder = ResponseDecoder(
            isHeadRequest: request.method == .head, upgradeRequested: ResponseRules.asksForUpgrade(request),
            headerLimit: settings.maximumResponseHeaderSize)
        defer { measured.responseHeaderBytes = decoder.headBytes }
        let socket = connection.socket
        let scratch = connection.scratch
        var receivedAny = !connection.buffer.isEmpty
        if receivedAny { measured.firstByte = MonotonicTime.now.nanoseconds }
        // A request that just went out can't have its answer yet: wait before reading. One sent
        // early by the submitting thread usually has it already: its worker woke because the
        // socket became readable (at worst a `recv` finds nothing and the wait follows).
        var waitsFirst = firstDeadline == nil
        while true {
            let event: ResponseDecoder.Event?
            do {
                event = try decoder.next(&connection.buffer)
            } catch {
                throw badResponse(error)
            }
            if let event {
                switch event {
                case .head(let head):
                    let head = try response(for: head)
                    measured.httpVersion = head.httpVersion
                    events.didReceive(head)
                case .body(let data):
                    measured.responseBodyBytes += Int64(data.count)
                    events.didReceive(data)
                case .end(let reusable):
                    return reusable
                }
                continue
            }
            let count = try mapFailure(of: "receiving", stale: connection.hasServed && !receivedAny ? true : nil) {
                try socket.read(
                    into: scratch, deadline: waitsFirst ? firstDeadline ?? MonotonicTime.now(plus: timeout) : MonotonicTime.now(plus: timeout),
                    waker: waker, waitingFirst: waitsFirst)
            }
            waitsFirst = false
            if count == 0 {
                if connection.hasServed && !receivedAny {
                    throw StaleConnection(error: URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "The server closed the connection."]))
                }
                do {
                    guard let last = try decoder.connectionClosed(&connection.buffer) else { return false }
                    if case .end = last { return false }
                } catch {
                    throw URLError(.networkConnectionLost, userInfo: [
                        NSLocalizedDescriptionKey: error.description, NSURLErrorFailingURLErrorKey: request.url as Any,
                    ])
                }
                continue
            }
            if !receivedAny { measured.firstByte = MonotonicTime.now.nanoseconds }
            receivedAny = true
            connection.buffer.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
    }

    private func badResponse(_ error: ResponseDecodingError) -> URLError {
        error.urlError(for: request.url)
    }

    private func response(for head: ResponseHead) throws -> HTTPResponseHead {
        settings.storeCookies(head.values("Set-Cookie"), for: request)
        guard let url = request.url else { throw badResponse(.badStatusLine) }
        return HTTPResponseHead(
            url: url, statusCode: head.status, reasonPhrase: head.reason,
            httpVersion: head.minor == 1 ? "HTTP/1.1" : "HTTP/\(head.major).\(head.minor)", orderedFields: head.fields)
    }

    // MARK: Errors

    /// Runs a socket operation, turning its failure into the `URLError` URLSession would report.
    ///
    /// - Parameter stale: When `true`, a closed connection is reported as ``StaleConnection`` so the
    ///   request can be sent again on a new one.
    private func mapFailure<T>(of step: String, stale: Bool? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as SocketFailure {
            let error: URLError
            switch failure {
            case .woken:
                error = URLError(.cancelled)
            case .timedOut:
                error = URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "The request timed out while \(step).", NSURLErrorFailingURLErrorKey: request.url as Any,
                ])
            case .closed, .system:
                var description = "The connection to \(origin) was lost while \(step)."
                if case .system(let code) = failure { description += " (\(NativeSocket.describe(code)))" }
                error = URLError(.networkConnectionLost, userInfo: [
                    NSLocalizedDescriptionKey: description, NSURLErrorFailingURLErrorKey: request.url as Any,
                ])
                if stale == true { throw StaleConnection(error: error) }
            }
            throw error
        }
    }
}
