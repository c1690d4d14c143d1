import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

@Suite("HTTPService requests", .onEveryTransport)
struct HTTPServiceRequestTests {
    @Test("The seed's GitHub example: search repositories, JSON parsed into response.object")
    func gitHubSearch() async throws {
        try await withSandbox { sandbox in
            sandbox.route("/search/repositories") { request in
                let json: JSON = [
                    "query": ["q": .string(request.queryValue("q") ?? ""), "sort": .string(request.queryValue("sort") ?? ""),
                              "order": .string(request.queryValue("order") ?? "")],
                    "total_count": 1,
                    "items": [["full_name": "weipin/jewzruxin"]],
                ]
                return SandboxResponse.json((try? json.encoded()) ?? Data())
            }
            let github = try GitHubService(bundle: .module, subdirectory: serviceResources)
            #expect(github.baseURL == "https://api.github.com")
            github.baseURL = sandbox.baseURL.absoluteString
            let uriValues = ["q": "jewzruxin swift", "sort": "updated", "order": "desc"]
            let result = try await outcome { handler in
                try github.requestResource("search", uriValues: uriValues, completionHandler: handler)
            }
            #expect(result.error == nil)
            #expect(result.cycle.request.url?.path == "/search/repositories")
            let object = try #require(result.response.object as? JSON)
            #expect(object["query"] == ["q": "jewzruxin swift", "sort": "updated", "order": "desc"])
            #expect(object.value(atKeyPath: "items.0.full_name") == "weipin/jewzruxin")
            #expect(result.response.text?.contains("weipin/jewzruxin") == true)
        }
    }

    @Test("The async twin returns the finished cycle; the method and request object come through")
    func asyncTwin() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.requestProcessors = [HTTPJSONProcessor()]
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: session)
            let cycle = try await service.requestResource(
                "inspect", identifier: "post", uriValues: ["q": "a b"], requestObject: ["k": "v"] as JSON)
            #expect(cycle.state == .finished)
            #expect(cycle.identifier == "post")
            let inspection = try Inspection(cycle.response)
            #expect(inspection.method == "POST")
            #expect(inspection.query == "q=a%20b")
            #expect(inspection.body == #"{"k":"v"}"#)
            #expect(service.cycle(withIdentifier: "post") === cycle)
        }
    }

    @Test("A service's session interceptors adapt its requests after the request processors (a signature sees the body)")
    func interceptorsAfterProcessors() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.requestProcessors = [HTTPJSONProcessor()]
            session.interceptors = [RequestInterceptor { request, _ in
                var request = request
                request.setValue("\(request.data?.count ?? -1)", forHTTPHeaderField: "X-Signed-Length")
                return request
            }]
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: session)
            let cycle = try await service.requestResource("inspect", requestObject: ["k": "v"] as JSON)
            let inspection = try Inspection(cycle.response)
            #expect(inspection.body == #"{"k":"v"}"#)
            #expect(inspection.values("X-Signed-Length") == ["9"])
        }
    }

    @Test("Cancelling the task cancels the cycle of the async twin")
    func asyncCancel() async throws {
        try await withSandbox { sandbox in
            let counter = routeCounter(sandbox)
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: makeSession())
            let task = Task {
                try await service.requestResource("count", identifier: "slow", uriValues: ["delay": "30"])
            }
            await counter.waitUntil(count: 1)
            let running = try #require(service.cycle(withIdentifier: "slow"))
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(running.state == .cancelled)
            await service.session.drain()
        }
    }

    @Test("Async twin with .reuse of a running cycle throws alreadyRunning and sends nothing")
    func asyncReuseRunning() async throws {
        try await withSandbox { sandbox in
            let counter = routeCounter(sandbox)
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: makeSession())
            // Held until the second call has been made: it comes while the first runs, however long a
            // loaded machine takes (a 3 s delay was not always enough in the whole suite).
            let first = Task { try await service.requestResource("count", identifier: "r", uriValues: ["hold": "1"]) }
            await counter.waitUntil(count: 1)
            await #expect(throws: HTTPError.self) {
                try await service.requestResource("count", identifier: "r", option: .reuse, uriValues: ["delay": "0.3"])
            }
            counter.release()
            let cycle = try await first.value
            #expect(cycle.response.statusCode == 200)
            #expect(counter.count == 1)
        }
    }

    @Test("The base URL can be switched at run time")
    func switchBaseURL() async throws {
        try await withSandbox { sandbox in
            var profile = sandboxProfile(sandbox)
            profile["BaseURL"] = "http://127.0.0.1:1/"
            let service = try HTTPService(profile: profile, session: makeSession())
            #expect(try service.cycle(forResource: "hello").request.url?.absoluteString == "http://127.0.0.1:1/hello/")
            service.baseURL = sandbox.baseURL.absoluteString + "/"
            let cycle = try await service.requestResource("hello")
            #expect(cycle.response.text == "Hello World")
            #expect(service.profile.baseURL == service.baseURL)
            // Switching from many threads at once is safe.
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    group.addTask { service.baseURL = "http://h\(index % 5)" }
                    group.addTask { _ = try? service.cycle(forResource: "hello") }
                }
            }
            #expect(service.baseURL.hasPrefix("http://h"))
        }
    }

    @Test("Base and template are joined with exactly one slash", arguments: [
        ("http://h/", "/a", "http://h/a"),
        ("http://h", "a", "http://h/a"),
        ("http://h", "/a", "http://h/a"),
        ("http://h/", "a", "http://h/a"),
        ("http://h/api/v1/", "/users?x=1", "http://h/api/v1/users?x=1"),
        ("http://h/api", "?q=1", "http://h/api?q=1"),
        ("", "https://example.com/a?b=1", "https://example.com/a?b=1"),
        ("http://h", "https://other.example/a", "https://other.example/a"),
        ("http://h/x", "", "http://h/x"),
    ])
    func join(base: String, path: String, expected: String) {
        #expect(HTTPService.join(base, path) == expected)
    }

    @Test("Templates with their own query and absolute templates make valid URLs")
    func urls() throws {
        let service = try HTTPService(profile: [
            "BaseURL": "http://h/api/",
            "Resources": [
                ["Name": "query", "URITemplate": "/items?fixed=1{&page}"],
                ["Name": "absolute", "URITemplate": "https://other.example/x{?y}"],
                ["Name": "relative", "URITemplate": "relative/{id}"],
            ],
        ])
        #expect(try service.cycle(forResource: "query", uriValues: ["page": 2]).request.url?.absoluteString
            == "http://h/api/items?fixed=1&page=2")
        #expect(try service.cycle(forResource: "absolute", uriValues: ["y": "z"]).request.url?.absoluteString
            == "https://other.example/x?y=z")
        service.baseURL = ""
        #expect(try service.cycle(forResource: "absolute").request.url?.absoluteString == "https://other.example/x")
        #expect(throws: HTTPError.self) { try service.cycle(forResource: "relative", uriValues: ["id": 1]) }
        service.baseURL = "ftp://h"
        do {
            _ = try service.cycle(forResource: "relative", uriValues: ["id": 1])
            Issue.record("expected invalidURL")
        } catch let HTTPError.invalidURL(string, reason) {
            #expect(string == "ftp://h/relative/1")
            #expect(reason.contains("scheme"))
        }
    }

    @Test("An unknown resource throws unknownResource, nothing is created")
    func unknownResource() async throws {
        let service = try HookedService(profile: ["Resources": [["Name": "a", "URITemplate": "http://h/a"]]])
        #expect(throws: HTTPServiceError.unknownResource("nope")) { try service.cycle(forResource: "nope", identifier: "x") }
        #expect(throws: HTTPServiceError.unknownResource("nope")) {
            try service.requestResource("nope") { _, _ in Issue.record("must not be called") }
        }
        await #expect(throws: HTTPServiceError.unknownResource("nope")) { try await service.requestResource("nope") }
        #expect(service.cycle(withIdentifier: "x") == nil)
        #expect(service.created.withLock { $0 } == [])
        #expect(HTTPServiceError.unknownResource("nope").description.contains("nope"))
    }

    @Test("cycleDidCreate is called with the resource name and can change processors")
    func hook() async throws {
        try await withSandbox { sandbox in
            let session = makeSession()
            session.responseProcessors = [HTTPJSONProcessor()]
            let service = try HookedService(profile: sandboxProfile(sandbox), session: session)
            let created = try service.cycle(forResource: "hello", identifier: "h", solicited: true)
            #expect(created.solicited)
            #expect(created.identifier == "h")
            #expect(created.responseProcessors == nil)
            let raw = try await service.requestResource("raw")
            #expect(raw.responseProcessors?.isEmpty == true)
            #expect(raw.response.text == "Hello World")
            // Reusing is not creating: no hook call.
            #expect(try service.cycle(forResource: "hello", identifier: "h", option: .reuse) === created)
            #expect(service.created.withLock { $0 } == ["hello", "raw"])
        }
    }

    @Test(".create makes a new cycle every time, the identifier naming the newest")
    func create() throws {
        let service = try HTTPService(profile: ["Resources": [["Name": "a", "URITemplate": "http://h/a"]]])
        let first = try service.cycle(forResource: "a", identifier: "id")
        let second = try service.cycle(forResource: "a", identifier: "id")
        #expect(first !== second)
        #expect(service.cycle(withIdentifier: "id") === second)
        #expect(try service.cycle(forResource: "a") !== service.cycle(forResource: "a"))
        // Without an identifier, .reuse and .replace create too.
        #expect(try service.cycle(forResource: "a", option: .reuse) !== service.cycle(forResource: "a", option: .reuse))
        #expect(try service.cycle(forResource: "a", option: .replace) !== second)
        #expect(first.state == .idle && second.state == .idle)
    }

    @Test(".reuse returns the held cycle unchanged, or creates one when none is held")
    func reuse() throws {
        let service = try HTTPService(profile: ["Resources": [["Name": "a", "URITemplate": "http://h/a{?x}"]]])
        let created = try service.cycle(forResource: "a", identifier: "id", option: .reuse, uriValues: ["x": 1])
        let reused = try service.cycle(forResource: "a", identifier: "id", option: .reuse, uriValues: ["x": 2])
        #expect(created === reused)
        #expect(reused.request.url?.absoluteString == "http://h/a?x=1")
        #expect(try service.cycle(forResource: "a", identifier: "other", option: .reuse) !== created)
    }

    @Test("The service holds its cycles weakly: a released cycle is forgotten")
    func weakCycles() throws {
        let service = try HTTPService(profile: ["Resources": [["Name": "a", "URITemplate": "http://h/a"]]])
        weak var released: HTTPCycle?
        do {
            let cycle = try service.cycle(forResource: "a", identifier: "gone")
            released = cycle
            #expect(service.cycle(withIdentifier: "gone") === cycle)
        }
        #expect(released == nil)
        #expect(service.cycle(withIdentifier: "gone") == nil)
    }

    @Test("A service is released once its callers let it go, its cycles finished")
    func serviceReleased() async throws {
        try await withSandbox { sandbox in
            weak var released: HTTPService?
            do {
                let service = try HookedService(profile: sandboxProfile(sandbox), session: makeSession())
                released = service
                let cycle = try await service.requestResource("hello", identifier: "h")
                #expect(cycle.response.text == "Hello World")
                await service.session.drain()
            }
            #expect(released == nil)
        }
    }

    @Test("20 rapid .reuse requests while the first is in flight send ONE request")
    func rapidReuse() async throws {
        try await withSandbox { sandbox in
            let counter = routeCounter(sandbox)
            let session = makeSession()
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: session)
            let outcomes = Mutex<[String]>([])
            let firstDone = CallCounter()
            var cycles: [HTTPCycle] = []
            for index in 0..<20 {
                let cycle = try service.requestResource(
                    "count", identifier: "refresh", option: .reuse, uriValues: ["delay": "1"]
                ) { _, error in
                    switch error {
                    case nil: firstDone.record(); outcomes.withLock { $0.append("\(index): ok") }
                    case HTTPError.alreadyRunning?: outcomes.withLock { $0.append("\(index): alreadyRunning") }
                    case let error?: outcomes.withLock { $0.append("\(index): \(error)") }
                    }
                }
                cycles.append(cycle)
            }
            #expect(cycles.allSatisfy { $0 === cycles[0] })
            await session.drain()
            #expect(firstDone.count == 1)
            #expect(counter.count == 1)
            #expect(sandbox.acceptedConnectionCount == 1)
            let results = outcomes.withLock { $0 }
            #expect(results.count == 20)
            #expect(results.filter { $0.hasSuffix("alreadyRunning") }.count == 19)
            #expect(results.contains("0: ok"))

            // Finished: .reuse starts the same cycle again.
            let again = try await outcome { handler in
                try service.requestResource("count", identifier: "refresh", option: .reuse, completionHandler: handler)
            }
            #expect(again.error == nil)
            #expect(again.cycle === cycles[0])
            #expect(counter.count == 2)
        }
    }

    @Test(".replace cancels the held cycle explicitly (its handler is not called) and sends anew")
    func replace() async throws {
        try await withSandbox { sandbox in
            let counter = routeCounter(sandbox)
            let session = makeSession()
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: session)
            let oldCalls = CallCounter()
            let old = try service.requestResource("count", identifier: "t", uriValues: ["delay": "30"]) { _, _ in
                oldCalls.record()
            }
            await counter.waitUntil(count: 1)
            let result = try await outcome { handler in
                try service.requestResource("count", identifier: "t", option: .replace, uriValues: ["delay": "0"],
                                            completionHandler: handler)
            }
            #expect(result.error == nil)
            #expect(result.cycle !== old)
            #expect(old.state == .cancelled)
            #expect(old.explicitlyCanceling)
            #expect(service.cycle(withIdentifier: "t") === result.cycle)
            await session.drain()
            #expect(oldCalls.count == 0)
            #expect(counter.count == 2)
        }
    }

    @Test(".replace with no held cycle just creates and sends")
    func replaceNone() async throws {
        try await withSandbox { sandbox in
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: makeSession())
            let result = try await outcome { handler in
                try service.requestResource("hello", identifier: "fresh", option: .replace, completionHandler: handler)
            }
            #expect(result.error == nil)
            #expect(result.response.text == "Hello World")
            #expect(service.cycle(withIdentifier: "fresh") === result.cycle)
        }
    }

    @Test("An awaited cycle replaced by another throws CancellationError")
    func replaceAwaited() async throws {
        try await withSandbox { sandbox in
            let counter = routeCounter(sandbox)
            let service = try HTTPService(profile: sandboxProfile(sandbox), session: makeSession())
            let first = Task { try await service.requestResource("count", identifier: "a", uriValues: ["delay": "30"]) }
            await counter.waitUntil(count: 1)
            let second = try await service.requestResource("count", identifier: "a", option: .replace)
            #expect(second.response.statusCode == 200)
            let result = await first.result
            #expect(throws: CancellationError.self) { try result.get() }
            await service.session.drain()
        }
    }
}
