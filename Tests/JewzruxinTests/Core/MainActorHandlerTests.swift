import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox
import JewzruxinTestSupport

/// A view model as Swift 6 code writes one: isolated to the main actor, its state set straight
/// from the completion handlers.
@MainActor
private final class GreetingModel {
    var text = ""
    var status = 0
    var onMainThread: [Bool] = []
    var failure: (any Error)?

    func load(_ url: String, session: HTTPSession) throws -> HTTPCycle {
        try HTTPCycle.get(url, session: session, on: .mainActor) { cycle, error in
            self.text = cycle.response.text ?? ""
            self.status = cycle.response.statusCode ?? 0
            self.failure = error
            self.onMainThread.append(isOnMainQueue)
        }
    }

    func send(_ url: String, session: HTTPSession) throws {
        try HTTPCycle.post(url, requestObject: Data("posted".utf8), requestProcessors: [HTTPDataProcessor()], session: session, on: .mainActor) { cycle, _ in
            self.text = cycle.response.text ?? ""
            self.onMainThread.append(isOnMainQueue)
        }
    }
}

@Suite("Handlers isolated to the main actor", .onEveryTransport, .usesMainQueue)
struct MainActorHandlerTests {
    @Test("HTTPCycle.get(on: .mainActor) and start(.mainActor) set a @MainActor model's state on the main thread")
    @MainActor
    func cycleHandlers() async throws {
        // Started here rather than in `withSandbox`, whose body isn't isolated to the main actor.
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        do {
            // A delegate queue of its own: the handler goes to the main queue all the same.
            let session = makeSession()
            let model = GreetingModel()
            _ = try model.load(sandbox.string("/hello/"), session: session)
            #expect(await eventually { model.status != 0 })
            #expect(model.text == "Hello World")
            #expect(model.failure == nil)
            #expect(model.onMainThread == [true])

            try model.send(sandbox.string("/dumpupload/"), session: session)
            #expect(await eventually { model.onMainThread.count == 2 })
            #expect(model.text == "posted")

            _ = try model.load(sandbox.string("/status/404"), session: session)
            #expect(await eventually { model.status == 404 })
            #expect(model.failure is HTTPError)

            let cycle = HTTPCycle(requestURL: try #require(URL(string: sandbox.string("/hello/"))), session: session)
            var started = false
            cycle.start(.mainActor) { cycle, error in
                started = error == nil && isOnMainQueue
            }
            #expect(await eventually { started })
        }
    }
}
