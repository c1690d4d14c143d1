import Foundation
import Jewzruxin
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Playground {
    /// Streams a body to a file through the library's resumable download, drawing a progress line
    /// from the cycle's `didWriteDataHandler`.
    ///
    /// The bytes go to `path` + `.partial`, which replaces `path` only when the whole body arrived
    /// with a 2xx status. A download that fails or is interrupted keeps the partial file, for
    /// `download --resume`.
    /// - Parameters:
    ///   - target: A path joined to the base URL, or an absolute URL.
    ///   - path: The file, relative to the working directory.
    /// - Throws: ``PlaygroundError`` when nothing was saved.
    func download(_ target: String, to path: String) async throws(PlaygroundError) {
        let plan = try RequestPlan(method: .get, target: target, items: [], json: false, base: baseURL)
        let url = try Self.checkedURL(plan.url)
        let partial = fileURL(path + ".partial")
        // A new download starts afresh: whatever an older one left is not this body.
        try? FileManager.default.removeItem(at: partial)
        try await download(DownloadResumeData(url: url, fileURL: partial), to: path)
    }

    /// Goes on with the last download that failed or was interrupted, from the bytes it kept.
    ///
    /// - Throws: ``PlaygroundError`` when there is none, or when nothing was saved.
    func resumeDownload() async throws(PlaygroundError) {
        guard let (resumeData, path) = interruptedDownload else {
            throw PlaygroundError("no interrupted download to resume")
        }
        console.line("resuming \(path) after \(resumeData.bytesReceived == 1 ? "1 byte" : "\(resumeData.bytesReceived) bytes")")
        try await download(resumeData, to: path)
    }

    private func download(_ resumeData: DownloadResumeData, to path: String) async throws(PlaygroundError) {
        let cycle = HTTPCycle(requestURL: resumeData.url, session: session)
        let destination = fileURL(path)
        cycle.makeResumableDownload(from: resumeData) { _, location in
            // In one rename, next to it; copied from another file system.
            if rename(location.path, destination.path) != 0 {
                try? FileManager.default.removeItem(at: destination)
                try? FileManager.default.copyItem(at: location, to: destination)
            }
        }
        let progress = DownloadProgress(console: console)
        cycle.didWriteDataHandler = { _, _, written, expected in
            progress.update(written: written, expected: expected)
        }
        interruptedDownload = nil
        let outcome: Outcome
        do {
            outcome = try await exchange(cycle, label: nil, savedTo: path)
        } catch {
            progress.finish(written: keep(cycle, path), expected: -1, succeeded: false)
            throw error
        }
        let response = outcome.response
        let status = response.statusCode ?? 0
        let expected = Int64(response.value(forHTTPHeaderField: "Content-Length") ?? "") ?? -1
        if let error = outcome.error {
            progress.finish(written: keep(cycle, path), expected: expected, succeeded: false)
            console.line(statusLine(response, bytes: Int64(response.data.count), elapsed: outcome.elapsed))
            printTimingIfOn(response)
            if (200..<300).contains(status) {
                throw Self.describe(error, url: cycle.request.url, method: .get, timeout: timeout)
            }
            throw PlaygroundError("nothing saved: the server answered \(status) \(ReasonPhrase.phrase(for: status))")
        }
        let saved = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64) ?? 0
        progress.finish(written: saved, expected: expected, succeeded: true)
        console.line(statusLine(response, bytes: saved, elapsed: outcome.elapsed))
        printTimingIfOn(response)
        console.line("saved \(saved == 1 ? "1 byte" : "\(saved) bytes") to \(path)")
    }

    /// After a failure: remembers a partial file with bytes for `download --resume`, removes an
    /// empty one, and returns the bytes kept.
    private func keep(_ cycle: HTTPCycle, _ path: String) -> Int64 {
        guard let resumeData = cycle.downloadResumeData else { return 0 }
        guard resumeData.bytesReceived > 0 else {
            try? FileManager.default.removeItem(at: resumeData.fileURL)
            return 0
        }
        interruptedDownload = (resumeData, path)
        console.line("kept \(resumeData.bytesReceived == 1 ? "1 byte" : "\(resumeData.bytesReceived) bytes") in \(path).partial: download --resume goes on")
        return resumeData.bytesReceived
    }
}
