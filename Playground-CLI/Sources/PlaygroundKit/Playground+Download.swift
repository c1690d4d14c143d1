import Foundation
import Jewzruxin

extension Playground {
    /// Streams a body to a file with the library's ``FileWriter`` content handler, drawing a
    /// progress line from the cycle's `didWriteDataHandler`.
    ///
    /// The file is written only when the whole body arrived with a 2xx status; otherwise nothing is
    /// left behind and whatever was at `path` stays.
    /// - Parameters:
    ///   - target: A path joined to the base URL, or an absolute URL.
    ///   - path: The file, relative to the working directory.
    /// - Throws: ``PlaygroundError`` when nothing was saved.
    func download(_ target: String, to path: String) async throws(PlaygroundError) {
        let plan = try RequestPlan(method: .get, target: target, items: [], json: false, base: baseURL)
        let cycle = HTTPCycle(requestURL: try Self.checkedURL(plan.url), session: session)
        let writer = FileWriter(url: fileURL(path))
        cycle.contentHandler = writer
        let progress = DownloadProgress(console: console)
        cycle.didWriteDataHandler = { _, _, written, expected in
            progress.update(written: written, expected: expected)
        }
        let outcome: Outcome
        do {
            outcome = try await exchange(cycle, label: nil, savedTo: path)
        } catch {
            progress.finish(written: writer.bytesWritten, expected: -1, succeeded: false)
            throw error
        }
        let response = outcome.response
        let status = response.statusCode ?? 0
        let expected = Int64(response.value(forHTTPHeaderField: "Content-Length") ?? "") ?? -1
        if let error = outcome.error {
            progress.finish(written: writer.bytesWritten, expected: expected, succeeded: false)
            console.line(statusLine(response, bytes: Int64(response.data.count), elapsed: outcome.elapsed))
            printTimingIfOn(response)
            if (200..<300).contains(status) {
                throw Self.describe(error, url: cycle.request.url, method: .get)
            }
            throw PlaygroundError("nothing saved: the server answered \(status) \(ReasonPhrase.phrase(for: status))")
        }
        progress.finish(written: writer.bytesWritten, expected: expected, succeeded: true)
        console.line(statusLine(response, bytes: writer.bytesWritten, elapsed: outcome.elapsed))
        printTimingIfOn(response)
        console.line("saved \(writer.bytesWritten == 1 ? "1 byte" : "\(writer.bytesWritten) bytes") to \(path)")
    }
}
