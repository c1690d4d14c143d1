import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Synchronization
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// hotpotato's content handler shortcuts: they configure the cycle before it starts.
@Suite("Content handler shortcuts", .onEveryTransport)
struct ContentShortcutTests {
    @Test("asJSON then responseJSON: the cycle parses with a JSONParser and the handler gets its value")
    func asJSON() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/stores", parameters: ["zip": "15217"]).asJSON()
            #expect(task.cycle?.contentHandler is JSONParser)
            let zip = Mutex<String?>(nil)
            let done = await waitForCall { done in
                task.responseJSON { json in
                    zip.withLock { $0 = json["0.address.zip"]?.stringValue }
                    done()
                }
            }
            #expect(done)
            #expect(zip.withLock { $0 } == "15217")
            let response = try #require(task.cycle?.response)
            #expect(response.content as? JSON == (try JSON(data: response.data)))
            #expect(try await task.json()["1.name"]?.stringValue == "Greenfield")
        }
    }

    @Test("asJSON on a text body: the parser refuses it and only error handlers run")
    func asJSONRefusesText() async throws {
        try await withSandbox { sandbox in
            let code = Mutex<ContentHandlerError.Code?>(nil)
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/").asJSON()
                    .responseJSON { _ in Issue.record("not JSON") }
                    .responseError { error in
                        code.withLock { $0 = (error as? ContentHandlerError)?.code }
                        done()
                    }
            }
            #expect(done)
            #expect(code.withLock { $0 } == .unacceptableContentType)
        }
    }

    @Test("asString and asData set their handlers; responseString gets the converted text")
    func asStringAndAsData() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let stringTask = service.GET("/echo/", parameters: ["content": "grüße", "encoding": "iso-8859-1"]).asString()
            #expect(stringTask.cycle?.contentHandler is StringConverter)
            #expect(try await stringTask.string() == "grüße")
            #expect(stringTask.cycle?.response.content as? String == "grüße")

            let dataTask = service.GET("/bytes/300").asData()
            #expect(dataTask.cycle?.contentHandler is Accumulator)
            let data = try await dataTask.data()
            #expect(data == Data((0..<300).map { UInt8($0 % 251) }))
            #expect(dataTask.cycle?.response.content as? Data == data)
        }
    }

    @Test("downloadToFile writes the body to the file; the response keeps no data")
    func downloadToFile() async throws {
        try await withSandbox { sandbox in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fluent-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("bytes.bin").path

            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/bytes/70000").downloadToFile(path) }
            #expect(task.cycle?.contentHandler is FileWriter)
            let response = try await task.response()
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data((0..<70000).map { UInt8($0 % 251) }))
        }
    }

    @Test("downloadToFile after a failed status leaves no file; error handlers run")
    func downloadToFileFailure() async throws {
        try await withSandbox { sandbox in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("fluent-\(UUID().uuidString).bin").path
            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/status/404").downloadToFile(path) }
            await #expect(throws: (any Error).self) { try await task.response() }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("downloadToStream writes the body to the stream")
    func downloadToStream() async throws {
        try await withSandbox { sandbox in
            let stream = OutputStream(toMemory: ())
            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/hello/").downloadToStream(stream) }
            #expect(task.cycle?.contentHandler is StreamWriter)
            _ = try await task.response()
            let written = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data
            #expect(written == Data("Hello World".utf8))
        }
    }

    @Test("discardResponseContent keeps the status and drops the body")
    func discard() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/bytes/1000").discardResponseContent() }
            #expect(task.cycle?.contentHandler === SelectiveDiscarder.shared)
            let response = try await task.response()
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(response.content == nil)
        }
    }

    @Test("contentHandler sets any handler, a capped Accumulator failing cleanly; configure changes the cycle")
    func anyHandlerAndConfigure() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let capped = chain(on: service) { service.GET("/bytes/4096").contentHandler(Accumulator(maximumSize: 1024)) }
            await #expect(throws: ContentHandlerError.self) { _ = try await capped.data() }
            #expect((capped.cycle?.contentHandler as? Accumulator)?.maximumSize == 1024)

            let configured = chain(on: service) { service.GET("/hello/").configure { $0.identifier = "greeting" } }
            let text = try await configured.string()
            #expect(text == "Hello World")
            #expect(configured.cycle?.identifier == "greeting")
        }
    }

    @Test("configure's closure runs without the task's lock: a start from another thread waits for it; it may configure again")
    func configureOutsideTheLock() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/inspect/")
            let resumed = DispatchSemaphore(value: 0)
            task.configure { cycle in
                // Once the task's lock was held here, this start waited for it: now it returns, and
                // the start waits for the change instead.
                Thread.detachNewThread {
                    task.resume()
                    resumed.signal()
                }
                guard resumed.wait(timeout: .now() + eventTimeout) == .success else {
                    Issue.record("a start from another thread was held up by configure's closure")
                    return
                }
                cycle.request.setValue("late", forHTTPHeaderField: "X-Change")
                task.configure { $0.identifier = "nested" }
            }
            let data = try await task.data()
            let headers = try JSONDecoder().decode(InspectedHeaders.self, from: data).headers
            #expect(headers.contains(["X-Change", "late"]))
            #expect(task.cycle?.identifier == "nested")
        }
    }

    @Test("a shortcut after the task has started changes nothing")
    func shortcutAfterStart() async throws {
        try await withSandbox { sandbox in
            let task = makeService(sandbox).GET("/hello/")
            let text = try await task.string()
            #expect(text == "Hello World")
            task.asJSON()
            task.contentHandler(StringConverter()).configure { $0.identifier = "late" }
            #expect(task.cycle?.contentHandler == nil)
            #expect(task.cycle?.identifier != "late")
        }
    }
}

/// The headers the sandbox's `/inspect/` endpoint saw, as name-value pairs.
private struct InspectedHeaders: Decodable {
    let headers: [[String]]
}
