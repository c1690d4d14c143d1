import Foundation
import JewzruxinTestSupport
import Testing

/// The suites here block their threads on sockets: they run off the cooperative pool.
@Suite("Tests that block their thread run off the cooperative pool", .onItsOwnThread)
struct OwnThreadTests {
    @Test("a synchronous test runs on a thread of its own")
    func synchronous() {
        #expect(isOnItsOwnThread)
    }

    @Test("an asynchronous test does too, after an await")
    func asynchronous() async throws {
        #expect(isOnItsOwnThread)
        try await Task.sleep(for: .milliseconds(1))
        #expect(isOnItsOwnThread)
    }
}

@Test("a test not marked runs on the cooperative pool")
func unmarkedTestRunsOnThePool() {
    #expect(!isOnItsOwnThread)
}
