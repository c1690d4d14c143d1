import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin

/// A transport that answers from stubs instead of the network, and records the requests it gets.
///
/// Give it to a session to test code built on cycles or on the fluent layer without a server:
///
/// ```swift
/// let mock = MockSession()
/// mock.stub(.get, "/stores", status: 200, headers: ["Content-Type": "application/json"],
///           body: Data(#"[{"name":"Shadyside"}]"#.utf8))
/// let session = HTTPSession(transport: mock)
/// let cycle = try await HTTPCycle.get("https://api.example.com/stores", session: session)
/// mock.requests.map(\.url?.path)   // ["/stores"]
/// ```
///
/// A request is answered by the most recently added stub whose method and path match (the path
/// compared without a trailing slash, the query ignored); a stub added with `times` answers that
/// many requests, then steps aside. A request nothing matches fails with
/// ``MockSessionError/noStub(method:url:)``. Everything the engine does above the transport —
/// processors, content handlers, retries, authentication, 307/308 redirects — runs as it would on
/// the network.
public final class MockSession: HTTPTransport {
    /// A stubbed answer.
    public struct Stub: Sendable {
        /// The status code.
        public var status: Int
        /// The response headers.
        public var headers: [String: String]
        /// The response body.
        public var body: Data
        /// How long to wait before answering, in seconds.
        public var delay: TimeInterval
        /// An error to fail with instead of answering (a `URLError` to imitate the network).
        public var error: (any Error)?

        /// Creates a stubbed answer.
        ///
        /// - Parameters:
        ///   - status: The status code, 200 by default.
        ///   - headers: The response headers.
        ///   - body: The response body.
        ///   - delay: How long to wait before answering, in seconds.
        ///   - error: An error to fail with instead of answering.
        public init(
            status: Int = 200, headers: [String: String] = [:], body: Data = Data(),
            delay: TimeInterval = 0, error: (any Error)? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.error = error
        }
    }

    private struct Route {
        let method: HTTPMethod
        let path: String
        let stub: Stub
        var remaining: Int?
    }

    private struct State {
        var routes: [Route] = []
        var requests: [HTTPRequest] = []
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "Jewzruxin.MockSession")

    /// Creates a transport without stubs.
    public init() {}

    /// Answers requests with `method` to `path` with `stub`.
    ///
    /// - Parameters:
    ///   - method: The method to match.
    ///   - path: The URL path to match, such as `/stores`.
    ///   - stub: The answer.
    ///   - times: How many requests it answers; `nil` for all.
    public func stub(_ method: HTTPMethod, _ path: String, _ stub: Stub, times: Int? = nil) {
        let route = Route(method: method, path: Self.normalized(path), stub: stub, remaining: times)
        state.withLock { $0.routes.append(route) }
    }

    /// Answers requests with `method` to `path` with a response.
    ///
    /// - Parameters:
    ///   - method: The method to match.
    ///   - path: The URL path to match, such as `/stores`.
    ///   - status: The status code.
    ///   - headers: The response headers.
    ///   - body: The response body.
    ///   - delay: How long to wait before answering, in seconds.
    ///   - times: How many requests it answers; `nil` for all.
    public func stub(
        _ method: HTTPMethod, _ path: String, status: Int = 200, headers: [String: String] = [:],
        body: Data = Data(), delay: TimeInterval = 0, times: Int? = nil
    ) {
        stub(method, path, Stub(status: status, headers: headers, body: body, delay: delay), times: times)
    }

    /// Fails requests with `method` to `path` with `error`.
    ///
    /// - Parameters:
    ///   - method: The method to match.
    ///   - path: The URL path to match.
    ///   - error: The error, such as `URLError(.timedOut)`.
    ///   - delay: How long to wait before failing, in seconds.
    ///   - times: How many requests it fails; `nil` for all.
    public func stub(_ method: HTTPMethod, _ path: String, error: any Error, delay: TimeInterval = 0, times: Int? = nil) {
        stub(method, path, Stub(delay: delay, error: error), times: times)
    }

    /// Forgets every stub.
    public func removeAllStubs() {
        state.withLock { $0.routes.removeAll() }
    }

    /// The requests received so far, in order, with their bodies (an upload's included).
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Forgets the requests received so far.
    public func removeAllRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records `request`, with its upload's body, and makes a transfer that answers it from the
    /// stub it matches, or fails with ``MockSessionError/noStub(method:url:)``.
    ///
    /// - Parameters:
    ///   - request: The request as it goes on the wire.
    ///   - upload: The body to send instead of the request's, for an upload.
    ///   - events: Where the transfer reports the answer.
    /// - Returns: The transfer, which answers once the engine resumes it and the stub's delay has
    ///   passed.
    public func makeTransfer(for request: HTTPRequest, upload: HTTPCycle.UploadSource?, events: HTTPTransferEvents) -> any HTTPTransfer {
        var recorded = request
        switch upload {
        case .data(let data)?: recorded.data = data
        case .file(let url)?: recorded.data = try? Data(contentsOf: url)
        case .multipart(let form)?: recorded.data = try? form.encodedData()
        // Not read: a streamed body is produced as it is sent, and a mock sends nothing.
        case .stream?, nil: break
        }
        let answer = state.withLock { s -> Result<Stub, MockSessionError> in
            s.requests.append(recorded)
            let method = request.method
            let path = Self.normalized(request.url?.path ?? "")
            guard let index = s.routes.lastIndex(where: { $0.method == method && $0.path == path && $0.remaining != 0 }) else {
                return .failure(.noStub(method: method, url: request.url))
            }
            s.routes[index].remaining = s.routes[index].remaining.map { $0 - 1 }
            return .success(s.routes[index].stub)
        }
        return Transfer(request: recorded, answer: answer, events: events, queue: queue)
    }

    private static func normalized(_ path: String) -> String {
        var path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path.isEmpty ? "/" : path
    }

    private final class Transfer: HTTPTransfer {
        let request: HTTPRequest
        let answer: Result<Stub, MockSessionError>
        let events: HTTPTransferEvents
        let queue: DispatchQueue
        private let done = Locked(false)

        init(request: HTTPRequest, answer: Result<Stub, MockSessionError>, events: HTTPTransferEvents, queue: DispatchQueue) {
            self.request = request
            self.answer = answer
            self.events = events
            self.queue = queue
        }

        func resume() {
            let delay = (try? answer.get().delay) ?? 0
            queue.asyncAfter(deadline: .now() + max(0, delay)) { self.deliver() }
        }

        func cancel() {
            queue.async { self.complete(error: URLError(.cancelled)) }
        }

        /// Reports the end once; `false` if it was reported already.
        @discardableResult
        private func complete(error: (any Error)?) -> Bool {
            guard done.withLock({ done in defer { done = true }; return !done }) else { return false }
            events.didComplete(error: error)
            return true
        }

        private func deliver() {
            guard !done.withLock({ $0 }) else { return }
            let stub: Stub
            switch answer {
            case .failure(let error):
                complete(error: error)
                return
            case .success(let found):
                stub = found
            }
            if let error = stub.error {
                complete(error: error)
                return
            }
            if let body = request.data, !body.isEmpty {
                let size = Int64(body.count)
                events.didSend(bytes: size, totalBytes: size, expectedBytes: size)
            }
            guard let url = request.url,
                  let response = HTTPURLResponse(url: url, statusCode: stub.status, httpVersion: "HTTP/1.1", headerFields: stub.headers)
            else {
                complete(error: URLError(.badServerResponse))
                return
            }
            events.didReceive(response)
            var offset = 0
            while offset < stub.body.count, !done.withLock({ $0 }) {
                let end = min(offset + 16 << 10, stub.body.count)
                events.didReceive(stub.body.subdata(in: offset..<end))
                offset = end
            }
            complete(error: nil)
        }
    }
}

/// Why a ``MockSession`` couldn't answer.
public enum MockSessionError: Error, Sendable, CustomStringConvertible {
    /// No stub matches the request's method and path.
    case noStub(method: HTTPMethod, url: URL?)

    /// A sentence naming the request that found no stub.
    public var description: String {
        switch self {
        case .noStub(let method, let url):
            return "MockSession has no stub for \(method.rawValue) \(url?.absoluteString ?? "(no URL)")"
        }
    }
}
