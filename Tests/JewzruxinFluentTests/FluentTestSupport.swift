import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `body` with a fresh sandbox on a free loopback port, stopped afterwards.
func withSandbox<T>(_ body: (Sandbox) async throws -> T) async throws -> T {
    try await Sandbox.withSandbox(body)
}

/// A session whose delegate queue is a private serial queue (so handlers without a queue of
/// their own run there, not on the main queue), with no retries, on the transport under test.
///
/// - Parameter workerQueue: The session's worker queue (see ``makeWorkerQueue(serial:)``); a new
///   one by default.
func makeSession(workerQueue: OperationQueue? = nil) -> HTTPSession {
    let queue = OperationQueue()
    queue.name = "JewzruxinFluentTests.delegate"
    queue.maxConcurrentOperationCount = 1
    let configuration = URLSessionConfiguration.ephemeral
    // FoundationNetworking traps when a task is cancelled while its URLCache lookup runs
    // (swift-corelibs-foundation#3296); the tests cancel a lot and need no cache.
    configuration.urlCache = nil
    let session = HTTPSession(
        configuration: configuration, delegateQueue: queue, workerQueue: workerQueue,
        transport: TransportUnderTest.current.transport)
    session.retryPolicy.maximumRetryCount = 0
    session.networkActivityIndicator = nil
    return session
}

/// A service on the sandbox, running on `session`.
func makeService(_ sandbox: Sandbox, session: HTTPSession = makeSession()) -> WebService {
    WebService(baseURLString: sandbox.baseURL.absoluteString, session: session)
}

/// Writes a task's chain with `service`'s delegate queue suspended, so that no handler of it runs
/// before the whole chain is written.
func chain<T>(on service: WebService, _ write: () throws -> T) rethrows -> T {
    service.session.delegateQueue.isSuspended = true
    defer { service.session.delegateQueue.isSuspended = false }
    return try write()
}

/// The longest a test waits for a handler before it gives up and fails.
// Generous: events come within milliseconds, but the whole suite saturates 2 cores (loopback bodies
// of hundreds of megabytes) and a task may then wait seconds for a thread. Only a failing test waits
// this long.
let eventTimeout: TimeInterval = 30

/// Calls `start` with a `done` closure and waits until `done` is called (the first call counts).
///
/// - Returns: `true`, or `false` when `done` wasn't called within ``eventTimeout``.
func waitForCall(_ start: (@escaping @Sendable () -> Void) throws -> Void) async rethrows -> Bool {
    let event = Event()
    try start { event.fire() }
    return await event.wait()
}

/// Something that happens once, from any thread, and can be awaited.
final class Event: Sendable {
    private struct State {
        var fired = false
        var waiters: [@Sendable (Bool) -> Void] = []
    }

    private let state = Locked(State())

    /// Marks the event as happened and wakes every waiter; later calls do nothing.
    func fire() {
        let waiters = state.withLock { s -> [@Sendable (Bool) -> Void] in
            guard !s.fired else { return [] }
            s.fired = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter(true) }
    }

    /// Whether the event has happened.
    var hasFired: Bool { state.withLock { $0.fired } }

    /// Waits for the event: `true` once it has happened, `false` after `timeout` seconds without it.
    func wait(timeout: TimeInterval = eventTimeout) async -> Bool {
        await withHandover { (continuation: Handover<Bool, Never>) in
            let resumed = Locked(false)
            let resume: @Sendable (Bool) -> Void = { value in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            let already = state.withLock { s -> Bool in
                if !s.fired { s.waiters.append(resume) }
                return s.fired
            }
            if already {
                resume(true)
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { resume(false) }
            }
        }
    }
}

/// Records what handlers did, from any thread, in order.
final class Recorder: Sendable {
    private let entries = Locked<[String]>([])

    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// The JSON the sandbox's `/inspect/` endpoint answers with.
struct Inspection: Decodable, Sendable {
    let method: String
    let target: String
    let path: String
    let query: String
    let headers: [[String]]
    let body: String
    let bodyLength: Int

    init(_ data: Data) throws {
        self = try JSONDecoder().decode(Inspection.self, from: data)
    }

    /// Every value a header was received with, the name matched case-insensitively.
    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// A key to tell, inside a handler, which dispatch queue it runs on.
let queueNameKey = DispatchSpecificKey<String>()

/// A serial queue whose name a handler can read back with `DispatchQueue.getSpecific(key: queueNameKey)`.
func makeNamedQueue(_ name: String, qos: DispatchQoS = .default) -> DispatchQueue {
    let queue = DispatchQueue(label: "JewzruxinFluentTests.\(name)", qos: qos)
    queue.setSpecific(key: queueNameKey, value: name)
    return queue
}

/// Marks the main dispatch queue, so that `currentQueueName()` names it.
///
/// On Linux the main queue is not always drained by the main thread (`dispatchMain()` exits that
/// thread), so `Thread.isMainThread` can't tell.
let markMainQueue: Void = DispatchQueue.main.setSpecific(key: queueNameKey, value: "main")

/// A worker queue for ``makeSession(workerQueue:)`` that ``currentQueueName()`` names `worker`.
///
/// - Parameter serial: Whether it runs one operation at a time.
func makeWorkerQueue(serial: Bool = false) -> OperationQueue {
    let queue = OperationQueue()
    queue.name = "JewzruxinFluentTests.worker"
    if serial { queue.maxConcurrentOperationCount = 1 }
    return queue
}

/// The name of the queue the caller runs on: its specific name (`main` for the main queue once
/// ``markMainQueue`` has been evaluated), `delegate` on the test sessions' delegate queue, or
/// `worker` on a queue of ``makeWorkerQueue(serial:)``.
func currentQueueName() -> String {
    if let name = DispatchQueue.getSpecific(key: queueNameKey) { return name }
    switch OperationQueue.current?.name {
    case "JewzruxinFluentTests.delegate": return "delegate"
    case "JewzruxinFluentTests.worker": return "worker"
    default: return "other"
    }
}

/// Runs an action when something happens, whichever comes first: the action being set or the
/// event. Lets a sandbox route cancel a request from its own thread the moment the request
/// arrives, without waiting for a task of the cooperative pool (which a loaded machine may
/// delay past the server's answer).
final class OnArrival: Sendable {
    private struct State {
        var arrived = false
        var action: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Sets the action; runs it at once if the event happened already.
    func set(_ action: @escaping @Sendable () -> Void) {
        let run = state.withLock { s -> Bool in
            s.action = action
            return s.arrived
        }
        if run { action() }
    }

    /// The event: runs the action if it is set (the first time only).
    func fire() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.arrived else { return nil }
            s.arrived = true
            return s.action
        }
        action?()
    }
}
