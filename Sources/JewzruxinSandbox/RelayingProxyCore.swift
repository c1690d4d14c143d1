import Foundation
import JewzruxinPrimitives

/// What a connection of a relaying proxy records, from nothing to as far as its client got.
protocol ProxyRecord: Sendable {
    /// A record of nothing yet.
    init()
}

/// How a proxy's handshake ends.
enum ProxyEnding {
    /// Send the last answer; then relay to the connected target, or close.
    case answer(Data, target: Int32?)
    /// Close without a word (a greeting in another protocol).
    case close
}

/// What a relaying proxy speaks before it relays (``SOCKSHandshake``, ``HTTPConnectHandshake``).
protocol ProxyHandshake: Sendable {
    associatedtype Record: ProxyRecord
    /// The name of the proxy's threads.
    static var name: String { get }
    /// Runs one connection's handshake up to its last answer, which it returns rather than sends,
    /// recording what it sees in `record` as it goes; throws when the client leaves or the proxy
    /// stops.
    func negotiate(_ client: SocketStream, _ record: inout Record, stop: StopSignal) throws(RequestError) -> ProxyEnding
}

/// The part every relaying proxy of the module (``SOCKSProxy``, ``HTTPConnectProxy``) shares: the
/// listener on `127.0.0.1`, the accept loop, a thread per connection that runs the handshake, the
/// relay both ways, the records, and the stop.
final class RelayingProxyCore<Handshake: ProxyHandshake>: Sendable {
    struct State: Sendable {
        var connectionCount = 0
        var records: [Handshake.Record] = []
    }

    let handshake: Handshake
    let stopSignal: StopSignal
    let threads = ThreadTracker()
    let state = Locked(State())
    /// The port the proxy listens on, picked by the system.
    let port: Int
    private let listenFD: Int32
    private let stopped = Locked(false)

    /// Listens on `127.0.0.1`, on a free port, and starts accepting connections.
    init(_ handshake: Handshake) throws(SandboxError) {
        let signal = try StopSignal()
        let listener: (fd: Int32, port: UInt16)
        do {
            listener = try Listener.open(host: "127.0.0.1", port: 0)
        } catch {
            signal.close()
            throw error
        }
        self.handshake = handshake
        stopSignal = signal
        port = Int(listener.port)
        listenFD = listener.fd
        threads.spawn(name: "\(Handshake.name) accept") { [self] in
            acceptLoop()
        }
    }

    /// Every connection's record so far, in the order they ended.
    var records: [Handshake.Record] { state.withLock { $0.records } }

    /// The number of connections accepted so far.
    var connectionCount: Int { state.withLock { $0.connectionCount } }

    /// Whether ``stop()`` has completed.
    var isStopped: Bool { stopped.withLock { $0 } }

    /// Wakes every thread, closes every socket and the listener, and returns once all the threads
    /// have finished; idempotent.
    func stop() {
        ServerLifetime.stop(stopped, signal: stopSignal, threads: threads, listener: listenFD)
    }

    /// Accepts connections until the proxy stops, serving each on its own thread.
    private func acceptLoop() {
        Listener.acceptConnections(on: listenFD, until: stopSignal) { fd in
            state.withLock { $0.connectionCount += 1 }
            threads.spawn(name: "\(Handshake.name) connection") { [self] in
                serve(SocketStream(fd: fd, stop: stopSignal))
            }
        }
    }

    // MARK: One connection

    private func serve(_ client: SocketStream) {
        var record = Handshake.Record()
        let ending: ProxyEnding
        do throws(RequestError) {
            ending = try handshake.negotiate(client, &record, stop: stopSignal)
        } catch {
            // The client left, or the proxy is stopping, inside the handshake.
            self.record(record)
            Platform.closeDescriptor(client.fd)
            return
        }
        // Recorded before the answer goes out: a client that has its answer finds it recorded.
        self.record(record)
        switch ending {
        case .close:
            client.lingeringClose()
        case .answer(let bytes, let target):
            do {
                try client.write(bytes)
            } catch {
                if let target { Platform.closeDescriptor(target) }
                Platform.closeDescriptor(client.fd)
                return
            }
            if let target {
                relay(client: client, target: target)
            } else {
                client.lingeringClose()
            }
        }
    }

    private func record(_ record: Handshake.Record) {
        state.withLock { $0.records.append(record) }
    }

    // MARK: Relaying

    /// Copies bytes both ways until both sides have closed (a side's end of stream is passed on to
    /// the other as a half-close) or one fails (both are then shut down), then closes both.
    private func relay(client: SocketStream, target: Int32) {
        let back = DispatchSemaphore(value: 0)
        let clientFD = client.fd
        threads.spawn(name: "\(Handshake.name) relay") { [self] in
            pump(from: SocketStream(fd: target, stop: stopSignal), to: SocketStream(fd: clientFD, stop: stopSignal))
            back.signal()
        }
        pump(from: client, to: SocketStream(fd: target, stop: stopSignal))
        back.wait()
        Platform.closeDescriptor(target)
        Platform.closeDescriptor(clientFD)
    }

    private func pump(from source: SocketStream, to destination: SocketStream) {
        do throws(RequestError) {
            var chunk = Data()
            repeat {
                // What the client sent behind its request is already buffered: it goes first.
                guard source.bufferedCount > 0 else { continue }
                chunk.removeAll(keepingCapacity: true)
                try source.read(exactly: source.bufferedCount, into: &chunk)
                try destination.write(chunk)
            } while try source.fill()
            Platform.shutdownWrite(destination.fd)
        } catch .stopped {
            return
        } catch {
            // A reset or a failed write: end the other direction too.
            Platform.shutdownBoth(source.fd)
            Platform.shutdownBoth(destination.fd)
        }
    }
}
