import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that lets every status through: the validations then judge the 4xx and 5xx.
private final class AcceptingEveryStatus: HTTPSessionDelegate {
    func session(_ session: HTTPSession, shouldTreatStatusCodeAsFailure status: Int) -> Bool { false }
}

/// Why a custom validation refused a response.
private enum ReportError: Error, Equatable {
    case incomplete
}

/// The error an awaited task ends with, `nil` when it succeeds.
private func failure(of task: ServiceTask) async -> (any Error)? {
    do {
        _ = try await task.response()
        return nil
    } catch {
        return error
    }
}

/// The validation error an awaited task ends with; records an issue when it ends otherwise.
private func validationError(
    of task: ServiceTask, sourceLocation: SourceLocation = #_sourceLocation
) async -> ResponseValidationError? {
    let error = await failure(of: task)
    guard let validation = error as? ResponseValidationError else {
        Issue.record("expected a ResponseValidationError, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return validation
}

/// `validate()` in the chain: statuses, content types, custom checks, and where in the chain it applies.
@Suite("Validation", .onEveryTransport)
struct ValidationTests {
    private let acceptJSON = ServiceTask.Option.header(Request.Headers.accept, "application/json")

    @Test("validate() takes a 2xx response of the type the request accepts; the success handlers run")
    func acceptsWhatTheRequestAccepts() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let stores = try await service.GET("/stores/", parameters: ["zip": "15217"], options: [acceptJSON])
                .validate().decode([StoreModel].self)
            #expect(stores == storesIn15217)
            // Without Accept, only the status is judged.
            #expect(try await service.GET("/hello/").validate().string() == "Hello World")
            // A range with parameters, a wildcard and a refused one (q=0) beside it.
            let text = try await service.GET("/hello/", options: [
                .header(Request.Headers.accept, "application/json;q=0.9, TEXT/*;q=0.5, image/png;q=0"),
            ]).validate().string()
            #expect(text == "Hello World")
        }
    }

    @Test("validate() refuses a type the request doesn't accept: success handlers skipped, error handlers get the response and body")
    func refusesAnotherType() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/", options: [acceptJSON])
                    .validate()
                    .responseString { _ in recorder.record("success") }
                    .responseError { response, error in
                        if let error = error as? ResponseValidationError,
                           case .unacceptableContentType(let type, let acceptable) = error.reason {
                            recorder.record("\(type) not \(acceptable) \(error.statusCode ?? 0) \(error.response.text ?? "")")
                        } else {
                            recorder.record("other \(error)")
                        }
                        recorder.record("response \(response?.text ?? "none")")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == [#"text/plain not ["application/json"] 200 Hello World"#, "response Hello World"])
        }
    }

    @Test("an Accept whose only JSON range has q=0 refuses JSON")
    func qZeroRefuses() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/stores/", options: [
                .header(Request.Headers.accept, "text/plain, application/json;q=0"),
            ]).validate()
            let error = await validationError(of: task)
            guard case .unacceptableContentType("application/json", let acceptable)? = error?.reason else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(acceptable == ["text/plain"])
        }
    }

    @Test("validate(statusCode:) refuses what the session lets through: a 304, a 204 when only 200 is taken",
          arguments: [(304, [200, 201, 202, 203, 204, 205, 206]), (204, [200]), (203, [200, 201])])
    func refusesStatus(status: Int, acceptable: [Int]) async throws {
        try await withSandbox { sandbox in
            let error = await validationError(of: makeService(sandbox).GET("/status/\(status)").validate(statusCode: acceptable))
            guard case .unacceptableStatusCode(let refused)? = error?.reason else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(refused == status)
            #expect(error?.response.statusCode == status)
        }
    }

    @Test("validate() refuses a 304 and takes a 204; validate(statusCode: 200..<300) takes a 201")
    func defaultStatuses() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let error = await validationError(of: service.GET("/status/304").validate())
            #expect(error?.statusCode == 304)
            let noContent = try await service.GET("/status/204", options: [acceptJSON]).validate().response()
            #expect(noContent.statusCode == 204)
            let created = try await service.GET("/status/201").validate(statusCode: 200..<300).response()
            #expect(created.statusCode == 201)
        }
    }

    @Test("a status the session fails by itself keeps its HTTPError: the first error stands")
    func sessionFailureStands() async throws {
        try await withSandbox { sandbox in
            let error = await failure(of: makeService(sandbox).GET("/status/404").validate(statusCode: [404]))
            guard case HTTPError.statusCodeSeemsToHaveErred(let response)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 404)
        }
    }

    @Test("with a delegate that lets every status through, validate() refuses a 400, and a typed error handler decodes its body")
    func delegateLetsThrough() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            let delegate = AcceptingEveryStatus()
            session.delegate = delegate
            let service = makeService(sandbox, session: session)
            // Unvalidated, the 400 is a success.
            let unvalidated = try await service.searchStores(zipCode: "bad").response()
            #expect(unvalidated.statusCode == 400)

            let recorder = Recorder()
            let done = await waitForCall { done in
                service.searchStores(zipCode: "bad")
                    .validate()
                    .responseJSON([StoreModel].self) { _ in recorder.record("stores") }
                    .responseError(APIError.self) { apiError in recorder.record(apiError.code) }
                    .responseError { error in
                        recorder.record("\((error as? ResponseValidationError)?.statusCode ?? 0)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["invalidZipCode", "400"])
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("validate(contentType:) compares essences, ignoring case and parameters, with wildcards",
          arguments: [
            ("application/json; charset=utf-8", ["application/json"], true),
            ("Application/JSON", ["application/json"], true),
            ("application/json", ["APPLICATION/*"], true),
            ("application/problem+json", ["application/*+json"], true),
            ("text/html", ["*/*"], true),
            ("text/html", ["application/*", "image/*"], false),
            ("application/jsonp", ["application/json"], false),
            ("application/json", ["text/json", "application/xml"], false),
          ])
    func contentTypes(header: String, acceptable: [String], accepted: Bool) async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/echo/", parameters: ["content": "{}", "header": "Content-Type: \(header)"])
                .validate(contentType: acceptable)
            let error = await failure(of: task)
            if accepted {
                #expect(error == nil)
            } else if case .unacceptableContentType(let type, let refusedFor)? = (error as? ResponseValidationError)?.reason {
                #expect(type == MediaType(header)?.essence)
                #expect(refusedFor == acceptable)
            } else {
                Issue.record("unexpected \(String(describing: error))")
            }
        }
    }

    @Test("a body without Content-Type is refused; a response without a body passes")
    func missingContentType() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let error = await validationError(of: service.GET("/echo/", parameters: ["content": "x", "header": "Content-Type:"])
                .validate(contentType: ["text/plain"]))
            guard case .missingContentType(let acceptable)? = error?.reason else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(acceptable == ["text/plain"])
            #expect(error?.response.data == Data("x".utf8))
            // No body: an empty one, a 204, the answer to a HEAD.
            let empty = service.GET("/echo/", parameters: ["header": "Content-Type:"]).validate(contentType: ["text/plain"])
            #expect(await failure(of: empty) == nil)
            #expect(await failure(of: service.GET("/status/204").validate(contentType: ["application/json"])) == nil)
            #expect(await failure(of: service.HEAD("/hello/").validate(contentType: ["application/json"])) == nil)
            // An empty list takes any type.
            #expect(await failure(of: service.GET("/hello/").validate(contentType: [])) == nil)
        }
    }

    @Test("a custom validation that throws or returns a failure fails the task with its error; one that passes doesn't")
    func custom() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let thrown = await validationError(of: service.GET("/hello/").validate { response in
                guard response.value(forHTTPHeaderField: "X-Report-Complete") == "yes" else { throw ReportError.incomplete }
            })
            guard case .customValidationFailed(let underlying)? = thrown?.reason else {
                Issue.record("unexpected \(String(describing: thrown))")
                return
            }
            #expect(underlying as? ReportError == .incomplete)
            #expect(thrown?.response.text == "Hello World")

            let returned = await validationError(of: service.GET("/hello/").validate { response in
                response.text == "Hello World" ? .failure(ReportError.incomplete) : .success(())
            })
            guard case .customValidationFailed(let returnedError)? = returned?.reason else {
                Issue.record("unexpected \(String(describing: returned))")
                return
            }
            #expect(returnedError as? ReportError == .incomplete)

            // Reads the body, and a ResponseValidationError it throws is kept as it is.
            let passing = service.GET("/stores/", parameters: ["zip": "15217"]).validate { response in
                let stores = try JSONDecoder().decode([StoreModel].self, from: response.data)
                if stores.isEmpty { throw ResponseValidationError(.unacceptableStatusCode(response.statusCode ?? 0), response: response) }
            }
            let stores = try await passing.decode([StoreModel].self)
            #expect(stores == storesIn15217)
            let kept = await validationError(of: service.GET("/stores/", parameters: ["zip": "00000"]).validate { response in
                if response.data == Data("[]".utf8) { throw ResponseValidationError(.unacceptableStatusCode(299), response: response) }
            })
            guard case .unacceptableStatusCode(299)? = kept?.reason else {
                Issue.record("unexpected \(String(describing: kept))")
                return
            }
        }
    }

    @Test("a validation applies to the handlers after it, not to those before; several run in order, the first failure stands")
    func placeInTheChain() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/")
                    .response { _, _ in recorder.record("before") }
                    .validate(statusCode: [200])
                    .response { _, _ in recorder.record("between") }
                    .validate(statusCode: [201])
                    .validate { _ in throw ReportError.incomplete }
                    .response { _, _ in recorder.record("after") }
                    .responseError { error in
                        if case .unacceptableStatusCode(200)? = (error as? ResponseValidationError)?.reason {
                            recorder.record("refused 200")
                        } else {
                            recorder.record("other \(error)")
                        }
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["before", "between", "refused 200"])
        }
    }

    @Test("a validation doesn't start the task: shortcuts after it still configure the cycle")
    func doesNotStart() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/stores/", parameters: ["zip": "15217"]).validate().asJSON() }
            #expect(task.cycle?.contentHandler is JSONParser)
            let json = try await task.json()
            #expect(json["0.name"]?.stringValue == "Squirrel Hill")
            #expect(task.cycle?.response.content is JSON)
        }
    }

    @Test("the async twins throw the validation error, the callback handlers after them see the task failed")
    func asyncTwin() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/").validate(contentType: ["application/json"])
            await #expect(throws: ResponseValidationError.self) { try await task.string() }
            let recorder = Recorder()
            let done = await waitForCall { done in
                task.response { _, _ in recorder.record("success") }
                    .responseError { error in
                        recorder.record(error is ResponseValidationError ? "validation" : "other")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["validation"])
        }
    }

    @Test("a validation error says what was refused, with the URL")
    func description() async throws {
        try await withSandbox { sandbox in
            let error = await validationError(of: makeService(sandbox).GET("/status/304").validate())
            let text = try #require(error?.description)
            #expect(text.hasPrefix("response validation failed: status 304 is not acceptable ("))
            #expect(text.contains("/status/304"))
        }
    }
}

/// A fluent POST is never resent by the retry policy unless the request says it may be.
@Suite("Fluent retries of a POST", .onEveryTransport)
struct FluentRetrySafetyTests {
    /// A session that retries as by default, without the waits.
    private func retryingService(_ sandbox: Sandbox) -> WebService {
        let session = makeSession()
        session.retryPolicy = RetryPolicy(retryDelay: 0)
        return makeService(sandbox, session: session)
    }

    @Test("a POST answered 503 is sent once, and the error says why")
    func postSentOnce() async throws {
        try await withSandbox { sandbox in
            do {
                _ = try await retryingService(sandbox).POST("/flaky/?key=fp&fail=3", parameters: ["order": 1]).response()
                Issue.record("a 503 succeeded")
            } catch let error as HTTPError {
                #expect(error.statusCode == 503)
                #expect(error.retrySummary?.reason.contains("POST is not idempotent") == true)
            }
            #expect(sandbox.requestCount(forFlakyKey: "fp") == 1)
        }
    }

    @Test("with .retryable, the POST is resent")
    func retryableOption() async throws {
        try await withSandbox { sandbox in
            let response = try await retryingService(sandbox)
                .POST("/flaky/?key=fr&fail=2", parameters: ["order": 1], options: [.retryable]).response()
            #expect(response.statusCode == 200)
            #expect(sandbox.requestCount(forFlakyKey: "fr") == 3)
        }
    }
}
