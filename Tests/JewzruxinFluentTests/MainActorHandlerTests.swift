import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import JewzruxinTestSupport
import Testing

/// What a screen's model does with the fluent handlers in Swift 6 mode: sets its own state in
/// them, isolated to the main actor.
@MainActor
private final class StoreScreen {
    struct Store: Decodable, Sendable { let name: String }

    var greeting = ""
    var storeCount = 0
    var firstStore = ""
    var bodySize = 0
    var error: (any Error)?
    var events: [String] = []
    var everyCallOnMain = true

    private func note() { if !isOnMainQueue { everyCallOnMain = false } }

    func load(_ service: WebService) {
        service.GET("/hello/").responseString(.mainActor) { text in
            self.note()
            self.greeting = text
        }
        service.GET("/stores/").responseJSON(.mainActor) { json in
            self.note()
            self.storeCount = json.arrayValue?.count ?? -1
        }
        service.GET("/stores/").responseJSON(.mainActor, [Store].self) { stores in
            self.note()
            self.firstStore = stores.first?.name ?? "none"
        }
        service.GET("/bytes/100").response(.mainActor) { _, data in
            self.note()
            self.bodySize = data.count
        }
        service.GET("/status/500").responseError(.mainActor) { error in
            self.note()
            self.error = error
        }
        service.GET("/events/", parameters: ["n": "2"])
            .responseEvents(.mainActor, reconnection: HTTPCycle.EventStreamReconnection(maximumAttempts: 2, delay: 0)) { event in
                self.note()
                self.events.append(event.id ?? "-")
            }
    }
}

@Suite("Fluent handlers isolated to the main actor", .onEveryTransport, .usesMainQueue)
struct FluentMainActorHandlerTests {
    @Test("responseString, responseJSON, response, responseError and responseEvents with .mainActor set a @MainActor model's state")
    @MainActor
    func handlers() async throws {
        // Started here rather than in `withSandbox`, whose body isn't isolated to the main actor.
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        do {
            let screen = StoreScreen()
            screen.load(makeService(sandbox))
            #expect(await eventually(timeout: eventTimeout) {
                !screen.greeting.isEmpty && screen.storeCount != 0 && !screen.firstStore.isEmpty && screen.bodySize != 0
                    && screen.error != nil && screen.events.count == 2
            })
            #expect(screen.greeting == "Hello World")
            #expect(screen.storeCount > 0)
            #expect(screen.firstStore != "none")
            #expect(screen.bodySize == 100)
            #expect(screen.error is HTTPError)
            #expect(screen.events == ["1", "2"])
            #expect(screen.everyCallOnMain)
        }
    }
}
