import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

/// The seed's example service: GitHub's API with JSON both ways.
final class GitHubService: HTTPService, @unchecked Sendable {
    override class var serviceName: String { "github" }

    override class func defaultSession() -> HTTPSession {
        // A delegate queue of its own: the process's main queue belongs to the tests that use it.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = HTTPSession(delegateQueue: queue, transport: TransportUnderTest.current.transport)
        session.requestProcessors = [HTTPJSONProcessor()]
        session.responseProcessors = [HTTPJSONProcessor()]
        return session
    }
}

/// A service whose only profile in the test bundle is `jsononly.json`.
final class JSONOnlyService: HTTPService, @unchecked Sendable {
    override class var serviceName: String { "jsononly" }
}

/// A service with no profile anywhere.
final class MissingService: HTTPService, @unchecked Sendable {
    override class var serviceName: String { "no-such-service" }
}

/// A service that records the hook's calls and gives the `raw` resource no response processors.
final class HookedService: HTTPService, @unchecked Sendable {
    let created = Mutex<[String]>([])

    override func cycleDidCreate(_ cycle: HTTPCycle, resourceName: String) {
        created.withLock { $0.append(resourceName) }
        if resourceName == "raw" {
            cycle.responseProcessors = []
        }
    }
}

/// The folder of the service profiles in the test bundle.
let serviceResources = "Resources/service"

/// The URL of a profile file in the test bundle.
func serviceProfileURL(_ name: String, _ ext: String) throws -> URL {
    try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: serviceResources))
}

/// A profile with the resources the request tests use, against `sandbox`.
func sandboxProfile(_ sandbox: Sandbox) -> [String: Any] {
    [
        "BaseURL": sandbox.baseURL.absoluteString,
        "Resources": [
            ["Name": "hello", "URITemplate": "/hello/"],
            ["Name": "echo", "URITemplate": "/echo/{?delay,code}"],
            ["Name": "inspect", "URITemplate": "/inspect/{?q}", "Method": "POST"],
            ["Name": "count", "URITemplate": "/count/{?delay,hold}"],
            ["Name": "raw", "URITemplate": "/hello/"],
        ] as [[String: Any]],
    ]
}

/// Answers `/count/` after `delay` seconds, counting requests; with `hold`, not before the test calls
/// ``RequestLog/release()`` (30 s at most).
func routeCounter(_ sandbox: Sandbox) -> RequestLog {
    let counter = RequestLog()
    sandbox.route("/count/") { request in
        counter.record(request.rawQuery)
        if request.queryValue("hold") != nil { counter.holdUntilReleased() }
        var response = SandboxResponse.text("counted")
        response.delay = Double(request.queryValue("delay") ?? "0") ?? 0
        return response
    }
    return counter
}

/// The queries a route received, with a way to await the n-th one.
final class RequestLog: Sendable {
    private struct State {
        var queries: [String] = []
        var waiters: [(count: Int, continuation: Handover<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let released = DispatchSemaphore(value: 0)

    /// Blocks the sandbox's thread answering a held request until ``release()`` (30 s at most).
    func holdUntilReleased() {
        _ = released.wait(timeout: .now() + 30)
    }

    /// Lets one held request be answered.
    func release() {
        released.signal()
    }

    func record(_ query: String) {
        let ready = state.withLock { s -> [Handover<Void, Never>] in
            s.queries.append(query)
            let count = s.queries.count
            let ready = s.waiters.filter { $0.count <= count }.map(\.continuation)
            s.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    var count: Int { state.withLock { $0.queries.count } }

    /// Returns once `count` requests have arrived.
    func waitUntil(count: Int) async {
        await withHandover { (continuation: Handover<Void, Never>) in
            let arrived = state.withLock { s -> Bool in
                guard s.queries.count < count else { return true }
                s.waiters.append((count, continuation))
                return false
            }
            if arrived { continuation.resume() }
        }
    }
}
