import CJewzruxinCurl
import JewzruxinPrimitives
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on a curl transport: an easy handle in its loop's multi handle.
///
/// ``resume()`` and ``cancel()`` come from any thread and hand the transfer to the loop. The easy
/// handle is made, configured, driven and cleaned up under the loop's drive (``CurlLoop``), by the
/// thread that starts it or by the loop's; libcurl's callbacks run there too and post every event
/// to the loop's outbox, which the loop's thread runs in order. ``complete(with:metrics:)`` reports
/// the end once, whichever of the loop, a cancel or a failure comes first.
final class CurlTransfer: HTTPTransfer, @unchecked Sendable {
    /// What other threads change: one lock for the three.
    private struct Flags {
        /// ``resume()`` handed the transfer to the loop.
        var resumed = false
        /// ``cancel()`` was called: the transfer sends nothing more, and the callbacks stop it at
        /// once, before the loop removes it.
        var cancelled = false
        /// The end has been reported.
        var reported = false
    }

    let request: HTTPRequest
    let url: URL
    /// Whether the request goes over TLS: its scheme is `https` (else `http`), read once.
    private let isHTTPS: Bool
    private let upload: HTTPCycle.UploadSource?
    private let events: HTTPTransferEvents
    private let settings: CurlTransport.Settings
    private let loop: CurlLoop
    /// The group the loop belongs to, told when the transfer ends, and the loop's place in it.
    private let group: CurlLoopGroup
    private let loopIndex: Int
    private let flags = Locked(Flags())
    private let timeout: TimeInterval

    // Under the loop's drive only, from prepare() on. Not checked for exclusive access at run
    // time (`@exclusivity(unchecked)`): the drive already makes each access exclusive, and the
    // runtime's check (`swift_beginAccess`) cost some 30 calls per request here.
    /// The easy handle, while the transfer runs.
    @exclusivity(unchecked) private(set) var easyHandle: UnsafeMutableRawPointer?
    /// The request's header lines, which libcurl reads while the transfer runs.
    @exclusivity(unchecked) private var headerList: CurlHeaderList?
    @exclusivity(unchecked) private var errorBuffer: UnsafeMutablePointer<CChar>?
    @exclusivity(unchecked) private var head = CurlHeadReader()
    @exclusivity(unchecked) private var body: CurlBodySource?
    /// When the transfer fails for want of progress.
    @exclusivity(unchecked) private(set) var idleDeadline = MonotonicTime.distantFuture
    /// An error a callback met, reported instead of libcurl's code.
    @exclusivity(unchecked) private var callbackError: (any Error)?
    /// Body bytes reported through the loop's outbox so far.
    @exclusivity(unchecked) private var inlineBytes = 0
    /// Where the events go once the body passes ``inlineBodyLimit``.
    @exclusivity(unchecked) private var outlet: CurlOutlet?
    /// The end, stored by ``complete(with:metrics:)`` (under the drive) for ``reportEnd()``, which
    /// runs after the drive has been let go.
    @exclusivity(unchecked) private var ending: (error: (any Error)?, metrics: HTTPTransferMetrics?) = (nil, nil)

    /// The body bytes a transfer reports through its loop's outbox; past them its events go through
    /// a ``CurlOutlet``, with backpressure.
    static let inlineBodyLimit = 256 * 1024
    /// The response's content codings, decoded as the body arrives.
    @exclusivity(unchecked) private var decoding = CurlBodyDecoding()
    /// The proxy the transfer goes through, if any.
    @exclusivity(unchecked) private var proxy: HTTPSession.ProxySettings?
    /// Whether the handle holds only the options of a plain GET, which the next transfer on it
    /// keeps (``CurlLoop/recycle(_:keepsOptions:)``): no body, proxy, authentication or TLS setting
    /// beyond a CA file.
    @exclusivity(unchecked) private var keepsOptions = false
    /// What libcurl was handed to run NTLM or Negotiate, if anything (CurlAuthentication.swift).
    @exclusivity(unchecked) private var connectionAuthentication: CurlConnectionAuthentication?

    init(request: HTTPRequest, url: URL, isHTTPS: Bool, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents,
         settings: CurlTransport.Settings, group: CurlLoopGroup) {
        self.request = request
        self.url = url
        self.isHTTPS = isHTTPS
        self.upload = upload
        self.events = events
        self.settings = settings
        (loop, loopIndex) = group.assign()
        self.group = group
        self.timeout = settings.shared.timeout(for: request)
    }

    deinit {
        // Made and let go without ever running: its loop counts it no more.
        if !flags.withLock({ $0.reported }) { group.ended(on: loopIndex) }
    }

    func resume() {
        let submits = flags.withLock { flags -> Bool in
            guard !flags.resumed, !flags.cancelled else { return false }
            flags.resumed = true
            return true
        }
        if submits { loop.submit(self) }
    }

    func cancel() {
        flags.withLock { $0.cancelled = true }
        // The loop removes a running transfer, and reports the end of one that never started.
        loop.cancel(self)
    }

    /// Reports `error` as the end of a transfer that never started (its loop can't take it), on the
    /// calling thread.
    func fail(_ error: any Error) {
        guard markReported() else { return }
        events.didComplete(error: error)
    }

    /// Marks the end reported: `true` for the first caller only, which reports it.
    private func markReported() -> Bool {
        let first = flags.withLock { flags in defer { flags.reported = true }; return !flags.reported }
        // Ended: the next transfer may go to this loop, and reuse the connection.
        if first { group.ended(on: loopIndex) }
        return first
    }

    // MARK: Under the loop's drive

    /// Makes and configures the easy handle; `nil` when the transfer has ended already or can't
    /// start (it has then reported why).
    func prepare() -> UnsafeMutableRawPointer? {
        guard flags.withLock({ $0.resumed && !$0.cancelled && !$0.reported }) else { return nil }
        guard let (easy, primed) = loop.makeHandle() else {
            complete(with: URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: "curl_easy_init failed"]))
            return nil
        }
        easyHandle = easy
        do {
            try configure(easy, primed: primed)
        } catch {
            complete(with: error)
            return nil
        }
        idleDeadline = MonotonicTime.now(plus: timeout)
        return easy
    }

    /// libcurl ended the transfer with `code`; its handle is still in the multi handle. A connection
    /// kept after a response is checked for bytes past it, and shut down if it has some
    /// (``CurlConnectionCheck``), unless libcurl has given it to another transfer already.
    func ended(code: Int32) {
        guard code == JZ_E_OK, callbackError == nil, let easyHandle, inspectsConnection else { return }
        deliverHeldHead()
        guard head.isDelivered else { return }
        CurlConnectionCheck.inspect(easyHandle, responseBytes: responseBytes, loop: loop)
    }

    /// A `long` libcurl knows of `easy`, `nil` when it doesn't say or says 0.
    private static func longInfo(_ easy: UnsafeMutableRawPointer?, _ name: Int32) -> Int? {
        var value = 0
        guard let easy, jz_easy_getinfo_long(easy, name, &value) == JZ_E_OK, value != 0 else { return nil }
        return value
    }

    /// libcurl ended the transfer with `code`, and its handle is out of the multi handle.
    func finished(code: Int32) {
        if code == JZ_E_OK, callbackError == nil { deliverHeldHead() }
        let metrics = easyHandle.map(Self.metrics(of:))
        if let callbackError {
            complete(with: callbackError, metrics: metrics)
        } else if code != JZ_E_OK, let fault = ResponseRules.fault(fromLibcurlMessage: errorMessage ?? String(cString: jz_easy_strerror(code))) {
            // A response libcurl refused itself: reported as the other transports report it.
            complete(with: fault.urlError(for: url), metrics: metrics)
        } else if code != JZ_E_OK {
            let viaProxy = proxy != nil
            complete(with: CurlErrors.urlError(
                code: code, message: errorMessage, url: url, proxy: proxy.map(Self.address(of:)),
                proxyCode: viaProxy ? Self.longInfo(easyHandle, Int32(JZ_INFO_PROXY_ERROR)) : nil,
                connectStatus: viaProxy ? Self.longInfo(easyHandle, Int32(JZ_INFO_HTTP_CONNECTCODE)) : nil,
                osErrno: Self.longInfo(easyHandle, Int32(JZ_INFO_OS_ERRNO)), requestNotSent: requestNotSent), metrics: metrics)
        } else if !head.isDelivered {
            complete(with: URLError(.badServerResponse, userInfo: [
                NSLocalizedDescriptionKey: "The transfer ended without a response head.", NSURLErrorFailingURLErrorKey: url,
            ]), metrics: metrics)
        } else if let failure = decoding.finish() {
            complete(with: failure, metrics: metrics)
        } else {
            complete(with: nil, metrics: metrics)
        }
    }

    /// Whether the connection is checked for bytes past the response once the transfer ends: in plain
    /// HTTP, not through a proxy (whose handshake bytes the count can't tell from the response's).
    private var inspectsConnection: Bool {
        proxy == nil && !isHTTPS
    }

    /// The bytes of the response on the wire, when known: its heads (interim ones included) and a
    /// body framed by its length, or none; `nil` for a chunked body, or during a handshake whose
    /// bodies libcurl skipped.
    private var responseBytes: UInt64? {
        guard !head.holdsHeads, let easyHandle else { return nil }
        switch head.framing {
        case .none?: return UInt64(head.totalBytes)
        case .length?:
            var body: Int64 = 0
            guard jz_easy_getinfo_offset(easyHandle, Int32(JZ_INFO_SIZE_DOWNLOAD_T), &body) == JZ_E_OK, body >= 0 else { return nil }
            return UInt64(head.totalBytes) + UInt64(body)
        case .chunked?, .untilClose?, nil: return nil
        }
    }

    /// The handler has caught up with a paused transfer: reading goes on.
    func resumeReading() {
        guard let easyHandle else { return }
        idleDeadline = MonotonicTime.now(plus: timeout)
        // libcurl may hand the bytes it kept to the write callback from within this call.
        _ = jz_easy_pause(easyHandle, Int32(JZ_PAUSE_CONT))
    }

    /// No progress for the request's timeout.
    func timedOut() {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "The request timed out.", NSURLErrorFailingURLErrorKey: url]
        if requestNotSent { userInfo[HTTPError.requestNotSentKey] = true }
        complete(with: URLError(.timedOut, userInfo: userInfo))
    }

    /// Whether libcurl certainly sent nothing of the request: it never reached the point of
    /// sending (its pre-transfer time is taken just before the request goes, after the connection
    /// and TLS are made).
    private var requestNotSent: Bool {
        guard let easyHandle else { return false }
        var microseconds: Int64 = 0
        return jz_easy_getinfo_offset(easyHandle, Int32(JZ_INFO_PRETRANSFER_TIME_T), &microseconds) == JZ_E_OK && microseconds == 0
    }

    /// Reports the end, once, after what libcurl measured of it, and lets the handle go.
    func complete(with error: (any Error)?, metrics: HTTPTransferMetrics? = nil) {
        guard markReported() else { return }
        release(succeeded: error == nil)
        ending = (error, metrics)
        if let outlet { outlet.async { [self] in reportEnd() } } else { loop.post(.end(self)) }
    }

    /// Tells the engine of the end ``complete(with:metrics:)`` stored: run by the loop's thread
    /// or the outlet, after the transfer's other events.
    func reportEnd() {
        let (error, metrics) = ending
        if let metrics { events.didCollect(metrics) }
        events.didComplete(error: error)
    }

    /// What libcurl measured of the transfer of `easy`.
    static func metrics(of easy: UnsafeMutableRawPointer) -> HTTPTransferMetrics {
        func seconds(_ info: Int32) -> TimeInterval {
            var microseconds: Int64 = 0
            _ = jz_easy_getinfo_offset(easy, info, &microseconds)
            return TimeInterval(microseconds) / 1_000_000
        }
        func long(_ info: Int32) -> Int {
            var value = 0
            _ = jz_easy_getinfo_long(easy, info, &value)
            return value
        }
        func offset(_ info: Int32) -> Int64 {
            var value: Int64 = 0
            _ = jz_easy_getinfo_offset(easy, info, &value)
            return value
        }
        func string(_ info: Int32) -> String? {
            var value: UnsafePointer<CChar>?
            guard jz_easy_getinfo_string(easy, info, &value) == JZ_E_OK, let value, value.pointee != 0 else { return nil }
            return String(cString: value)
        }
        let handshake = seconds(Int32(JZ_INFO_APPCONNECT_TIME_T))
        let version: String? = switch long(Int32(JZ_INFO_HTTP_VERSION)) {
        case 1: "HTTP/1.0"
        case 2: "HTTP/1.1"
        case 3: "HTTP/2"
        case 30: "HTTP/3"
        default: nil
        }
        let remotePort = long(Int32(JZ_INFO_PRIMARY_PORT))
        let localPort = long(Int32(JZ_INFO_LOCAL_PORT))
        return HTTPTransferMetrics(
            nameLookup: seconds(Int32(JZ_INFO_NAMELOOKUP_TIME_T)), connect: seconds(Int32(JZ_INFO_CONNECT_TIME_T)),
            tlsHandshake: handshake > 0 ? handshake : nil, requestStart: seconds(Int32(JZ_INFO_PRETRANSFER_TIME_T)),
            firstByte: seconds(Int32(JZ_INFO_STARTTRANSFER_TIME_T)), total: seconds(Int32(JZ_INFO_TOTAL_TIME_T)),
            httpVersion: version, remoteAddress: string(Int32(JZ_INFO_PRIMARY_IP)), remotePort: remotePort > 0 ? remotePort : nil,
            localAddress: string(Int32(JZ_INFO_LOCAL_IP)), localPort: localPort > 0 ? localPort : nil,
            requestBodyBytes: offset(Int32(JZ_INFO_SIZE_UPLOAD_T)), responseBodyBytes: offset(Int32(JZ_INFO_SIZE_DOWNLOAD_T)),
            responseHeaderBytes: long(Int32(JZ_INFO_HEADER_SIZE)), reusedConnection: long(Int32(JZ_INFO_NUM_CONNECTS)) == 0)
    }

    private var errorMessage: String? {
        guard let errorBuffer, errorBuffer.pointee != 0 else { return nil }
        return String(cString: errorBuffer)
    }

    /// Lets the handle go: kept primed for the next transfer when this one `succeeded` with the
    /// options of a plain GET, reset otherwise.
    private func release(succeeded: Bool) {
        if let easyHandle { loop.recycle(easyHandle, keepsOptions: succeeded && keepsOptions) }
        easyHandle = nil
        headerList = nil
        errorBuffer?.deallocate()
        errorBuffer = nil
        body?.close()
        body = nil
    }

    // MARK: Callbacks

    /// Reads a header line: `false` when the response breaks the rules (the transfer then stops,
    /// with the reason as its error).
    fileprivate func receivedHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        idleDeadline = MonotonicTime.now(plus: timeout)
        let ended: CurlHeadReader.Head
        do {
            guard let read = try head.read(line) else { return true }
            ended = read
        } catch {
            callbackError = error.urlError(for: url)
            return false
        }
        if let cookies = settings.shared.cookies, case let setCookies = ended.setCookies, !setCookies.isEmpty {
            let request = request
            loop.post { cookies.store(setCookies, for: request) }
        }
        // A head held during an NTLM or Negotiate handshake goes with the body or the end.
        guard head.isDelivered else { return true }
        deliver(ended)
        return true
    }

    private func deliver(_ ended: CurlHeadReader.Head) {
        decoding.start(ended.fields, url: url)
        let unanswered = connectionAuthentication?.unanswered(final: ended, replaced: head.replaced, url: url)
        let responseHead = HTTPResponseHead(
            url: url, statusCode: ended.status, reasonPhrase: ended.reason, httpVersion: ended.version, orderedFields: ended.fields,
            unansweredChallenge: unanswered)
        loop.post(.head(events, responseHead))
    }

    /// Hands body bytes to the engine, decoded: what the write callback returns, the count taken,
    /// 0 when the transfer must stop (cancelled meanwhile, or a body that can't be decoded), or
    /// `CURL_WRITEFUNC_PAUSE` when the handler is behind (libcurl keeps the bytes, and hands them
    /// again after ``resumeReading()``: nothing of them is decoded before that).
    fileprivate func receivedBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        deliverHeldHead()
        guard !flags.withLock({ $0.cancelled }) else { return 0 }
        if let outlet, !outlet.hasRoom() {
            // Waiting for the handler, not for the server.
            idleDeadline = .distantFuture
            return Int(JZ_WRITEFUNC_PAUSE)
        }
        idleDeadline = MonotonicTime.now(plus: timeout)
        // The decoded bytes count, not the bytes sent: a compressed body that inflates a
        // thousandfold reaches the handler no faster than the handler takes it.
        let outcome = decoding.decode(bytes) { piece in
            let data = Data(piece)
            if outlet == nil, inlineBytes + data.count > Self.inlineBodyLimit {
                // Its first event runs after those of the outbox: the head and the body so far.
                let created = CurlOutlet()
                outlet = created
                loop.post { created.open() }
            }
            inlineBytes += data.count
            // A body that decodes to much more than it is stops between pieces when cancelled.
            guard !flags.withLock({ $0.cancelled }) else { return .stop }
            guard let outlet else {
                loop.post(.body(events, data))
                return .proceed
            }
            outlet.add(data.count)
            outlet.async { [self] in
                if !flags.withLock({ $0.cancelled }) { events.didReceive(data) }
                if outlet.delivered(data.count) { loop.resume(self) }
            }
            return outlet.hasRoom() ? .proceed : .pause
        }
        switch outcome {
        case .took:
            return bytes.count
        case .pause:
            idleDeadline = .distantFuture
            return Int(JZ_WRITEFUNC_PAUSE)
        case .stop:
            if let failure = decoding.failure { callbackError = failure }
            return 0
        }
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !flags.withLock({ $0.cancelled }) else { return Int(JZ_READFUNC_ABORT) }
        guard let body else { return 0 }
        do {
            let count = try body.read(into: buffer)
            if count == CurlBodySource.waiting {
                // Waiting for the app's stream, not for the server: resumed when it gives more.
                idleDeadline = .distantFuture
                return Int(JZ_READFUNC_PAUSE)
            }
            if count > 0 {
                idleDeadline = MonotonicTime.now(plus: timeout)
                let events = events, sent = body.sent, expected = body.length ?? -1
                loop.post { events.didSend(bytes: Int64(count), totalBytes: sent, expectedBytes: expected) }
            }
            return count
        } catch {
            callbackError = error
            return Int(JZ_READFUNC_ABORT)
        }
    }

    fileprivate func seekBody(to offset: Int64) -> Int32 {
        guard let body, body.seek(to: offset) else { return Int32(JZ_SEEKFUNC_CANTSEEK) }
        return Int32(JZ_SEEKFUNC_OK)
    }

    // MARK: Configuring the handle

    /// Sets the transfer's options on `easy`; on a `primed` handle (``CurlLoop/makeHandle()``), only
    /// those a plain GET doesn't set alike.
    private func configure(_ easy: UnsafeMutableRawPointer, primed: Bool) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        buffer.initialize(repeating: 0, count: 256)
        errorBuffer = buffer
        try check(jz_easy_setopt_pointer(easy, Int32(JZ_OPT_ERRORBUFFER), buffer))
        try set(easy, JZ_OPT_URL, url.absoluteString)
        if !primed {
            try set(easy, JZ_OPT_NOSIGNAL, 1)
            // The engine follows redirects and answers challenges itself, on every transport (NTLM
            // and Negotiate aside, below).
            try set(easy, JZ_OPT_FOLLOWLOCATION, 0)
            // The transfer decodes the body itself (CurlContentDecoder), to report truncation.
            try set(easy, JZ_OPT_HTTP_CONTENT_DECODING, 0)
        }
        let method = request.method.rawValue
        head.isHeadRequest = method == "HEAD"
        head.upgradeRequested = ResponseRules.asksForUpgrade(request)
        try check(jz_easy_set_header(easy, curlHeaderCallback, context))
        try check(jz_easy_set_write(easy, curlWriteCallback, context))
        try configureConnectionAuthentication(easy)
        // NTLM can't run over HTTP/2: libcurl would close the connection to go again on HTTP/1.1.
        let http1Only = settings.httpVersion == .http1_1 || connectionAuthentication?.schemes.contains(.ntlm) == true
        try set(easy, JZ_OPT_HTTP_VERSION, Int(http1Only ? JZ_HTTP_VERSION_1_1 : JZ_HTTP_VERSION_2TLS))
        if !http1Only, isHTTPS {
            // A burst to a server that may speak HTTP/2 waits for the first connection and
            // multiplexes over it, rather than opening one connection per request.
            try set(easy, JZ_OPT_PIPEWAIT, 1)
        } else if primed {
            try set(easy, JZ_OPT_PIPEWAIT, 0)
        }
        try set(easy, JZ_OPT_CONNECTTIMEOUT_MS, Int(min(settings.shared.connectTimeout(within: timeout), 86_400) * 1000))
        let plainTLS = try configureTLS(easy)
        try configureProxy(easy, primed: primed)
        let (lines, chunked) = headerLines()
        try configureMethodAndBody(easy, method: method, chunked: chunked, context: context)
        try configureHeaders(easy, lines)
        keepsOptions = plainTLS && connectionAuthentication == nil && proxy == nil && body == nil && method == "GET"
    }

    // MARK: NTLM and Negotiate (CurlAuthentication.swift)

    /// Hands libcurl the request's NTLM or Negotiate credentials, for the schemes it was built
    /// with: it then runs their handshake on its connection, reading a 401 per round, which the
    /// head reader holds back.
    private func configureConnectionAuthentication(_ easy: UnsafeMutableRawPointer) throws {
        guard let library = settings.library,
              let authentication = CurlConnectionAuthentication(for: request, features: library.features)
        else { return }
        connectionAuthentication = authentication
        head.holdsHeads = true
        try set(easy, JZ_OPT_HTTPAUTH, authentication.bitmask)
        try set(easy, JZ_OPT_USERNAME, authentication.username)
        try set(easy, JZ_OPT_PASSWORD, authentication.password)
    }

    /// Reports the head held during a handshake, now known to be the response's.
    private func deliverHeldHead() {
        guard let held = head.takeHeld() else { return }
        deliver(held)
    }

    /// The request's proxy, chosen here (the configuration's, or the environment's as the transport
    /// read it, unless the host is excluded), so that libcurl reads no environment variable itself:
    /// `CURLOPT_PROXY` is always set, empty for none.
    private func configureProxy(_ easy: UnsafeMutableRawPointer, primed: Bool) throws {
        let chosen: HTTPSession.ProxySettings?
        do {
            chosen = try settings.proxies.proxy(for: url)
        } catch {
            // An environment proxy that can't be used: fail rather than go out directly.
            throw URLError(.cannotConnectToHost, userInfo: [
                NSLocalizedDescriptionKey: error.description, NSURLErrorFailingURLErrorKey: url, NSUnderlyingErrorKey: error,
            ])
        }
        proxy = chosen
        // A primed handle has both empty already.
        guard !primed || chosen != nil else { return }
        // The excluded hosts were taken out above; an empty list also keeps libcurl from no_proxy.
        try set(easy, JZ_OPT_NOPROXY, "")
        guard let chosen else {
            try set(easy, JZ_OPT_PROXY, "")
            return
        }
        let (scheme, type) = switch chosen.kind {
        case .http: ("http", JZ_PROXY_HTTP)
        case .socks5: ("socks5h", JZ_PROXY_SOCKS5_HOSTNAME)
        case .socks5WithLocalResolution: ("socks5", JZ_PROXY_SOCKS5)
        }
        try set(easy, JZ_OPT_PROXY, "\(scheme)://\(Self.address(of: chosen))")
        try set(easy, JZ_OPT_PROXYTYPE, Int(type))
        // An https request through an HTTP proxy: the proxy's answer to CONNECT is not the response.
        try set(easy, JZ_OPT_SUPPRESS_CONNECT_HEADERS, 1)
        if let username = chosen.username {
            // libcurl percent-decodes both (url.c, parse_proxy_auth): a '%' of theirs must reach it
            // encoded.
            try set(easy, JZ_OPT_PROXYUSERNAME, URLEncoding.encode(username, .query))
            try set(easy, JZ_OPT_PROXYPASSWORD, URLEncoding.encode(chosen.password ?? "", .query))
        }
    }

    /// `host:port`, an IPv6 address in brackets.
    static func address(of proxy: HTTPSession.ProxySettings) -> String {
        HostSyntax.bracketed(proxy.host) + ":" + String(proxy.port)
    }

    /// Sets the session's TLS settings for an https request: whether they were plain (a CA file or
    /// the system's trust, nothing else), which a primed handle may keep.
    private func configureTLS(_ easy: UnsafeMutableRawPointer) throws -> Bool {
        guard isHTTPS else { return true }
        let tls = settings.tls
        if tls.bundleHoldsSystemTrust {
            // libcurl keeps the store it parsed from a CA file for the next connections (its CA
            // cache), but not with a CA directory beside it, which distributions' builds name by
            // default: every connection then parsed the system's bundle again, some 200 KB of PEM.
            // The file holds the directory's certificates already.
            try check(jz_easy_setopt_pointer(easy, Int32(JZ_OPT_CAPATH), nil))
        }
        if let problem = tls.problem {
            throw URLError(.secureConnectionFailed, userInfo: [
                NSLocalizedDescriptionKey: "The session's TLS settings can't be applied: \(problem).", NSURLErrorFailingURLErrorKey: url,
            ])
        }
        switch tls.caBundle {
        case .file(let file)?:
            try set(easy, JZ_OPT_CAINFO, file.path)
        case .bytes(let bundle)?:
            // Not copied here: the settings keep the bytes while the transfer runs.
            try check(jz_easy_setopt_blob(easy, Int32(JZ_OPT_CAINFO_BLOB), bundle.bytes.baseAddress, bundle.bytes.count, 0))
        case nil:
            break
        }
        if let pins = tls.pinnedPublicKeys {
            try set(easy, JZ_OPT_PINNEDPUBLICKEY, pins)
        }
        if let certificate = tls.clientCertificate {
            try set(easy, JZ_OPT_SSLCERT_BLOB, blob: certificate)
            try set(easy, JZ_OPT_SSLCERTTYPE, "PEM")
        }
        if let key = tls.clientKey {
            try set(easy, JZ_OPT_SSLKEY_BLOB, blob: key)
            try set(easy, JZ_OPT_SSLKEYTYPE, "PEM")
        }
        if let passphrase = tls.keyPassphrase {
            try set(easy, JZ_OPT_KEYPASSWD, passphrase)
        }
        if let version = tls.minimumVersion {
            try set(easy, JZ_OPT_SSLVERSION, version)
        }
        if case .bytes? = tls.caBundle { return false }
        return tls.pinnedPublicKeys == nil && tls.clientCertificate == nil && tls.clientKey == nil && tls.keyPassphrase == nil
            && tls.minimumVersion == nil
    }

    /// Sets `method` (uppercased) and the body, sent `chunked` whatever its length when the request
    /// asks for it.
    private func configureMethodAndBody(_ easy: UnsafeMutableRawPointer, method: String, chunked: Bool, context: UnsafeMutableRawPointer) throws {
        var source: CurlBodySource?
        if case .stream? = upload {
            // Only a streamed body pauses the transfer and calls back when it has more.
            let loop = loop
            source = try CurlBodySource(upload: upload, inline: nil, url: url) { [weak self] in
                if let self { loop.resume(self) }
            }
        } else {
            source = try CurlBodySource(upload: upload, inline: request.data ?? request.httpBody, url: url)
        }
        if source == nil, method == "POST" || method == "PUT" || method == "PATCH" {
            // A method that defines a body announces an empty one (RFC 9110 §8.6).
            source = CurlBodySource(empty: ())
        }
        if method == "HEAD" {
            try set(easy, JZ_OPT_NOBODY, 1)
        } else if let source {
            body = source
            try set(easy, JZ_OPT_UPLOAD, 1)
            // libcurl writes the framing from this length, as the request's completed fields say:
            // `Content-Length`, or `Transfer-Encoding: chunked` for -1.
            try check(jz_easy_setopt_offset(easy, Int32(JZ_OPT_INFILESIZE_LARGE), chunked ? -1 : source.length ?? -1))
            try check(jz_easy_set_read(easy, curlReadCallback, context))
            try check(jz_easy_set_seek(easy, curlSeekCallback, context))
            if method != "PUT" { try set(easy, JZ_OPT_CUSTOMREQUEST, method) }
        } else if method == "GET" {
            try set(easy, JZ_OPT_HTTPGET, 1)
        } else {
            try set(easy, JZ_OPT_CUSTOMREQUEST, method)
        }
    }

    /// The request's fields, completed as they go out (``CurlTransport/completeHeaderFields(of:upload:)``),
    /// as libcurl's header lines, in name order so that a request's head is the same every time:
    /// all but the framing, which libcurl writes itself from the body's length; and whether that
    /// asks for a chunked body. With `Host` and `Accept` among them, libcurl adds neither.
    private func headerLines() -> (lines: [CurlHeaderList.Line], chunked: Bool) {
        guard let fields = request.completedFields, !fields.isEmpty else { return ([], false) }
        var lines: [CurlHeaderList.Line] = []
        lines.reserveCapacity(fields.count + 1)
        var chunked = false
        for (name, value) in fields {
            switch HeaderCompletion.framingField(name) {
            case .transferEncoding?: chunked = true
            case .contentLength?: break
            case nil: lines.append(.init(name: name, value: value))
            }
        }
        return (lines, chunked)
    }

    private func configureHeaders(_ easy: UnsafeMutableRawPointer, _ lines: [CurlHeaderList.Line]) throws {
        var lines = lines
        // No 100-continue round trip for a body: the other transports send it at once.
        if body != nil, !lines.contains(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0.name, "Expect") }) {
            lines.append(.init(name: "Expect", value: nil))
        }
        let list = CurlHeaderList(lines)
        try check(jz_easy_setopt_pointer(easy, Int32(JZ_OPT_HTTPHEADER), list.head))
        headerList = consume list
    }

    private func set(_ easy: UnsafeMutableRawPointer, _ option: Int, _ value: String) throws {
        try check(value.withCString { jz_easy_setopt_pointer(easy, Int32(option), $0) })
    }

    private func set(_ easy: UnsafeMutableRawPointer, _ option: Int, _ value: Int) throws {
        try check(jz_easy_setopt_long(easy, Int32(option), value))
    }

    /// A blob option: libcurl keeps a copy of the bytes.
    private func set(_ easy: UnsafeMutableRawPointer, _ option: Int, blob: Data) throws {
        try check(blob.withUnsafeBytes { jz_easy_setopt_blob(easy, Int32(option), $0.baseAddress, $0.count, 1) })
    }

    private func check(_ code: Int32) throws {
        guard code != JZ_E_OK else { return }
        throw URLError(.unknown, userInfo: [
            NSLocalizedDescriptionKey: "libcurl refused an option: " + String(cString: jz_easy_strerror(code)),
            NSURLErrorFailingURLErrorKey: url,
        ])
    }
}

// libcurl's callbacks: C functions that find their transfer from the context pointer, which the
// loop keeps alive while the handle is in its multi handle.

private func curlTransfer(from context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let curlHeaderCallback: jz_data_callback = { data, size, count, context in
    let length = size * count
    guard let transfer = curlTransfer(from: context) else { return 0 }
    // Anything but `length` fails the transfer (CURLE_WRITE_ERROR), which reports the reader's error.
    return transfer.receivedHeader(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlWriteCallback: jz_data_callback = { data, size, count, context in
    guard let transfer = curlTransfer(from: context) else { return 0 }
    return transfer.receivedBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let curlReadCallback: jz_data_callback = { data, size, count, context in
    guard let transfer = curlTransfer(from: context), let data else { return Int(JZ_READFUNC_ABORT) }
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

private let curlSeekCallback: jz_seek_callback = { context, offset, origin in
    // SEEK_SET only: libcurl rewinds to the start of the body.
    guard let transfer = curlTransfer(from: context), origin == 0 else { return Int32(JZ_SEEKFUNC_CANTSEEK) }
    return transfer.seekBody(to: offset)
}
