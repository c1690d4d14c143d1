import Foundation
@testable import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTestSupport
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The fault matrix (issue #9) through the fluent API: `WebService` / `ServiceTask` with response
// and error handlers, and the async twins. Each case says what the task must end with; every run
// also checks that exactly one handler ran, that the session has no transfer left, that the
// session's activity indicator is back to zero, and that no partial or temporary file is left.

/// Where a fault case's body goes.
enum FluentFaultBody: Sendable {
    /// The cycle's own handler: memory, any size.
    case memory
    /// An `Accumulator` with this `maximumSize`, set on the task's cycle.
    case capped(Int)
    /// `downloadToFile(_:)` into a fresh directory.
    case file
}

/// The deadline of the cases where a transport might loop (a redirect loop, a chain longer than the
/// limit): it only has to stop a loop that never ends. The 17 requests such a case sends took more
/// than 5 s on URLSession on a loaded 2-core machine (FoundationNetworking's one work queue), which
/// a 5 s deadline turned into a failure; the cases are about the redirect limit, not the clock.
private let loopDeadline: TimeInterval = 30

/// One row of the matrix.
struct FluentFaultCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// The path and query on the sandbox; `nil` for a port that refuses connections.
    let path: String?
    var body: FluentFaultBody = .memory
    let expectation: FaultExpectation
    /// Retries allowed (50 ms apart unless `Retry-After` says otherwise); none by default.
    var retries = 0
    /// The request timeout (`.timeout` option), short so that stalls end fast.
    var requestTimeout: TimeInterval = 1.5
    /// The run's deadline, for cases where a transport might loop (``loopDeadline``).
    var resourceTimeout: TimeInterval?
    /// Answer 401s with Basic credentials (which `/fault/unauthorized` refuses).
    var credentials = false
    /// How many requests the sandbox must have counted for the fault key `k`.
    var serverCount: Int?
    /// Why URLSession (FoundationNetworking) fails this case; the expectation is then checked as a
    /// known issue there. The native and curl transports must pass it.
    var urlSessionIssue: String?
    /// FoundationNetworking traps on this fault, taking the test process down: not run on URLSession.
    var crashesFoundationNetworking = false

    /// How the case must end on the native transport, when it differs.
    var onNative: FaultExpectation?

    /// The request timeout on the transport under test. FoundationNetworking traps when its
    /// timer fires while the question of a redirect waits for its delegate queue ("Received
    /// callback for HTTP redirection, but we're not waiting for it", L20), which a loaded machine
    /// makes wait longer than a second: on URLSession a redirect case gets a timeout that can't
    /// fire first. None of them is about the timeout.
    var requestTimeoutOnTransport: TimeInterval {
        let redirects = path?.contains("/redirect-") ?? false
        return TransportUnderTest.current == .urlSession && redirects ? 60 : requestTimeout
    }

    /// How the case must end on the transport under test.
    var expected: FaultExpectation {
        TransportUnderTest.current == .native ? onNative ?? expectation : expectation
    }

    /// The known issue on the transport under test.
    var issue: String? {
        TransportUnderTest.current == .urlSession ? urlSessionIssue : nil
    }

    var testDescription: String { name }
}

private func pattern(_ count: Int) -> Data { SandboxBody.expectedPattern(count: count) }

let fluentFaultCases: [FluentFaultCase] = [
    FluentFaultCase(name: "connection refused", path: nil, expectation: .transport([.cannotConnectToHost])),
    FluentFaultCase(name: "close before headers", path: "/fault/close-before-headers", expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "close mid-headers", path: "/fault/close-mid-headers", expectation: .transport(faultDroppedCodes),
                    crashesFoundationNetworking: true),
    FluentFaultCase(name: "close mid-body (Content-Length)", path: "/fault/close-mid-body?length=100000&sent=50000",
                    expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "close mid-body (chunked)", path: "/fault/close-mid-chunked?sent=50000&chunk=1000",
                    expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "reset before the response", path: "/fault/reset", expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "reset mid-body", path: "/fault/reset?sent=120", expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "stall: headers never come", path: "/fault/stall?seconds=20", expectation: .transport([.timedOut]),
                    requestTimeout: 1),
    FluentFaultCase(name: "slow drip within the timeout", path: "/fault/slow-body?n=20&interval_ms=20", expectation: .success(pattern(20))),
    FluentFaultCase(name: "503 storm, retried until 200", path: "/fault/retry-after?key=k&n=2&seconds=0",
                    expectation: .text("ok after 2 failures"), retries: 3, serverCount: 3),
    FluentFaultCase(name: "503 storm beyond the retries", path: "/fault/retry-after?key=k&n=100&seconds=0",
                    expectation: .status(503), retries: 2, serverCount: 3),
    FluentFaultCase(name: "401 forever, no credentials", path: "/fault/unauthorized?key=k", expectation: .status(401), serverCount: 1),
    FluentFaultCase(name: "401 forever, credentials refused", path: "/fault/unauthorized?key=k", expectation: .status(401),
                    credentials: true, serverCount: 2),
    FluentFaultCase(name: "redirect loop (302)", path: "/fault/redirect-loop/a?key=k", expectation: .transport([.httpTooManyRedirects]),
                    resourceTimeout: loopDeadline),
    FluentFaultCase(name: "redirect loop (307)", path: "/fault/redirect-loop/a?key=k&code=307",
                    expectation: .transport([.httpTooManyRedirects]), resourceTimeout: loopDeadline, serverCount: 17),
    FluentFaultCase(name: "redirect chain of 5 (302)", path: "/fault/redirect-chain/5?key=k", expectation: .text("end of chain"),
                    serverCount: 6),
    FluentFaultCase(name: "redirect chain too long (307)", path: "/fault/redirect-chain/17?key=k&code=307",
                    expectation: .transport([.httpTooManyRedirects]), serverCount: 17),
    FluentFaultCase(name: "redirect chain too long (302)", path: "/fault/redirect-chain/60?key=k",
                    expectation: .transport([.httpTooManyRedirects]), resourceTimeout: loopDeadline),
    FluentFaultCase(name: "complete gzip (control)", path: "/fault/truncated-gzip?n=5000&cut=0", expectation: .success(pattern(5000)), onNative: .gzipAsSent),
    FluentFaultCase(name: "truncated gzip", path: "/fault/truncated-gzip?n=5000", expectation: .transport(faultDecodingCodes),
                    urlSessionIssue: truncatedGzipIssue, onNative: .gzipAsSent),
    FluentFaultCase(name: "corrupt gzip (CRC-32)", path: "/fault/corrupt-gzip?n=5000", expectation: .transport(faultDecodingCodes),
                    urlSessionIssue: corruptGzipIssue, onNative: .gzipAsSent),
    FluentFaultCase(name: "complete deflate (control)", path: "/fault/truncated-deflate?n=5000&cut=0", expectation: .success(pattern(5000)),
                    onNative: .zlibAsSent),
    FluentFaultCase(name: "truncated deflate", path: "/fault/truncated-deflate?n=5000", expectation: .transport(faultDecodingCodes),
                    urlSessionIssue: truncatedDeflateIssue, onNative: .zlibAsSent),
    FluentFaultCase(name: "over the Accumulator cap (Content-Length)", path: "/fault/large?n=200000", body: .capped(100_000),
                    expectation: .content(.contentTooLarge)),
    FluentFaultCase(name: "over the Accumulator cap (chunked)", path: "/fault/large?n=200000&chunked=1", body: .capped(100_000),
                    expectation: .content(.contentTooLarge)),
    FluentFaultCase(name: "within the Accumulator cap", path: "/fault/large?n=100000&chunked=1", body: .capped(100_000),
                    expectation: .success(pattern(100_000))),
    FluentFaultCase(name: "downloadToFile: close mid-body", path: "/fault/close-mid-body?length=100000&sent=50000", body: .file,
                    expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "downloadToFile: reset mid-body", path: "/fault/reset?sent=120", body: .file, expectation: .transport(faultDroppedCodes)),
    FluentFaultCase(name: "downloadToFile: stall", path: "/fault/stall?seconds=20", body: .file, expectation: .transport([.timedOut]),
                    requestTimeout: 1),
    FluentFaultCase(name: "downloadToFile: 503 storm", path: "/fault/retry-after?key=k&n=100&seconds=0", body: .file,
                    expectation: .status(503), retries: 1, serverCount: 2),
    FluentFaultCase(name: "downloadToFile: truncated gzip", path: "/fault/truncated-gzip?n=5000", body: .file,
                    expectation: .transport(faultDecodingCodes), urlSessionIssue: truncatedGzipIssue, onNative: .gzipAsSent),
    FluentFaultCase(name: "downloadToFile: corrupt gzip (CRC-32)", path: "/fault/corrupt-gzip?n=5000", body: .file,
                    expectation: .transport(faultDecodingCodes), urlSessionIssue: corruptGzipIssue, onNative: .gzipAsSent),
    FluentFaultCase(name: "downloadToFile: slow drip succeeds", path: "/fault/slow-body?n=20&interval_ms=20", body: .file,
                    expectation: .success(pattern(20))),
]

/// The fluent API a case runs through.
enum FluentAPI: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// `.response { … }.responseError { … }`.
    case handlers
    /// `try await task.response()`.
    case async

    var testDescription: String { rawValue }
}

/// Waits until the session has no transfer in flight and its delegate queue has run the calls
/// handed to it so far (through its delivery: see `HTTPSession.drain()` in the core tests).
private func settle(_ session: HTTPSession) async {
    await session.transfers.whenIdle()
    await withHandover { (continuation: Handover<Void, Never>) in
        session.handlerLine.enqueue { continuation.resume() }
    }
}

@Suite("Fault matrix: fluent handlers and async twins", .onEveryTransport)
struct FluentFaultMatrixTests {
    @Test("each fault ends as expected, one handler once, leaving nothing behind", arguments: fluentFaultCases, FluentAPI.allCases)
    func fault(_ faultCase: FluentFaultCase, api: FluentAPI) async throws {
        if faultCase.crashesFoundationNetworking, TransportUnderTest.current == .urlSession {
            withKnownIssue("FoundationNetworking traps (NativeProtocol.swift:240, \"Transfer completed, but there's no response.\") when the connection closes inside the header section; not run on URLSession") {
                Issue.record("not run on URLSession")
            }
            return
        }
        try await withSandbox { sandbox in
            let closed = try RefusingPort()
            defer { withExtendedLifetime(closed) {} }
            let path = faultCase.path ?? closed.url("/hello/")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FluentFaultMatrix-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("body.bin")

            let session = makeSession()
            session.retryPolicy = RetryPolicy(maximumRetryCount: faultCase.retries, retryDelay: 0.05)
            let indicator = NetworkActivityIndicator()
            session.networkActivityIndicator = indicator
            session.downloadDirectory = directory
            if faultCase.credentials {
                session.authentications = [BasicAuthentication(username: "wrong", password: "credentials")]
            }
            let service = makeService(sandbox, session: session)

            // Configured through the task, the chain written in one go (`chain(on:_:)`).
            let task = chain(on: service) {
                let task = service.GET(path, options: [.timeout(faultCase.requestTimeoutOnTransport)])
                    .configure { $0.timeoutIntervalForResource = faultCase.resourceTimeout }
                switch faultCase.body {
                case .memory: break
                case .capped(let limit): task.contentHandler(Accumulator(maximumSize: limit))
                case .file: task.downloadToFile(destination.path)
                }
                return task
            }

            let calls = Recorder()
            let result = Mutex<Result<HTTPResponse, any Error>?>(nil)
            switch api {
            case .handlers:
                let done = Event()
                task.response { response, _ in
                    calls.record("success")
                    result.withLock { $0 = .success(response) }
                    done.fire()
                }
                .responseError { error in
                    calls.record("error")
                    result.withLock { $0 = .failure(error) }
                    done.fire()
                }
                #expect(await done.wait(), "a handler ran")
            case .async:
                do {
                    let response = try await task.response()
                    result.withLock { $0 = .success(response) }
                } catch {
                    result.withLock { $0 = .failure(error) }
                }
                calls.record("returned")
            }

            await settle(session)
            #expect(calls.all.count == 1, "handler calls: \(calls.all)")
            #expect(session.runningTaskCount == 0)
            #expect(indicator.count == 0, "activity indicator")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)

            let outcome = try #require(result.withLock { $0 })
            let check = {
                switch (faultCase.expected, outcome) {
                case (.success(let expected), .success(let response)):
                    let body: Data? = switch faultCase.body {
                    case .memory: response.data
                    case .capped: response.content as? Data
                    case .file: try? Data(contentsOf: destination)
                    }
                    #expect(body == expected, "body of \(body?.count ?? -1) bytes, expected \(expected.count)")
                case (.encodedAsSent(let prefix), .success(let response)):
                    let body: Data? = if case .file = faultCase.body { try? Data(contentsOf: destination) } else { response.data }
                    #expect(body?.prefix(prefix.count) == prefix, "the encoded body as sent")
                case (.transport(let codes), .failure(HTTPError.transport(let urlError))):
                    #expect(codes.contains(urlError.code), "expected \(faultCase.expected), got \(urlError.code.rawValue): \(urlError)")
                case (.status(let status), .failure(HTTPError.statusCodeSeemsToHaveErred(let response))):
                    #expect(response.statusCode == status)
                case (.content(let code), .failure(let error as ContentHandlerError)):
                    #expect(error.code == code, "\(error)")
                default:
                    Issue.record("expected \(faultCase.expected), got \(outcome)")
                }
                if let count = faultCase.serverCount {
                    #expect(sandbox.requestCount(forFaultKey: "k") == count, "requests the server got")
                }
                let succeeds = switch faultCase.expected { case .success, .encodedAsSent: true; default: false }
                let allowed: [String] = if succeeds, case .file = faultCase.body { ["body.bin"] } else { [] }
                #expect(left == allowed, "files left in the directory")
            }
            if let issue = faultCase.issue {
                withKnownIssue(Comment(rawValue: issue), isIntermittent: true) { check() }
            } else {
                check()
            }
        }
    }
}
