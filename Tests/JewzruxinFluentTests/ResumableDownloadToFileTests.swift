import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport

@Suite("downloadToFile(_:resumingFrom:)", .onEveryTransport)
struct ResumableDownloadToFileTests {
    @Test("a cut download keeps its partial file; a second task resumes it and the file is byte-exact")
    func cutThenResume() async throws {
        try await withSandbox { sandbox in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fluent-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("blob.bin").path
            let service = makeService(sandbox)

            // GIVEN a resumable download cut after 40 000 bytes
            let first = chain(on: service) {
                service.GET("/range/120000?key=fluent&drop_after=40000").downloadToFile(path, resumingFrom: nil)
            }
            let interrupted: DownloadInterruptedError
            do {
                _ = try await first.response()
                Issue.record("the cut download succeeded")
                return
            } catch let error as DownloadInterruptedError {
                interrupted = error
            }
            #expect(interrupted.resumeData.bytesReceived == 40_000)
            #expect(interrupted.resumeData.fileURL.path == path + ".partial")
            #expect(first.downloadResumeData == interrupted.resumeData)
            #expect(!FileManager.default.fileExists(atPath: path))

            // WHEN a second task resumes it
            let second = chain(on: service) {
                service.GET("/range/120000?key=fluent&drop_after=40000").downloadToFile(path, resumingFrom: interrupted.resumeData)
            }
            let response = try await second.response()

            // THEN the rest came as a 206 and the file is whole, with no partial file left
            #expect(response.statusCode == 206)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == SandboxBody.expectedPattern(count: 120_000))
            #expect(sandbox.rangeRequests(forKey: "fluent").map(\.range) == [nil, "bytes=40000-"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["blob.bin"])
        }
    }
}
