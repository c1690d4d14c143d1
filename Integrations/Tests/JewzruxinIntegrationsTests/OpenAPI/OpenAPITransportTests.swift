import Foundation
import HTTPTypes
import Jewzruxin
@testable import JewzruxinOpenAPI
import JewzruxinSandbox
import OpenAPIRuntime
import Testing

/// A client generated from `Generated/openapi.yaml`, over `JewzruxinClientTransport`, against the
/// sandbox.
@Suite struct OpenAPITransportTests {
    private func client(_ sandbox: Sandbox, session: HTTPSession = TestSessions.make(),
                        configuration: JewzruxinClientTransport.Configuration = .init()) -> Client {
        Client(serverURL: sandbox.baseURL, transport: JewzruxinClientTransport(session: session, configuration: configuration))
    }

    @Test func decodesADocumentedJSONResponse() async throws {
        try await Sandbox.withSandbox { sandbox in
            let output = try await client(sandbox).listStores(query: .init(zip: "15217"))
            let stores = try output.ok.body.json
            #expect(stores.map(\.name) == ["Squirrel Hill", "Greenfield"])
            #expect(stores.first?.address.city == "Pittsburgh")
        }
    }

    @Test func returnsA4xxAsAResponseWithItsBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            let client = client(sandbox)
            // GIVEN a zip the server refuses with a documented 400 and its error document
            let refused = try await client.listStores(query: .init(zip: "abc"))
            // THEN the generated client gets the 400 and decodes its body
            let error = try refused.badRequest.body.json
            #expect(error.code == "invalidZipCode")

            // A documented 404 is its case; any other status goes to `default`, with its body.
            let missing = try await client.getStatus(path: .init(code: 404))
            #expect(try await String(collecting: missing.notFound.body.plainText, upTo: 1024) == "status 404")
            guard case .default(let status, let other) = try await client.getStatus(path: .init(code: 418)) else {
                Issue.record("a 418 should reach the default response")
                return
            }
            #expect(status == 418)
            #expect(try await String(collecting: other.body.plainText, upTo: 1024) == "status 418")
        }
    }

    @Test func streamsAResponseBodyInChunks() async throws {
        try await Sandbox.withSandbox { sandbox in
            let count = 1 << 20
            let output = try await client(sandbox).getBytes(path: .init(count: count), query: .init(chunked: 1))
            let body = try output.ok.body.binary
            #expect(body.iterationBehavior == .single)
            var received = 0
            var chunks = 0
            var patterned = true
            for try await chunk in body {
                for (offset, byte) in chunk.enumerated() where byte != UInt8((received + offset) % 251) { patterned = false }
                received += chunk.count
                chunks += 1
            }
            #expect(received == count)
            #expect(patterned)
            #expect(chunks > 1)
        }
    }

    @Test func returnsTheHeadBeforeTheBodyHasArrived() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a body whose first byte comes 5 s after the head
            let start = ContinuousClock.now
            let output = try await client(sandbox).drip(query: .init(n: 2, interval: 5))
            // THEN the call returns long before it, with a body still to read (dropped unread
            // here, which cancels the request)
            #expect(ContinuousClock.now - start < .seconds(4))
            let body = try output.ok.body.plainText
            #expect(body.length == .known(2))
            #expect(body.iterationBehavior == .single)
        }
    }

    @Test func sendsAStreamedRequestBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a request body made of chunks, of a length not known in advance
            let chunks = (0..<64).map { index in ArraySlice(repeating: UInt8(index), count: 4096) }
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
            let output = try await client(sandbox).dumpUpload(body: .binary(HTTPBody(stream, length: .unknown)))
            let echoed = try await Data(collecting: output.ok.body.binary, upTo: 1 << 20)
            #expect(echoed == Data(chunks.joined()))
        }
    }

    @Test func streamsARequestBodyPastTheCollectingLimit() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a limit on collected bodies far below the body: only a streamed body gets through
            let client = client(sandbox, configuration: .init(maximumRequestBodySize: 1000))
            let body = Data((0..<300_000).map { UInt8($0 % 251) })
            let output = try await client.dumpUpload(body: .binary(HTTPBody(body)))
            let echoed = try await Data(collecting: output.ok.body.binary, upTo: 1 << 20)
            #expect(echoed == body)
        }
    }

    @Test func refusesARequestBodyOverTheLimitBeforeSendingIt() async throws {
        try await Sandbox.withSandbox { sandbox in
            // On URLSession, which can't stream a request body on Linux, the body is collected.
            let client = client(sandbox, session: HTTPSession(configuration: .ephemeral, transport: .urlSession),
                                configuration: .init(maximumRequestBodySize: 1000))
            await #expect {
                _ = try await client.dumpUpload(body: .binary(HTTPBody(Data(count: 1001))))
            } throws: { error in
                (error as? ClientError)?.underlyingError as? JewzruxinClientTransportError == .requestBodyTooLarge(limit: 1000)
            }
        }
    }

    @Test func cancellingTheCallingTaskCancelsTheRequest() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a server that holds its answer until the test opens the gate
            let gate = Gate()
            sandbox.route("/inspect") { _ in
                gate.pass()
                return .text("too late")
            }
            defer { gate.open() }
            let client = client(sandbox)
            let call = Task { try await client.inspect() }
            #expect(await gate.waitUntilReached())
            // WHEN the task is cancelled while the request waits for its answer
            call.cancel()
            // THEN the call ends at once with a cancellation, without the answer
            let result = await call.result
            #expect(throws: CancellationError.self) {
                do { _ = try result.get() } catch let error as ClientError { throw error.underlyingError }
            }
        }
    }

    @Test func cancellingWhileReadingTheBodyStopsIt() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a body that would take 20 s to arrive, one byte a second
            let client = client(sandbox)
            let (firstByte, reached) = AsyncStream.makeStream(of: Void.self)
            let reader = Task {
                let output = try await client.drip(query: .init(n: 20, interval: 1))
                var count = 0
                for try await chunk in try output.ok.body.plainText {
                    count += chunk.count
                    reached.yield()
                }
                return count
            }
            for await _ in firstByte { break }
            // WHEN the reading task is cancelled
            let cancelled = ContinuousClock.now
            reader.cancel()
            // THEN the loop throws well before the body would have ended
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            #expect(ContinuousClock.now - cancelled < .seconds(5))
        }
    }

    @Test func retriesAGetButNeverResendsAPost() async throws {
        try await Sandbox.withSandbox { sandbox in
            let client = client(sandbox)
            // GIVEN an endpoint that answers 503 once per key, then 200
            let getKey = TestSessions.uniqueKey("get")
            let got = try await client.getFlaky(query: .init(key: getKey, fail: 1))
            // THEN a GET is resent, as the session's policy says, and the client sees the 200
            #expect(try await String(collecting: got.ok.body.plainText, upTo: 1024) == "ok after 1 failures")
            #expect(sandbox.requestCount(forFlakyKey: getKey) == 2)

            let postKey = TestSessions.uniqueKey("post")
            let posted = try await client.postFlaky(query: .init(key: postKey, fail: 1))
            // THEN a POST goes once, and its 503 is the client's answer
            guard case .default(let status, _) = posted else {
                Issue.record("the POST's 503 should reach the default response, got \(posted)")
                return
            }
            #expect(status == 503)
            #expect(sandbox.requestCount(forFlakyKey: postKey) == 1)
        }
    }

    @Test func resendsAPostTheCycleAllows() async throws {
        try await Sandbox.withSandbox { sandbox in
            // GIVEN a transport whose postFlaky cycles may be sent twice (the server dedupes them)
            let configuration = JewzruxinClientTransport.Configuration { cycle, operationID in
                if operationID == "postFlaky" { cycle.retryableMethods = [.post] }
            }
            let key = TestSessions.uniqueKey()
            let posted = try await client(sandbox, configuration: configuration).postFlaky(query: .init(key: key, fail: 1))
            #expect(try await String(collecting: posted.ok.body.plainText, upTo: 1024) == "ok after 1 failures")
            #expect(sandbox.requestCount(forFlakyKey: key) == 2)
        }
    }

    @Test func sendsHeaderParametersAndTheBaseURLPath() async throws {
        try await Sandbox.withSandbox { sandbox in
            let output = try await client(sandbox).inspect(headers: .init(X_hyphen_Request_hyphen_Tag: "blue"))
            let report = try output.ok.body.json
            #expect(report.method == "GET")
            #expect(report.path == "/inspect/")
            #expect(report.headers.contains(["X-Request-Tag", "blue"]) || report.headers.contains(["x-request-tag", "blue"]))
        }
    }

    @Test func joinsTheServerURLPathAndTheOperationPath() throws {
        var request = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/stores/?zip=15217")
        request.path = "/stores/?zip=15217"
        let base = try #require(URL(string: "http://127.0.0.1:8080/api/v1/"))
        let url = try JewzruxinClientTransport.url(of: request, baseURL: base)
        #expect(url.absoluteString == "http://127.0.0.1:8080/api/v1/stores/?zip=15217")
    }
}
