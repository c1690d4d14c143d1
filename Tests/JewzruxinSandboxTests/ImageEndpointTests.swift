import Foundation
import Testing
import JewzruxinTestSupport
@testable import JewzruxinSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Image endpoint: /image/<format>", .onItsOwnThread)
struct ImageEndpointTests {
    private func bigEndian(_ data: Data, _ at: Int, _ count: Int) -> Int {
        data.dropFirst(at).prefix(count).reduce(0) { $0 << 8 | Int($1) }
    }

    @Test("png, jpeg and gif carry their signature, the size asked for in their header, and their type")
    func formats() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }

        let (png, pngResponse) = try await TestSupport.get(sandbox, "/image/png?width=13&height=5")
        #expect(pngResponse.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.dropFirst(12).prefix(4) == Data("IHDR".utf8))
        #expect(bigEndian(png, 16, 4) == 13)
        #expect(bigEndian(png, 20, 4) == 5)
        #expect(png.suffix(8).prefix(4) == Data("IEND".utf8))

        let (jpeg, jpegResponse) = try await TestSupport.get(sandbox, "/image/jpeg?width=17&height=9")
        #expect(jpegResponse.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
        #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
        #expect(jpeg.suffix(2) == Data([0xFF, 0xD9]))
        let frame = try #require(jpeg.firstRange(of: Data([0xFF, 0xC0])))
        let start = frame.lowerBound - jpeg.startIndex
        #expect(bigEndian(jpeg, start + 5, 2) == 9)   // height
        #expect(bigEndian(jpeg, start + 7, 2) == 17)  // width

        let (gif, gifResponse) = try await TestSupport.get(sandbox, "/image/gif")
        #expect(gifResponse.value(forHTTPHeaderField: "Content-Type") == "image/gif")
        #expect(gif.prefix(6) == Data("GIF89a".utf8))
        #expect(Array(gif.dropFirst(6).prefix(4)) == [8, 0, 6, 0])  // the default 8 × 6, little-endian
        #expect(gif.last == 0x3B)

        let (svg, svgResponse) = try await TestSupport.get(sandbox, "/image/svg?width=3&height=2")
        #expect(svgResponse.value(forHTTPHeaderField: "Content-Type") == "image/svg+xml")
        #expect(String(decoding: svg, as: UTF8.self).contains(#"width="3" height="2""#))
    }

    @Test("a large PNG splits its pixels into stored blocks of at most 65535 bytes")
    func largePNG() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (png, response) = try await TestSupport.get(sandbox, "/image/png?width=300&height=200")
        #expect(response.statusCode == 200)
        // 200 rows of a filter byte and 900 bytes of pixels, in three stored blocks of 5 header
        // bytes each, plus the zlib header and checksum.
        let idatLength = bigEndian(png, 33, 4)
        #expect(idatLength == 200 * 901 + 3 * 5 + 2 + 4)
        #expect(png.count == 8 + 25 + 12 + idatLength + 12)
    }

    @Test("an unknown format is 404, a size out of range 400")
    func errors() async throws {
        let sandbox = try Sandbox.start()
        defer { sandbox.stop() }
        let (_, unknown) = try await TestSupport.get(sandbox, "/image/webp")
        #expect(unknown.statusCode == 404)
        let (_, tooWide) = try await TestSupport.get(sandbox, "/image/png?width=5000")
        #expect(tooWide.statusCode == 400)
        let (_, empty) = try await TestSupport.get(sandbox, "/image/gif?height=0")
        #expect(empty.statusCode == 400)
    }
}
