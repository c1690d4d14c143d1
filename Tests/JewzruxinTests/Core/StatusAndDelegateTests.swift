import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// A delegate that lets every status through (seed: SessionDelegateNoneStatusFailure).
final class NoStatusFailure: HTTPSessionDelegate {
    func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool { false }
}

/// A delegate that fails only 5xx responses.
final class OnlyServerErrorsFail: HTTPSessionDelegate {
    func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool { status >= 500 }
}

/// A delegate that keeps the default.
final class DefaultDelegate: HTTPSessionDelegate {}

@Suite("Status codes and the session delegate", .onEveryTransport)
struct StatusAndDelegateTests {
    @Test("4xx and 5xx end in a status error whose response and body stay readable", arguments: [400, 401, 404, 418, 500, 502, 503, 599])
    func errorStatuses(code: Int) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/"), parameters: ["code": code, "content": "body of \(code)"],
                                  session: makeSession(), completionHandler: $0)
            }
            let error = try #require(result.error as? HTTPError)
            #expect(error.statusCode == code)
            #expect(String(describing: error).contains("\(code)"))
            guard case .statusCodeSeemsToHaveErred(let response) = error else {
                Issue.record("expected a status error, got \(error)")
                return
            }
            #expect(response.text == "body of \(code)")
            #expect(result.response.statusCode == code)
            #expect(result.response.text == "body of \(code)")
        }
    }

    @Test("statuses below 400 succeed", arguments: [200, 201, 202, 203, 299, 399])
    func successStatuses(code: Int) async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/?code=\(code)&content=ok"), session: makeSession(), completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.statusCode == code)
        }
    }

    @Test("the delegate's shouldTreatStatusCodeAsFailure turns the failure off")
    func delegateOverride() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let delegate = NoStatusFailure()
            session.delegate = delegate
            let result = try await outcome { handler in
                let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/echo/?code=404"))), session: session)
                cycle.start(handler)
                return cycle
            }
            #expect(result.error == nil)
            #expect(result.response.statusCode == 404)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("the delegate decides per status")
    func delegatePerStatus() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let delegate = OnlyServerErrorsFail()
            session.delegate = delegate
            let notFound = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?code=404"), session: session, completionHandler: $0) }
            #expect(notFound.error == nil)
            let broken = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?code=500"), session: session, completionHandler: $0) }
            #expect((broken.error as? HTTPError)?.statusCode == 500)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("a delegate without the method keeps the default; the delegate is held weakly")
    func defaultDelegateAndWeakness() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            var delegate: DefaultDelegate? = DefaultDelegate()
            session.delegate = delegate
            let result = try await outcome { try HTTPCycle.get(sandbox.string("/echo/?code=400"), session: session, completionHandler: $0) }
            #expect((result.error as? HTTPError)?.statusCode == 400)
            #expect(session.delegate != nil)
            delegate = nil
            #expect(session.delegate == nil)
        }
    }

    @Test("response processors don't run for a status error")
    func noProcessingOnStatusError() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/?code=500&content=not%20json"), responseProcessors: [HTTPJSONProcessor()],
                                  session: makeSession(), completionHandler: $0)
            }
            #expect((result.error as? HTTPError)?.statusCode == 500)
            #expect(result.response.object == nil)
            #expect(result.response.text == "not json")
        }
    }

    @Test("a malformed JSON body gives a processor error and keeps the raw bytes")
    func malformedJSON() async throws {
        try await withSandbox { sandbox in
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/echo/?content=%7Bbroken"), responseProcessors: [HTTPJSONProcessor()],
                                  session: makeSession(), completionHandler: $0)
            }
            let error = try #require(result.error as? HTTPProcessorError)
            #expect(error.processor == "HTTPJSONProcessor")
            #expect(error.underlying != nil)
            #expect(result.response.data == Data("{broken".utf8))
            #expect(result.response.object == nil)
        }
    }

    @Test("session processors back cycles whose own are nil")
    func sessionBackedProcessors() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.requestProcessors = [HTTPJSONProcessor()]
            session.responseProcessors = [HTTPJSONProcessor()]
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: ["a": [1, 2]], session: session, completionHandler: $0)
            }
            #expect(result.error == nil)
            #expect(result.response.object as? JSON == ["a": [1, 2]])

            // A cycle's own (empty) list wins over the session's.
            let raw = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: Data("x".utf8), requestProcessors: [HTTPDataProcessor()],
                                   responseProcessors: [], session: session, completionHandler: $0)
            }
            #expect(raw.error == nil)
            #expect(raw.response.object == nil)
            #expect(raw.response.text == "x")
        }
    }

    @Test("a request processor that throws stops the request: nothing is sent")
    func throwingRequestProcessor() async throws {
        try await withSandbox { sandbox in
            let before = sandbox.acceptedConnectionCount
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: 42, requestProcessors: [HTTPDataProcessor()],
                                   session: makeSession(), completionHandler: $0)
            }
            let error = try #require(result.error as? HTTPProcessorError)
            #expect(error.processor == "HTTPDataProcessor")
            #expect(result.cycle.state == .finished)
            #expect(result.response.statusCode == nil)
            #expect(sandbox.acceptedConnectionCount == before)
        }
    }

    @Test("a request object with no request processor to take it is an error, not an empty body: nothing is sent")
    func requestObjectWithoutProcessors() async throws {
        try await withSandbox { sandbox in
            let before = sandbox.acceptedConnectionCount
            let result = try await outcome {
                try HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: ["a": 1], session: makeSession(), completionHandler: $0)
            }
            guard case HTTPError.unprocessedRequestObject(let type)? = result.error as? HTTPError else {
                Issue.record("expected unprocessedRequestObject, got \(String(describing: result.error))")
                return
            }
            #expect(type == "Dictionary<String, Int>")
            #expect(String(describing: try #require(result.error)).contains("no request processor"))
            #expect(result.cycle.state == .finished)
            #expect(result.response.statusCode == nil)
            // The cycle keeps the object, so a processor can be added and the cycle started again.
            #expect(result.cycle.request.object as? [String: Int] == ["a": 1])

            // The async twin throws it; an empty list of the cycle's own wins over the session's.
            let session = makeSession()
            session.requestProcessors = [HTTPJSONProcessor()]
            await #expect(throws: HTTPError.self) {
                _ = try await HTTPCycle.put(sandbox.string("/dumpupload/"), requestObject: Data("x".utf8), requestProcessors: [], session: session)
            }
            #expect(sandbox.acceptedConnectionCount == before)

            // With the session's processor, the same object is sent.
            let sent = try await HTTPCycle.post(sandbox.string("/dumpupload/"), requestObject: ["a": 1], session: session)
            #expect(sent.response.text == #"{"a":1}"#)
        }
    }
}
