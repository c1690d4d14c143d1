import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// hotpotato's `asImage()` and the handlers that get the image: `responseImage`, `image()`,
/// `imageWithResponse()`, against the sandbox's `/image/<format>`.
@Suite("Images", .onEveryTransport)
struct ImageHandlerTests {
    @Test("asImage then responseImage: the cycle decodes with an ImageDecoder and the handler gets its ImageContent")
    func asImageThenResponseImage() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let task = chain(on: service) { service.GET("/image/png", parameters: ["width": 13, "height": 5]).asImage() }
            #expect(task.cycle?.contentHandler is ImageDecoder)
            let recorder = Recorder()
            let q1 = makeNamedQueue("q1")
            let done = await waitForCall { done in
                task.responseImage { image in
                    recorder.record("\(image.format) \(image.width)x\(image.height) \(currentQueueName())")
                }
                .responseImage(.queue(q1)) { image, response in
                    recorder.record("\(image.data == response.data) \(response.value(forHTTPHeaderField: "Content-Type") ?? "-") \(currentQueueName())")
                    done()
                }
            }
            #expect(done)
            #expect(recorder.all == ["png 13x5 delegate", "true image/png q1"])
            let content = try #require(task.cycle?.response.content as? ImageContent)
            #expect(content.width == 13 && content.height == 5)
        }
    }

    @Test("image() reads each format's size, with asImage or from the body alone", arguments: [
        ("png", ImageContent.Format.png), ("jpeg", .jpeg), ("gif", .gif),
    ])
    func formats(path: String, format: ImageContent.Format) async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let parameters: [String: any Sendable] = ["width": 17, "height": 9]
            let decoded = try await chain(on: service) { service.GET("/image/\(path)", parameters: parameters).asImage() }.image()
            #expect(decoded.format == format)
            #expect(decoded.width == 17 && decoded.height == 9)
            let read = try await service.GET("/image/\(path)", parameters: parameters).image()
            #expect(read == decoded)
        }
    }

    @Test("a large image is read off the handler queue and reaches its handler whole")
    func largeImage() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let (image, response) = try await service.GET("/image/png", parameters: ["width": 300, "height": 200])
                .validate(contentType: ["image/*"]).asImage().imageWithResponse()
            #expect(image.width == 300 && image.height == 200)
            #expect(image.data.count > ServiceTask.inlineReadLimit)
            #expect(image.data == response.data)
            #expect(response.statusCode == 200)
        }
    }

    @Test("asImage refuses a body that isn't image/*; only the error handlers run, with the response kept")
    func asImageRefusesText() async throws {
        try await withSandbox { sandbox in
            let recorder = Recorder()
            let done = await waitForCall { done in
                makeService(sandbox).GET("/hello/").asImage()
                    .responseImage { _ in recorder.record("image") }
                    .responseError { error in
                        let error = error as? ContentHandlerError
                        recorder.record("\(error?.code.rawValue ?? "other") \(error?.statusCode ?? 0)")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["unacceptable content type 200"])
        }
    }

    @Test("an image no header reader knows (SVG), or a body that is no image, fails with unparsableContent, the bytes kept")
    func unreadable() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            await #expect {
                try await chain(on: service) { service.GET("/image/svg").asImage() }.image()
            } throws: { error in
                (error as? ContentHandlerError)?.code == .unparsableContent
            }
            let task = service.GET("/hello/")
            await #expect {
                try await task.imageWithResponse()
            } throws: { error in
                let error = error as? ContentHandlerError
                return error?.code == .unparsableContent && error?.intermediateContent as? Data == Data("Hello World".utf8)
            }
            // The task has failed for the handlers after it.
            let recorder = Recorder()
            let done = await waitForCall { done in
                task.responseImage { _, _ in recorder.record("image") }
                    .responseError { _ in
                        recorder.record("error")
                        done()
                    }
            }
            #expect(done)
            #expect(recorder.all == ["error"])
        }
    }

    @Test("a failed request throws its HTTPError from image()")
    func failedRequest() async throws {
        try await withSandbox { sandbox in
            let error = await #expect(throws: HTTPError.self) { try await makeService(sandbox).GET("/image/webp").image() }
            #expect(error?.statusCode == 404)
        }
    }
}
