import Foundation
import Jewzruxin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TransportUnderTest {
    /// A session on this transport whose delegate queue is the main queue, as a session made
    /// without one has, and with no URL cache (FoundationNetworking traps when a task is cancelled
    /// while its cache lookup runs, swift-corelibs-foundation#3296).
    public func mainQueueSession() -> HTTPSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return HTTPSession(configuration: configuration, transport: transport)
    }
}
