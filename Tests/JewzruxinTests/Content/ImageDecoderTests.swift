import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

/// Tiny, well-formed images built byte by byte.
enum TinyImage {
    /// A complete RGBA PNG of `width` × `height` opaque red pixels: signature, IHDR, one IDAT holding
    /// a zlib stream of stored (uncompressed) blocks, IEND, with real CRCs and Adler-32.
    static func png(width: Int, height: Int) -> Data {
        var raw: [UInt8] = []
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for _ in 0..<width { raw += [0xFF, 0x00, 0x00, 0xFF] }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {  // stored blocks of at most 65535 bytes, the last one marked final
            let end = min(start + 0xFFFF, raw.count)
            zlib += [end == raw.count ? 1 : 0] + le16(end - start) + le16(~(end - start) & 0xFFFF) + raw[start..<end]
            start = end
        } while start < raw.count
        zlib += be32(adler32(raw))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return Data(png)
    }

    /// A baseline JPEG header of `width` × `height`: SOI, an APP0 (JFIF) segment, a DQT, optionally a
    /// DHT, then SOF0, a DHT, SOS with a token scan, EOI.
    static func jpeg(width: Int, height: Int, huffmanTableFirst: Bool = false) -> Data {
        var jpeg: [UInt8] = [0xFF, 0xD8]
        jpeg += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        jpeg += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let dht = segment(0xC4, [0] + [UInt8](repeating: 0, count: 15) + [1] + [0])
        if huffmanTableFirst { jpeg += dht }
        jpeg += segment(0xC0, [8] + be16(height) + be16(width) + [1, 1, 0x11, 0])
        if !huffmanTableFirst { jpeg += dht }
        jpeg += segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x00, 0xFF, 0xD9]
        return Data(jpeg)
    }

    /// A GIF89a whose logical screen is `width` × `height`, with one 1×1 image in it.
    static func gif(width: Int, height: Int) -> Data {
        var gif = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0]
        gif += [0xFF, 0xFF, 0xFF, 0, 0, 0]  // global color table: white, black
        gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]  // image descriptor, 1×1 at 0,0
        gif += [0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]  // LZW data, trailer
        return Data(gif)
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
    private static func be32(_ value: UInt32) -> [UInt8] { be32(Int(value)) }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    private static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        return be32(payload.count) + typed + be32(crc32(typed))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

extension ContentHandlingTests {
    @Suite("ImageDecoder")
    struct ImageDecoderTests {
        /// Serves `data` at `/image/` as `contentType`.
        static func serve(_ sandbox: Sandbox, _ data: Data, as contentType: String) {
            sandbox.route("/image/") { _ in .data(data, contentType: contentType) }
        }

        @Test("the builders make what they claim: a PNG's CRC and a known 1×1 PNG")
        func buildersAreSound() {
            // The well-known 1×1 RGBA PNG header chunk, CRC included.
            let png = TinyImage.png(width: 1, height: 1)
            #expect(Array(png[8..<33]) == [
                0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
                0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89,
            ])
            #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        }

        @Test("PNG, JPEG (APP0 and a DHT before SOF0) and GIF give their format and size", arguments: [
            ("image/png", TinyImage.png(width: 3, height: 2), ImageContent.Format.png, 3, 2),
            ("image/png", TinyImage.png(width: 70000, height: 1), .png, 70000, 1),
            ("image/jpeg", TinyImage.jpeg(width: 5, height: 3), .jpeg, 5, 3),
            ("image/jpeg", TinyImage.jpeg(width: 640, height: 480, huffmanTableFirst: true), .jpeg, 640, 480),
            ("image/gif", TinyImage.gif(width: 300, height: 2), .gif, 300, 2),
            ("IMAGE/GIF; name=x", TinyImage.gif(width: 1, height: 1), .gif, 1, 1),
        ])
        func decodes(contentType: String, data: Data, format: ImageContent.Format, width: Int, height: Int) async throws {
            try await withSandbox { sandbox in
                Self.serve(sandbox, data, as: contentType)
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/image/"), handler: ImageDecoder(), session: session)
                #expect(result.error == nil)
                let image = try #require(result.response.content as? ImageContent)
                #expect(image.format == format)
                #expect(image.width == width)
                #expect(image.height == height)
                #expect(image.data == data)
                #expect(result.response.data == data)
                await settle(session)
            }
        }

        @Test("the header is read from the bytes, not the type: a PNG labelled image/gif is a PNG")
        func sniffsBytes() async throws {
            try await withSandbox { sandbox in
                Self.serve(sandbox, TinyImage.png(width: 4, height: 9), as: "image/gif")
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/image/"), handler: ImageDecoder(), session: session)
                let image = try #require(result.response.content as? ImageContent)
                #expect((image.format, image.width, image.height) == (.png, 4, 9))
                await settle(session)
            }
        }

        @Test("bytes that are no image, or are cut short, fail as unparsable with the bytes kept", arguments: [
            Data("this is not a PNG at all".utf8),
            TinyImage.png(width: 3, height: 2).prefix(20),
            TinyImage.jpeg(width: 5, height: 3).prefix(30),
            Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]),
            Data("GIF90a".utf8) + Data([1, 0, 1, 0]),
            Data(),
        ])
        func notAnImage(data: Data) async throws {
            try await withSandbox { sandbox in
                Self.serve(sandbox, data, as: "image/png")
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/image/"), handler: ImageDecoder(), session: session)
                let error = try #require(contentError(result, .unparsableContent))
                #expect(error.intermediateContent as? Data == data)
                #expect(result.response.content as? Data == data)
                #expect(result.response.data == data)
                await settle(session)
            }
        }

        @Test("a non-image type is refused, even for image bytes")
        func refusesOtherTypes() async throws {
            try await withSandbox { sandbox in
                let png = TinyImage.png(width: 2, height: 2)
                Self.serve(sandbox, png, as: "application/octet-stream")
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/image/"), handler: ImageDecoder(), session: session)
                let error = try #require(contentError(result, .unacceptableContentType))
                #expect(error.response?.data == png)
                #expect(result.response.content == nil)
                await settle(session)
            }
        }

        @Test("ImageContent reads headers on its own")
        func headerReader() throws {
            let jpeg = try #require(ImageContent(data: TinyImage.jpeg(width: 258, height: 513)))
            #expect((jpeg.format, jpeg.width, jpeg.height) == (.jpeg, 258, 513))
            #expect(ImageContent(data: Data([0x89, 0x50, 0x4E, 0x47])) == nil)
            #expect(ImageContent(data: Data([0xFF, 0xD8, 0xFF])) == nil)
            // Fill bytes before a marker are skipped.
            var filled = [UInt8](TinyImage.jpeg(width: 7, height: 6))
            filled.insert(contentsOf: [0xFF, 0xFF], at: 2)
            #expect(ImageContent(data: Data(filled))?.width == 7)
        }
    }
}
