import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

extension ContentHandlingTests {
    /// What every handler takes and refuses (seed 003: acceptableResponses, acceptableContentTypes).
    @Suite("Acceptable statuses and content types")
    struct SelectiveDiscarderTests {
        @Test("200, 201, 202 and 203 are taken by default: the body becomes the content", arguments: [200, 201, 202, 203])
        func defaultStatusesTaken(code: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = Accumulator()
                #expect(handler.acceptableResponses == [200, 201, 202, 203])
                #expect(handler.acceptableContentTypes.isEmpty)
                let result = try await fetchContent(sandbox.echo(code: code, content: "taken \(code)"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(result.response.statusCode == code)
                #expect(result.response.content as? Data == Data("taken \(code)".utf8))
                await settle(session)
            }
        }

        @Test("any other status the session lets through is refused, keeping status, headers and body", arguments: [204, 206, 226, 299])
        func otherStatusesRefused(code: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.echo(code: code, content: "refused \(code)", headers: ["X-Reason:api says no"])
                let result = try await fetchContent(url, handler: Accumulator(), session: session)
                let error = try #require(contentError(result, .unacceptableStatus))
                let body = code == 204 ? Data() : Data("refused \(code)".utf8)
                #expect(error.isRefusal)
                #expect(error.statusCode == code)
                #expect(error.reason.contains("status \(code)"))
                #expect(error.response?.data == body)
                #expect(error.response?.value(forHTTPHeaderField: "X-Reason") == "api says no")
                #expect(error.intermediateContent == nil)
                #expect(result.response.data == body)
                #expect(result.response.content == nil)
                await settle(session)
            }
        }

        @Test("a 404 the session doesn't treat as a failure is refused by the handler, body kept", arguments: [404, 500])
        func clientErrorRefusedByHandler(code: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let delegate = NoStatusFailure()
                session.delegate = delegate
                let result = try await fetchContent(sandbox.string("/status/\(code)"), handler: Accumulator(), session: session)
                let error = try #require(contentError(result, .unacceptableStatus))
                #expect(error.statusCode == code)
                #expect(error.response?.data == Data("status \(code)".utf8))
                await settle(session)
                withExtendedLifetime(delegate) {}
            }
        }

        @Test("a status of 400 or more still ends with statusCodeSeemsToHaveErred and its body, whatever the handler takes")
        func failureStatusWinsOverHandler() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                session.retryPolicy.maximumRetryCount = 0
                let handlers: [(String, any ContentHandler)] = [
                    ("/status/404", Accumulator()),
                    ("/status/500", Accumulator(acceptableResponses: [], acceptableContentTypes: [])),
                    ("/status/422", JSONParser()),
                    ("/status/410", SelectiveDiscarder.shared),
                ]
                for (path, handler) in handlers {
                    let result = try await fetchContent(sandbox.string(path), handler: handler, session: session)
                    let response = try #require(erredResponse(result), "\(path)")
                    let code = String(path.dropFirst("/status/".count))
                    #expect(response.statusCode == Int(code))
                    #expect(response.data == Data("status \(code)".utf8), "\(path)")
                    #expect(result.response.data == Data("status \(code)".utf8), "\(path)")
                    #expect(result.response.content == nil, "\(path)")
                }
                await settle(session)
            }
        }

        @Test("an empty list of statuses takes any status", arguments: [204, 206, 299, 404])
        func emptyStatusListTakesAny(code: Int) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let delegate = NoStatusFailure()
                session.delegate = delegate
                let handler = Accumulator(acceptableResponses: [])
                let result = try await fetchContent(sandbox.echo(code: code, content: "any"), handler: handler, session: session)
                #expect(result.error == nil)
                #expect(result.response.content as? Data == (code == 204 ? Data() : Data("any".utf8)))
                await settle(session)
                withExtendedLifetime(delegate) {}
            }
        }

        @Test("a list of statuses of your own replaces the default one")
        func ownStatusList() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = Accumulator(acceptableResponses: [201, 299])
                for (code, taken) in [(201, true), (299, true), (200, false), (202, false)] {
                    let result = try await fetchContent(sandbox.echo(code: code, content: "x"), handler: handler, session: session)
                    #expect((result.error == nil) == taken, "\(code): \(String(describing: result.error))")
                    if !taken { #expect(contentError(result, .unacceptableStatus)?.statusCode == code) }
                }
                await settle(session)
            }
        }

        @Test("types are compared ignoring case and parameters; a missing or invalid Content-Type is refused", arguments: [
            ("TEXT/Plain; Charset=UTF-8", true),
            ("text/plain;format=flowed", true),
            ("text/html; charset=utf-8", false),
            ("text/plainer", false),
            ("", false),
            ("not a media type", false),
        ])
        func typeList(contentType: String, taken: Bool) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = Accumulator(acceptableContentTypes: ["Text/Plain; charset=iso-8859-1"])
                let url = sandbox.echo(content: "typed", headers: ["Content-Type:\(contentType)"])
                let result = try await fetchContent(url, handler: handler, session: session)
                if taken {
                    #expect(result.error == nil)
                    #expect(result.response.content as? Data == Data("typed".utf8))
                } else {
                    let error = try #require(contentError(result, .unacceptableContentType))
                    #expect(error.isRefusal)
                    #expect(error.statusCode == 200)
                    #expect(error.response?.data == Data("typed".utf8))
                    #expect(result.response.content == nil)
                    if contentType.isEmpty { #expect(error.reason.contains("no Content-Type")) }
                }
                await settle(session)
            }
        }

        @Test("without a list, a response without Content-Type is taken")
        func noTypeListTakesMissingType() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.echo(content: "untyped", headers: ["Content-Type:"])
                let result = try await fetchContent(url, handler: Accumulator(), session: session)
                #expect(result.error == nil)
                #expect(result.response.value(forHTTPHeaderField: "Content-Type") == nil)
                #expect(result.response.content as? Data == Data("untyped".utf8))
                await settle(session)
            }
        }

        @Test("wildcard patterns: image/*, */* and application/*+json", arguments: [
            ("image/*", "image/png", true), ("image/*", "IMAGE/GIF; x=1", true), ("image/*", "text/png", false),
            ("*/*", "application/x-anything", true), ("*/*", "", false),
            ("application/*+json", "application/problem+json", true),
            ("application/*+json", "application/vnd.api+json; charset=utf-8", true),
            ("application/*+json", "application/json", false), ("application/*+json", "text/problem+json", false),
            ("*/*+json", "text/x+json", true),
        ])
        func wildcardPatterns(pattern: String, contentType: String, taken: Bool) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.echo(content: "p", headers: ["Content-Type:\(contentType)"])
                let result = try await fetchContent(url, handler: Accumulator(acceptableContentTypes: [pattern]), session: session)
                if taken {
                    #expect(result.error == nil, "\(String(describing: result.error))")
                } else {
                    #expect(contentError(result, .unacceptableContentType) != nil)
                }
                await settle(session)
            }
        }

        @Test("mediaType(_:matches:) on its own")
        func mediaTypeMatching() throws {
            func matches(_ type: String, _ pattern: String) throws -> Bool {
                SelectiveDiscarder.mediaType(try #require(MediaType(contentTypeHeader: type)), matches: pattern)
            }
            #expect(try matches("application/json", "application/json"))
            #expect(try matches("Application/JSON; charset=utf-8", "application/json;q=0.5"))
            #expect(try matches("application/json", " application/json "))
            #expect(try matches("application/json", "application/*"))
            #expect(try matches("text/json", "*/json"))
            #expect(try matches("application/geo+json", "*/*+json"))
            #expect(try !matches("application/json", "application/xml"))
            #expect(try !matches("application/json", "json"))
            #expect(try !matches("application/json", "application/*+json"))
            #expect(try !matches("application/xjson", "application/*+json"))
            #expect(try !matches("image/png", "image/pn*"))
        }

        @Test("SelectiveDiscarder.shared discards: no content, no data, the default statuses")
        func sharedDiscarder() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                #expect(SelectiveDiscarder.shared === SelectiveDiscarder.shared)
                let ok = try await fetchContent(sandbox.string("/bytes/70000"), handler: SelectiveDiscarder.shared, session: session)
                #expect(ok.error == nil)
                #expect(ok.response.statusCode == 200)
                #expect(ok.response.content == nil)
                #expect(ok.response.data.isEmpty)
                let refused = try await fetchContent(sandbox.echo(code: 206, content: "kept"), handler: SelectiveDiscarder.shared, session: session)
                let error = try #require(contentError(refused, .unacceptableStatus))
                #expect(error.response?.data == Data("kept".utf8))
                await settle(session)
            }
        }

        @Test("SelectiveDiscarder.shared serves concurrent cycles of several sessions")
        func sharedConcurrently() async throws {
            try await withSandbox { sandbox in
                let sessions = [makeSession(), makeSession(), makeSession()]
                let url = sandbox.string("/bytes/2000")
                try await withThrowingTaskGroup(of: Outcome.self) { group in
                    for index in 0..<30 {
                        group.addTask { try await fetchContent(url, handler: SelectiveDiscarder.shared, session: sessions[index % 3]) }
                    }
                    for try await result in group {
                        #expect(result.error == nil)
                        #expect(result.response.content == nil)
                    }
                }
                for session in sessions { await settle(session) }
            }
        }

        @Test("a plain SelectiveDiscarder with its own rules refuses like any handler and keeps nothing when it takes")
        func ownDiscarder() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let handler = SelectiveDiscarder(acceptableResponses: [200], acceptableContentTypes: ["application/octet-stream"])
                let taken = try await fetchContent(sandbox.string("/bytes/10"), handler: handler, session: session)
                #expect(taken.error == nil)
                #expect(taken.response.content == nil)
                let refused = try await fetchContent(sandbox.string("/hello/"), handler: handler, session: session)
                #expect(contentError(refused, .unacceptableContentType)?.response?.data == Data("Hello World".utf8))
                await settle(session)
            }
        }
    }
}

/// A handler many cycles share (``SelectiveDiscarder/shared``) can have its settings changed while
/// they use it: each response is judged by the settings of one moment, never a torn mix.
@Suite("SelectiveDiscarder: shared settings")
struct SharedDiscarderSettingsTests {
    @Test("settings changed while responses are prepared on other threads are read whole")
    func settingsChangeWhileInUse() throws {
        let discarder = SelectiveDiscarder(acceptableResponses: [200], acceptableContentTypes: [])
        let url = try #require(URL(string: "http://h/"))
        let ok = HTTPResponse(core: HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"]))
        let refusals = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 2_000) { index in
            if index.isMultiple(of: 2) {
                // Alternately take only 200, or only 204 and text/plain.
                discarder.acceptableResponses = index.isMultiple(of: 4) ? [200] : [204]
                discarder.acceptableContentTypes = index.isMultiple(of: 4) ? [] : ["text/plain"]
            } else {
                do { try discarder.prepare(for: ok) } catch { refusals.withLock { $0 += 1 } }
            }
        }
        discarder.acceptableResponses = [200]
        discarder.acceptableContentTypes = ["text/*"]
        #expect(discarder.acceptableResponses == [200] && discarder.acceptableContentTypes == ["text/*"])
        #expect(throws: Never.self) { try discarder.prepare(for: ok) }
        #expect(discarder.response?.statusCode == 200)
        #expect(refusals.withLock { $0 } <= 1_000)
    }
}
