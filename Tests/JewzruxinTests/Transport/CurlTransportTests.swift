import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The system's libcurl as the curl transport loads it, and what the transport reads from it:
/// the library and its features, response heads line by line, result codes.
@Suite("Curl transport: the library, heads and errors")
struct CurlTransportTests {
    @Test("the system's libcurl loads at run time, new enough, with TLS; the transport names what it decodes")
    func libraryLoads() throws {
        let curl = try CurlLibrary.system.get()
        #expect(CurlLibrary.candidateNames.contains(curl.name))
        #expect(curl.versionNumber >= CurlLibrary.minimumVersionNumber)
        #expect(curl.version.split(separator: ".").count == 3)
        // FoundationNetworking's libcurl serves https.
        #expect(curl.features.contains(.ssl))
        #expect(curl.sslVersion != nil)
        if curl.features.contains(.libz) { #expect(curl.libzVersion != nil) }
        // It asks for what the transport decodes with the libraries loaded beside libcurl.
        let decoders = curl.contentDecoders
        #expect(decoders.zlibVersion != nil)
        #expect(curl.acceptedEncodings?.hasSuffix("gzip, deflate") == true)
        #expect((decoders.brotliVersion != nil) == (curl.acceptedEncodings?.contains("br") == true))
        #expect((decoders.zstdVersion != nil) == (curl.acceptedEncodings?.contains("zstd") == true))
    }

    @Test("a library that isn't there, or isn't libcurl, is refused with the reason")
    func refusedLibraries() {
        let missing = CurlLibrary.problem(opening: "libjewzruxin-no-such-library.so.4")
        #expect(missing?.contains("libjewzruxin-no-such-library.so.4") == true)
        let notCurl = CurlLibrary.problem(opening: "libz.so.1")
        #expect(notCurl?.contains("curl_global_init") == true)
        #expect(CurlLibrary.problem(opening: "libcurl.so.4") == nil)
    }

    /// The head `lines` make, fed one at a time (to a reader of a request that asked to upgrade
    /// when `upgrade`).
    private func head(_ lines: [String], upgrade: Bool = false) throws -> (CurlHeadReader.Head?, delivered: Bool) {
        var reader = CurlHeadReader()
        reader.upgradeRequested = upgrade
        var result: CurlHeadReader.Head?
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            if let head = try bytes.withUnsafeBytes({ try reader.read($0) }) { result = head }
        }
        return (result, reader.isDelivered)
    }

    /// The error the lines make, if any.
    private func failure(_ lines: [String], limit: Int = ResponseRules.defaultHeadLimit) -> ResponseDecodingError? {
        var reader = CurlHeadReader()
        reader.limit = limit
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            let read = bytes.withUnsafeBytes { bytes in Result { () throws(ResponseDecodingError) in try reader.read(bytes) } }
            if case .failure(let error) = read { return error }
        }
        return nil
    }

    @Test("the head reader applies the rules of every transport: fields, framing, the head limit")
    func headRules() {
        #expect(failure(["HTTP/1.1 200 OK", "X-Cr: a\rSet-Cookie: injected=1", ""]) == .badHeaderField)
        #expect(failure(["HTTP/1.1 200 OK", "Broken header", ""]) == .badHeaderField)
        #expect(failure(["HTTP/1.1 200 OK", "Name : value", ""]) == .badHeaderField)
        #expect(failure(["HTTP/1.1 200 OK", " folded onto nothing", ""]) == .badHeaderField)
        #expect(failure(["HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 7", ""]) == .badContentLength)
        #expect(failure(["HTTP/1.1 200 OK", "Content-Length: +5", ""]) == .badContentLength)
        #expect(failure(["HTTP/1.1 200 OK", "Content-Length: 5, 5", ""]) == nil)
        #expect(failure(["HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked", ""]) == .badTransferEncoding)
        #expect(failure(["HTTP/1.1 200 OK", "Transfer-Encoding: chunked, x-unknown", ""]) == .badTransferEncoding)
        #expect(failure(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", ""]) == .unsolicitedUpgrade)
        #expect(failure(["", "HTTP/1.1 200 OK", ""]) == .badStatusLine)
        // A HEAD response's framing fields are not read.
        var reader = CurlHeadReader()
        reader.isHeadRequest = true
        var delivered = false
        for line in ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: x-unknown\r\n", "\r\n"] {
            delivered = (try? Array(line.utf8).withUnsafeBytes { try reader.read($0) }) != nil
        }
        #expect(delivered)
        // Interim heads count against the limit with the final head.
        let interim = Array(repeating: ["HTTP/1.1 103 Early Hints", ""], count: 100).flatMap { $0 }
        #expect(failure(interim + ["HTTP/1.1 200 OK", ""], limit: 1024) == .headerTooLarge(limit: 1024))
        #expect(failure(interim + ["HTTP/1.1 200 OK", ""], limit: 4096) == nil)
    }

    @Test("a head: status line, fields in order, folded values; HTTP/2's status line has no reason")
    func headLines() throws {
        let (one, delivered) = try head(["HTTP/1.1 200 OK", "Content-Type: text/plain", "X-Folded: a", "  b", "Set-Cookie: k=1", "set-cookie: j=2", ""])
        #expect(delivered)
        #expect(one?.version == "HTTP/1.1")
        #expect(one?.status == 200)
        #expect(one?.reason == "OK")
        #expect(one?.fields.map(\.name) == ["Content-Type", "X-Folded", "Set-Cookie", "set-cookie"])
        #expect(one?.fields[1].value == "a b")
        #expect(one?.setCookies == ["k=1", "j=2"])
        let (two, _) = try head(["HTTP/2 404", "content-length: 3", ""])
        #expect(two?.version == "HTTP/2")
        #expect(two?.status == 404)
        #expect(two?.reason == "")
    }

    @Test("interim heads are dropped, lines after the final head (trailers) ignored, 101 is final when asked for")
    func interimAndTrailers() throws {
        let (final, delivered) = try head(["HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a>", "", "HTTP/1.1 201 Created", "", "X-Trailer: 1", ""])
        #expect(delivered)
        #expect(final?.status == 201)
        #expect(final?.fields.isEmpty == true)
        let (switching, _) = try head(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", ""], upgrade: true)
        #expect(switching?.status == 101)
        let (none, nothing) = try head(["HTTP/1.1 100 Continue", ""])
        #expect(none == nil)
        #expect(!nothing)
    }

    @Test("libcurl's result codes map to URLSession's URLError codes; the message and code are kept")
    func resultCodes() throws {
        let url = try #require(URL(string: "http://h/"))
        #expect(CurlErrors.urlErrorCode(for: 6) == .cannotFindHost)
        #expect(CurlErrors.urlErrorCode(for: 7) == .cannotConnectToHost)
        #expect(CurlErrors.urlErrorCode(for: 28) == .timedOut)
        #expect(CurlErrors.urlErrorCode(for: 52) == .networkConnectionLost)
        #expect(CurlErrors.urlErrorCode(for: 60) == .serverCertificateUntrusted)
        #expect(CurlErrors.urlErrorCode(for: 61) == .cannotDecodeContentData)
        #expect(CurlErrors.urlErrorCode(for: 9_999) == .unknown)
        let error = CurlErrors.urlError(code: 7, message: "Failed to connect to h port 80", url: url)
        #expect(error.code == .cannotConnectToHost)
        #expect(error.localizedDescription == "Failed to connect to h port 80")
        #expect(error.userInfo["CURLcode"] as? Int == 7)
        #expect(error.failingURL == url)

        // A CONNECT an HTTP proxy refused; a 2xx answer, or none, leaves libcurl's code as it is.
        let refused = CurlErrors.urlError(code: 56, message: "CONNECT tunnel failed, response 502", url: url, proxy: "p:3128", connectStatus: 502)
        #expect(refused.code == .cannotConnectToHost)
        #expect(refused.localizedDescription == "The proxy p:3128 refused the tunnel with status 502: CONNECT tunnel failed, response 502")
        #expect(CurlErrors.urlError(code: 56, message: nil, url: url, proxy: "p:3128", connectStatus: 407).code == .userAuthenticationRequired)
        #expect(CurlErrors.urlError(code: 56, message: nil, url: url, proxy: "p:3128", connectStatus: 200).code == .networkConnectionLost)
        #expect(CurlErrors.urlError(code: 56, message: nil, url: url, connectStatus: 407).code == .networkConnectionLost)
    }

    @Test("a session on .curl sends http and https to it; nothing else is routed to URLSession")
    func routing() {
        let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl)
        #expect(session.transport is CurlTransport)
        #expect(session.transport(for: URL(string: "https://example.com/")) is CurlTransport)
        #expect(session.transport(for: URL(string: "http://example.com/")) is CurlTransport)
        #expect(session.core == nil)
    }

    @Test("a request is started by the thread that sends it when the loop's drive is free, else by the loop's thread")
    func startsOnTheCallingThread() async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl)
            for _ in 0..<5 {
                #expect(try await HTTPCycle.get(sandbox.string("/hello/"), session: session).response.statusCode == 200)
            }
            // One after another, the requests all went to the first loop.
            let group = try #require((session.transport as? CurlTransport)?.loopGroup)
            #expect(group.startedLoops == 1)
            let loop = try #require(group.firstLoop)
            let free = loop.startCounts()
            #expect(free.here + free.onLoop == 5)
            // The loop's thread takes the drive only for a round of events, rarely just as a request
            // starts. (A libcurl that resolves names on the driving thread starts none here.)
            if try CurlLibrary.system.get().features.contains(.asynchronousDNS) {
                #expect(free.here >= 3)
            }

            let url = sandbox.string("/hello/")
            let status = await withHandover { (continuation: Handover<Int, Never>) in
                loop.holdingDrive {
                    do {
                        try HTTPCycle.get(url, session: session) { cycle, error in
                            continuation.resume(returning: error == nil ? cycle.response.statusCode ?? 0 : -1)
                        }
                    } catch {
                        continuation.resume(returning: -2)
                    }
                }
            }
            #expect(status == 200)
            let held = loop.startCounts()
            #expect(held.onLoop == free.onLoop + 1)
            #expect(held.here == free.here)
        }
    }

    @Test("requests handed to the loop's thread at once wake it once, and all go out")
    func handedOverTogether() async throws {
        try await withSandbox { sandbox in
            let session = oneLoopCurlSession()
            #expect(try await HTTPCycle.get(sandbox.string("/hello/"), session: session).response.statusCode == 200)
            let loop = try #require((session.transport as? CurlTransport)?.loopGroup?.firstLoop)
            let wakesBefore = loop.inboxWakes()
            let count = 8
            let url = sandbox.string("/hello/")
            let statuses = await withHandover { (continuation: Handover<[Int], Never>) in
                let collected = Locked([Int]())
                @Sendable func record(_ status: Int) {
                    let all = collected.withLock { $0.append(status); return $0 }
                    if all.count == count { continuation.resume(returning: all) }
                }
                // Held, the drive keeps the loop's thread from taking the inbox: the requests all
                // wait in it, and only the first finds it empty.
                loop.holdingDrive {
                    for _ in 0..<count {
                        do {
                            try HTTPCycle.get(url, session: session) { cycle, error in
                                record(error == nil ? cycle.response.statusCode ?? 0 : -1)
                            }
                        } catch {
                            record(-2)
                        }
                    }
                }
            }
            #expect(statuses == Array(repeating: 200, count: count))
            #expect(loop.inboxWakes() == wakesBefore + 1)
        }
    }

    @Test("each response on curl has its attempt's metrics: times in order, protocol, addresses, sizes, reuse")
    func metrics() async throws {
        try await withSandbox { sandbox in
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl)
            let first = try await HTTPCycle.get(sandbox.string("/bytes/1000"), session: session)
            let metrics = try #require(first.response.metrics)
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.remotePort == sandbox.baseURL.port)
            #expect(metrics.localAddress == "127.0.0.1")
            #expect(metrics.localPort != nil)
            #expect(metrics.tlsHandshake == nil)
            #expect(metrics.responseBodyBytes == 1000)
            #expect(metrics.requestBodyBytes == 0)
            #expect(metrics.responseHeaderBytes > 0)
            #expect(!metrics.reusedConnection)
            #expect(metrics.total > 0)
            #expect(metrics.nameLookup <= metrics.connect)
            #expect(metrics.connect <= metrics.requestStart)
            #expect(metrics.requestStart <= metrics.firstByte)
            #expect(metrics.firstByte <= metrics.total)

            let second = try await HTTPCycle.upload(sandbox.string("/dumpupload/"), source: .data(Data("again".utf8)), session: session)
            let reused = try #require(second.response.metrics)
            #expect(reused.reusedConnection)
            #expect(reused.requestBodyBytes == 5)
        }
    }

    @Test("connections a burst opened are kept for the next burst, however few transfers ran in between")
    func connectionsOutliveABurst() async throws {
        try await withSandbox { sandbox in
            var configuration = HTTPSession.Configuration(.ephemeral)
            configuration.httpMaximumConnectionsPerHost = 8
            let session = HTTPSession(configuration: configuration, delegateQueue: OperationQueue(), transport: .curl)
            // Eight answers 0.2 s late: eight connections at once.
            @Sendable func burst() async throws {
                try await withThrowingTaskGroup(of: Int?.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await HTTPCycle.get(sandbox.string("/echo/?delay=0.2"), session: session).response.statusCode }
                    }
                    for try await status in group { #expect(status == 200) }
                }
            }
            try await burst()
            let opened = sandbox.acceptedConnectionCount
            #expect(opened == 8)
            // One transfer alone: libcurl sized its idle cache from the transfers it had at that
            // moment (four per transfer), and closed the others.
            #expect(try await HTTPCycle.get(sandbox.string("/hello/"), session: session).response.statusCode == 200)
            try await burst()
            #expect(sandbox.acceptedConnectionCount == opened, "the second burst opened connections again")
        }
    }

    @Test("the per-host limit is shared out between the loops: never more than the limit in all")
    func loopShares() {
        #expect(CurlLoopGroup.shares(of: 6, loops: 2) == [3, 3])
        #expect(CurlLoopGroup.shares(of: 5, loops: 2) == [3, 2])
        #expect(CurlLoopGroup.shares(of: 7, loops: 4) == [2, 2, 2, 1])
        #expect(CurlLoopGroup.shares(of: 2, loops: 4) == [1, 1])
        #expect(CurlLoopGroup.shares(of: 1, loops: 4) == [1])
        #expect(CurlLoopGroup.shares(of: 6, loops: 1) == [6])
    }

    @Test("requests one after another stay on one loop and one connection; side by side they spread, within the limit")
    func loopsSpreadWithinTheLimit() async throws {
        try await withSandbox { sandbox in
            var options = CurlTransport.Options()
            options.maximumLoops = 2
            options.maximumConnectionsPerHost = 3
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl(options))
            for _ in 0..<6 {
                #expect(try await HTTPCycle.get(sandbox.string("/hello/"), session: session).response.statusCode == 200)
            }
            let group = try #require((session.transport as? CurlTransport)?.loopGroup)
            #expect(group.shares == [2, 1])
            #expect(group.startedLoops == 1)
            #expect(sandbox.acceptedConnectionCount == 1)

            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<24 {
                    tasks.addTask {
                        let cycle = try await HTTPCycle.get(
                            sandbox.string("/echo/"), parameters: ["content": "\(index)", "delay": "0.02"], session: session)
                        #expect(cycle.response.text == "\(index)")
                    }
                }
                try await tasks.waitForAll()
            }
            #expect(group.startedLoops == 2)
            // The first loop's connection, one more of its own, and one of the second's.
            #expect(sandbox.acceptedConnectionCount <= 3)
        }
    }

    @Test("GET, POST with a body and a file upload reach the sandbox through libcurl")
    func againstTheSandbox() async throws {
        try await withSandbox { sandbox in
            // Serial: the progress calls run in order, before the completion.
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = HTTPSession(configuration: .ephemeral, delegateQueue: queue, transport: .curl)
            let hello = try await HTTPCycle.get(sandbox.string("/hello/"), session: session)
            #expect(hello.response.statusCode == 200)
            #expect(hello.response.text == "Hello World")
            #expect(hello.response.value(forHTTPHeaderField: "content-type")?.hasPrefix("text/plain") == true)

            let echoed = try await HTTPCycle.post(sandbox.string("/echo/"), parameters: ["content": "posted"], session: session)
            #expect(echoed.response.text == "posted")

            // libcurl's own Accept, once; no Expect, so no 100-continue wait, and none on a GET.
            let get = try Inspection(try await HTTPCycle.get(sandbox.string("/inspect/"), session: session).response)
            #expect(get.values("Accept") == ["*/*"])
            #expect(get.values("Expect").isEmpty)
            let post = try Inspection(try await HTTPCycle.post(sandbox.string("/inspect/"), requestObject: Data("x".utf8),
                                                               requestProcessors: [HTTPDataProcessor()], session: session).response)
            #expect(post.values("Accept") == ["*/*"])
            #expect(post.values("Expect").isEmpty)
            #expect(post.body == "x")

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("curl-upload-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: file)
            let sent = Locked<[Int64]>([])
            let uploaded = try await HTTPCycle.upload(
                sandbox.string("/dumpupload/"), source: .file(file), session: session,
                didSendBodyDataHandler: { _, _, total, _ in sent.withLock { $0.append(total) } })
            #expect(uploaded.response.statusCode == 200)
            #expect(uploaded.response.data == bytes)
            #expect(sent.withLock { $0.last } == Int64(bytes.count))
        }
    }
}
