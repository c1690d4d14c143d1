import Foundation
import Jewzruxin
import JewzruxinLogging
import JewzruxinSandbox
import Logging
import Synchronization

/// Keeps the lines logged, to print them and check that the bridge logged the request.
struct Recorder: LogHandler {
    static let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        Self.lines.withLock { $0.append("\(event.level): \(event.message)") }
    }
}

let sandbox = try Sandbox.start()
defer { sandbox.stop() }
let session = HTTPSession()
session.eventMonitors.append(LoggingMonitor(logger: Logger(label: "http") { _ in Recorder() }))
let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/", session: session)
let lines = Recorder.lines.withLock { $0 }
lines.forEach { print($0) }
guard cycle.response.statusCode == 200, lines.contains(where: { $0.hasPrefix("debug: → GET") }),
      lines.contains(where: { $0.hasPrefix("info: GET") && $0.hasSuffix("→ 200") }) else {
    print("the swift-log bridge did not log the request and its answer")
    exit(1)
}
