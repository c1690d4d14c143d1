import Foundation
import JewzruxinPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately misbehaving TCP server that plays a script on every connection.
///
/// Where ``Sandbox`` is a well-behaved HTTP server with a few faulty endpoints, a
/// `ScriptedServer` knows no HTTP beyond reading request heads: each accepted connection runs
/// a list of ``Step``s, so a test can make a client face any byte sequence and any ending —
/// malformed status lines, a response cut anywhere, a reset, a server that never answers,
/// a second connection that behaves differently from the first.
///
/// ```swift
/// try await ScriptedServer.withServer([[
///     .readRequest,
///     .sendText("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhal"),
///     .reset,
/// ]]) { server in
///     let cycle = try await HTTPCycle.get(server.baseURL.absoluteString + "/")  // throws
/// }
/// ```
///
/// The server listens on `127.0.0.1` on a free port. Every connection runs on a thread of its
/// own (not on GCD or the cooperative pool, which a blocked step would stall). A step that
/// finds the peer gone ends that connection's script; a script that runs out of steps ends
/// with an orderly close, as ``Step/close`` does. Every wait (reading, ``Step/pause(_:)``,
/// ``Step/waitForClientClose``) ends at once when the server stops.
public final class ScriptedServer: Sendable {
    /// One thing the server does on a connection.
    public enum Step: Sendable {
        /// Reads one request head (up to the empty line) and then as many body bytes as its
        /// `Content-Length` says; the head is recorded in ``ScriptedServer/requestHeads``.
        ///
        /// The script ends when the peer closes the connection first.
        case readRequest
        /// Reads one request head (up to the empty line) and none of its body, as a server does
        /// that answers before the body (a `413`); the head is recorded in
        /// ``ScriptedServer/requestHeads``.
        ///
        /// The script ends when the peer closes the connection first.
        case readRequestHead
        /// Sends bytes as they are.
        case send(Data)
        /// Sends the UTF-8 bytes of a string as they are (write `\r\n` yourself).
        case sendText(String)
        /// Sends the UTF-8 bytes of a string again and again, for ever: until the peer closes the
        /// connection (or resets it) or the server stops, which ends the script.
        case sendForever(String)
        /// Waits this many seconds (ends early, and ends the script, when the server stops).
        case pause(TimeInterval)
        /// Closes in order: sends FIN, waits up to a second for the peer to close its side
        /// (discarding what it still sends, so that unread bytes don't turn the close into a
        /// reset), then closes the socket. Ends the script.
        case close
        /// Closes with `SO_LINGER` set to zero, so the peer gets a TCP reset (RST) instead of
        /// FIN. Ends the script.
        case reset
        /// Reads and discards whatever arrives until the peer closes the connection (or resets
        /// it, or the server stops).
        case waitForClientClose
    }

    /// The TCP port the server listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public let baseURL: URL

    private let core: ScriptedServerCore
    private let listenFD: Int32
    private let stopped = Locked(false)

    /// Starts a server whose connection number `i` (counting from 0 in the order they are
    /// accepted) runs `connectionScripts[min(i, connectionScripts.count - 1)]`.
    ///
    /// So `[[first], [rest]]` scripts the first connection one way and every later one
    /// another way. An empty array closes every connection at once.
    ///
    /// - Parameters:
    ///   - connectionScripts: The scripts, by connection number.
    ///   - port: The port on 127.0.0.1; 0 (the default) for one the system picks.
    /// - Throws: ``SandboxError`` when the listening socket can't be set up.
    public init(connectionScripts: [[Step]], port: UInt16 = 0) throws {
        let signal = try StopSignal()
        let listener: (fd: Int32, port: UInt16)
        do {
            listener = try Listener.open(host: "127.0.0.1", port: port)
        } catch {
            signal.close()
            throw error
        }
        guard let url = URL(string: "http://127.0.0.1:\(listener.port)") else {
            Platform.closeDescriptor(listener.fd)
            signal.close()
            throw SandboxError.addressResolutionFailed(host: "127.0.0.1", code: 0, message: "host cannot be used in a URL")
        }
        self.port = Int(listener.port)
        baseURL = url
        listenFD = listener.fd
        let core = ScriptedServerCore(scripts: connectionScripts, stopSignal: signal)
        self.core = core
        let fd = listener.fd
        core.threads.spawn(name: "ScriptedServer accept") {
            core.acceptLoop(listenFD: fd)
        }
    }

    /// Starts a server that runs `script` on every connection.
    ///
    /// - Parameter script: The steps of each connection.
    /// - Throws: ``SandboxError`` when the listening socket can't be set up.
    public convenience init(script: [Step]) throws {
        try self.init(connectionScripts: [script])
    }

    deinit {
        stop()
    }

    /// The number of connections accepted so far.
    public var connectionCount: Int { core.state.withLock { $0.connectionCount } }

    /// The request heads read by ``Step/readRequest`` so far, in the order they were read:
    /// the request line and header lines, each ended by CRLF, then an empty line (CRLF).
    public var requestHeads: [String] { core.state.withLock { $0.requestHeads } }

    /// Stops the server: wakes every waiting step, closes the listener and every
    /// connection, and returns once all the server's threads have finished.
    ///
    /// Idempotent and safe from any thread; it blocks while threads finish (briefly), so call it
    /// off the cooperative pool, or use ``withServer(_:_:)``.
    public func stop() {
        ServerLifetime.stop(stopped, signal: core.stopSignal, threads: core.threads, listener: listenFD)
    }

    /// Runs `body` with a server playing `scripts` (as ``init(connectionScripts:port:)`` does),
    /// stopped afterwards on a thread of its own.
    ///
    /// - Parameters:
    ///   - scripts: The scripts, by connection number.
    ///   - body: What to do with the running server.
    /// - Returns: What `body` returns.
    /// - Throws: ``SandboxError`` if the server can't start, or what `body` throws.
    public static func withServer<T>(
        _ scripts: [[Step]], _ body: (ScriptedServer) async throws -> T
    ) async throws -> T {
        try await ServerLifetime.run(try ScriptedServer(connectionScripts: scripts), stop: { $0.stop() }, body)
    }
}

/// The state shared by a ``ScriptedServer`` and its threads.
final class ScriptedServerCore: Sendable {
    struct State: Sendable {
        var connectionCount = 0
        var requestHeads: [String] = []
    }

    /// The most bytes a request head may take.
    static let maximumHeadBytes = 64 << 10

    let scripts: [[ScriptedServer.Step]]
    let stopSignal: StopSignal
    let threads = ThreadTracker()
    let state = Locked(State())

    init(scripts: [[ScriptedServer.Step]], stopSignal: StopSignal) {
        self.scripts = scripts
        self.stopSignal = stopSignal
    }

    /// Accepts connections until the server stops, running each one's script on its own thread.
    func acceptLoop(listenFD: Int32) {
        Listener.acceptConnections(on: listenFD, until: stopSignal) { fd in
            let index = state.withLock { s -> Int in
                defer { s.connectionCount += 1 }
                return s.connectionCount
            }
            let script = scripts.isEmpty ? [] : scripts[min(index, scripts.count - 1)]
            threads.spawn(name: "ScriptedServer connection \(index)") { [self] in
                run(script, on: SocketStream(fd: fd, stop: stopSignal))
            }
        }
    }

    /// Plays `script` on one connection, then closes it (in order unless a step closed it).
    private func run(_ script: [ScriptedServer.Step], on stream: SocketStream) {
        for step in script {
            switch perform(step, on: stream) {
            case .next: continue
            case .closed: return
            case .end:
                Platform.closeDescriptor(stream.fd)
                return
            }
        }
        stream.lingeringClose()
    }

    private enum StepResult {
        /// Go on with the next step.
        case next
        /// The step closed the connection.
        case closed
        /// The peer is gone or the server is stopping: close at once.
        case end
    }

    private func perform(_ step: ScriptedServer.Step, on stream: SocketStream) -> StepResult {
        do throws(RequestError) {
            switch step {
            case .readRequest:
                return try readRequest(from: stream) ? .next : .end
            case .readRequestHead:
                return try readRequest(from: stream, body: false) ? .next : .end
            case .send(let data):
                try stream.write(data)
            case .sendText(let text):
                try stream.write(Data(text.utf8))
            case .sendForever(let text):
                // Many copies a write, so that the loop costs little next to the reader's work.
                let copies = max(1, 16_384 / max(1, text.utf8.count))
                let data = Data(String(repeating: text, count: copies).utf8)
                while true { try stream.write(data) }
            case .pause(let seconds):
                return stopSignal.sleep(seconds) ? .next : .end
            case .close:
                stream.lingeringClose()
                return .closed
            case .reset:
                Self.reset(stream.fd)
                return .closed
            case .waitForClientClose:
                var discarded = Data()
                while try stream.fill() {
                    discarded.removeAll()
                    try stream.read(exactly: stream.bufferedCount, into: &discarded)
                }
                return .end
            }
            return .next
        } catch {
            return .end
        }
    }

    /// Reads a head and, if `body`, its `Content-Length` body; `false` when the peer closed first.
    private func readRequest(from stream: SocketStream, body readsBody: Bool = true) throws(RequestError) -> Bool {
        var lines: [String] = []
        var budget = Self.maximumHeadBytes
        while true {
            guard let line = try stream.readLine(limit: budget, tooLong: "request head too long") else { return false }
            budget -= line.count + 2
            if line.isEmpty {
                if lines.isEmpty { continue }  // empty lines before the request line are ignored
                break
            }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        let head = lines.map { $0 + "\r\n" }.joined() + "\r\n"
        state.withLock { $0.requestHeads.append(head) }
        guard readsBody else { return true }
        let length = lines.dropFirst().compactMap { line -> Int? in
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-length"
            else { return nil }
            return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        var body = Data()
        try stream.read(exactly: max(0, length), into: &body)
        return true
    }

    /// Closes `fd` so that the peer gets a reset: `SO_LINGER` on with a zero timeout.
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        Platform.closeDescriptor(fd)
    }
}
