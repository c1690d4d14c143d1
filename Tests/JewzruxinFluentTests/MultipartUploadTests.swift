import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport

@Suite("Multipart uploads through WebService", .onEveryTransport)
struct FluentMultipartUploadTests {
    struct Report: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            let name: String?
            let filename: String?
            let size: Int
        }
        let parts: [Part]
        let chunked: Bool
    }

    @Test("upload(multipart:to:) sends the form with its headers and options; progress reaches the length")
    func uploadForm() async throws {
        try await withSandbox { sandbox in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-fluent-\(UUID().uuidString).txt")
            try Data(repeating: 0x41, count: 50_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var form = MultipartFormData()
            form.append("Jane", name: "name")
            form.append(fileAt: file, name: "notes", filename: "notes.txt")
            let length = try #require(try form.contentLength())
            let sent = Locked<Int64>(0)
            let service = makeService(sandbox)
            let report = try await service.upload(
                multipart: form, to: "/multipart/", method: .put, options: [.header("X-Trace", "1")],
                progress: { _, _, total, _ in sent.withLock { $0 = max($0, total) } }
            ).decode(Report.self)
            #expect(report.parts.map(\.name) == ["name", "notes"])
            #expect(report.parts.map(\.filename) == [nil, "notes.txt"])
            #expect(report.parts.map(\.size) == [4, 50_000])
            #expect(!report.chunked)
            // Progress runs on the handler queue, before the completion the await resumes from.
            await withHandover { continuation in service.session.delegateQueue.addOperation { continuation.resume() } }
            #expect(sent.withLock { $0 } == length)

            let echoed = try await service.upload(multipart: form, to: "/inspect/", options: [.header("X-Trace", "1")]).json()
            #expect(echoed["method"]?.stringValue == "POST")
            let headers = echoed["headers"]?.arrayValue?.compactMap { pair -> (String, String)? in
                guard let name = pair[0]?.stringValue, let value = pair[1]?.stringValue else { return nil }
                return (name.lowercased(), value)
            } ?? []
            #expect(headers.contains { $0 == ("content-type", form.contentType) })
            #expect(headers.contains { $0 == ("x-trace", "1") })
        }
    }

    @Test("an upload goes through the service's interceptors, as its other requests do")
    func uploadIntercepted() async throws {
        try await withSandbox { sandbox in
            var form = MultipartFormData()
            form.append("Jane", name: "name")
            let service = WebService(
                baseURLString: sandbox.baseURL.absoluteString, session: makeSession(),
                interceptors: [RequestInterceptor.header("X-Intercepted", "yes")])
            let echoed = try await service.upload(multipart: form, to: "/inspect/").json()
            let headers = echoed["headers"]?.arrayValue?.compactMap { pair -> String? in
                pair[0]?.stringValue?.lowercased() == "x-intercepted" ? pair[1]?.stringValue : nil
            } ?? []
            #expect(headers == ["yes"])
        }
    }

    @Test("a missing file fails the task with MultipartFormDataError before anything is sent")
    func missingFile() async throws {
        try await withSandbox { sandbox in
            var form = MultipartFormData()
            form.append(fileAt: URL(fileURLWithPath: "/nonexistent/jewzruxin.bin"), name: "f")
            await #expect(throws: MultipartFormDataError.unreadableFile(part: "f", path: "/nonexistent/jewzruxin.bin", reason: "no such file")) {
                _ = try await makeService(sandbox).upload(multipart: form, to: "/multipart/").data()
            }
        }
    }
}
