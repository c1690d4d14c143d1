import Foundation
import Testing
@testable import JewzruxinSandbox

/// What the stop and scope checks need of a sandbox proxy: both proxies have it.
protocol StoppableProxy: Sendable {
    func stop()
    var isStopped: Bool { get }
    var runningThreadCount: Int { get }
}

extension SOCKSProxy: StoppableProxy {}
extension HTTPConnectProxy: StoppableProxy {}

/// Stops `proxy`, which has two clients (one waiting mid-handshake, one relaying), and checks that
/// it ended them at once, closed their sockets and left no thread.
func expectStopsAtOnce(_ proxy: some StoppableProxy, clients: [RawHTTPClient], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(proxy.runningThreadCount == 4, "accept, two connections, one relay back", sourceLocation: sourceLocation)
    let start = Date()
    proxy.stop()
    #expect(Date().timeIntervalSince(start) < 1, sourceLocation: sourceLocation)
    #expect(proxy.isStopped, sourceLocation: sourceLocation)
    #expect(proxy.runningThreadCount == 0, sourceLocation: sourceLocation)
    for client in clients {
        #expect(client.isClosedByPeer(), sourceLocation: sourceLocation)
    }
}

/// What a body given to `withProxy` throws.
private struct Thrown: Error {}

/// Checks that `withProxy` stops its proxy after its body, whether the body returns or throws.
func expectScoped<Proxy: StoppableProxy>(
    _ withProxy: ((Proxy) async throws -> Proxy) async throws -> Proxy, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let kept = try await withProxy { $0 }
    #expect(kept.isStopped, sourceLocation: sourceLocation)
    await #expect(throws: Thrown.self, sourceLocation: sourceLocation) {
        try await withProxy { _ in throw Thrown() }
    }
}
