import Foundation

// `/image/<format>` serves a small image of one colour, made on each request, for clients that
// decode images (hotpotato's `downloadContentAsImage`, httpbin's `/image/png`):
//
// | Format | Content-Type  | Body                                                            |
// |--------|---------------|-----------------------------------------------------------------|
// | png    | image/png     | RGB, 8 bits, stored (uncompressed) deflate blocks               |
// | jpeg   | image/jpeg    | baseline, grayscale, every block mid-grey                       |
// | gif    | image/gif     | GIF89a, a two-colour palette                                    |
// | svg    | image/svg+xml | a `<rect>` of that size: an image no header reader can size     |
//
// `width` and `height` (8 and 6 by default, 1…4096 each) set the size in pixels, so a client's
// reading of the header can't pass by chance, and a large PNG (4096 × 4096 is 48 MiB) tests a large
// body. Any method; an unknown format is 404, a bad size 400.

extension Sandbox {
    /// The largest width or height `/image/` makes.
    static let maximumImageSide: Int64 = 4096

    static func registerImageEndpoints(on core: ServerCore) {
        core.addRoute("/image/*", guarded(image))
    }

    static func image(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let path = ServerCore.normalize(request.path)
        let format = path.dropFirst("/image/".count)
        let width = Int(try integer(request, "width", default: 8, in: 1...maximumImageSide))
        let height = Int(try integer(request, "height", default: 6, in: 1...maximumImageSide))
        switch format {
        case "png": return .data(SandboxImage.png(width: width, height: height), contentType: "image/png")
        case "jpeg": return .data(SandboxImage.jpeg(width: width, height: height), contentType: "image/jpeg")
        case "gif": return .data(SandboxImage.gif(width: width, height: height), contentType: "image/gif")
        case "svg":
            let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)">"#
                + ##"<rect width="100%" height="100%" fill="#3366cc"/></svg>"##
            return .data(Data(svg.utf8), contentType: "image/svg+xml")
        default:
            return .error(404, "no image format \(format); use png, jpeg, gif or svg")
        }
    }
}

/// Encoders of images of one colour, just enough of each format for a decoder to read.
enum SandboxImage {
    // MARK: PNG

    /// A PNG of `width` × `height` RGB pixels of one colour, its pixels in stored deflate blocks.
    static func png(width: Int, height: Int) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8 bits, RGB, deflate, no filter method, no interlace
        appendChunk("IHDR", header, to: &out)

        // Each row: filter type 0, then the pixels.
        var row = Data([0])
        for _ in 0..<width { row.append(contentsOf: [0x33, 0x66, 0xCC]) }
        var pixels = Data(capacity: row.count * height)
        for _ in 0..<height { pixels.append(row) }
        appendChunk("IDAT", zlibStored(pixels), to: &out)
        appendChunk("IEND", Data(), to: &out)
        return out
    }

    private static func appendChunk(_ type: String, _ data: Data, to out: inout Data) {
        out.appendBigEndian(UInt32(data.count))
        var typed = Data(type.utf8)
        typed.append(data)
        out.append(typed)
        out.appendBigEndian(crc32(typed))
    }

    /// A zlib stream of `data` in stored (uncompressed) deflate blocks.
    private static func zlibStored(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let count = min(0xFFFF, data.count - offset)
            let isLast = offset + count == data.count
            out.append(isLast ? 1 : 0)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8)])
            out.append(contentsOf: [UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(data[data.startIndex + offset ..< data.startIndex + offset + count])
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out.appendBigEndian(b << 16 | a)
        return out
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    // MARK: JPEG

    /// A baseline grayscale JPEG of `width` × `height` mid-grey pixels.
    ///
    /// Every 8 × 8 block has all its coefficients zero (grey 128 after the level shift), so the
    /// Huffman tables need one code each: DC difference category 0, and end of block.
    static func jpeg(width: Int, height: Int) -> Data {
        var out = Data([0xFF, 0xD8])
        // Quantisation table 0, all ones.
        out.append(contentsOf: [0xFF, 0xDB, 0x00, 67, 0x00])
        out.append(contentsOf: [UInt8](repeating: 1, count: 64))
        // Start of frame, baseline: 8 bits, the size, one component (id 1, 1×1, table 0).
        out.append(contentsOf: [0xFF, 0xC0, 0x00, 11, 8])
        out.appendBigEndian(UInt16(height))
        out.appendBigEndian(UInt16(width))
        out.append(contentsOf: [1, 1, 0x11, 0])
        // Huffman tables DC 0 and AC 0: one code of length 1 each, for symbol 0.
        for tableClass: UInt8 in [0x00, 0x10] {
            out.append(contentsOf: [0xFF, 0xC4, 0x00, 20, tableClass, 1])
            out.append(contentsOf: [UInt8](repeating: 0, count: 15))
            out.append(0)
        }
        // Start of scan: component 1 with tables 0/0, spectral selection 0...63.
        out.append(contentsOf: [0xFF, 0xDA, 0x00, 8, 1, 1, 0x00, 0, 63, 0])
        // Two zero bits a block (category 0, end of block), padded with ones: never 0xFF.
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let bits = blocks * 2
        out.append(contentsOf: [UInt8](repeating: 0, count: bits / 8))
        if bits % 8 != 0 { out.append(UInt8(0xFF >> (bits % 8))) }
        out.append(contentsOf: [0xFF, 0xD9])
        return out
    }

    // MARK: GIF

    /// A GIF89a of `width` × `height` pixels of the second colour of a two-colour palette.
    ///
    /// The LZW stream uses 3-bit codes only: a clear code before every two pixels keeps the
    /// decoder's table from growing past them.
    static func gif(width: Int, height: Int) -> Data {
        var out = Data("GIF89a".utf8)
        out.appendLittleEndian(UInt16(width))
        out.appendLittleEndian(UInt16(height))
        out.append(contentsOf: [0x80, 0, 0])  // a global table of 2 colours; background 0; no aspect
        out.append(contentsOf: [0xFF, 0xFF, 0xFF, 0x33, 0xCC, 0x66])
        out.append(0x2C)  // image descriptor
        out.appendLittleEndian(UInt16(0))
        out.appendLittleEndian(UInt16(0))
        out.appendLittleEndian(UInt16(width))
        out.appendLittleEndian(UInt16(height))
        out.append(0)  // no local table, not interlaced
        out.append(2)  // LZW minimum code size

        let clear: UInt32 = 4, end: UInt32 = 5, pixel: UInt32 = 1
        var codes: [UInt8] = []
        var buffer: UInt32 = 0
        var count = 0
        func emit(_ code: UInt32) {
            buffer |= code << count
            count += 3
            while count >= 8 {
                codes.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }
        for index in 0..<(width * height) {
            if index % 2 == 0 { emit(clear) }
            emit(pixel)
        }
        emit(end)
        if count > 0 { codes.append(UInt8(buffer & 0xFF)) }
        var offset = 0
        while offset < codes.count {
            let length = min(255, codes.count - offset)
            out.append(UInt8(length))
            out.append(contentsOf: codes[offset..<offset + length])
            offset += length
        }
        out.append(0)     // end of the image data
        out.append(0x3B)  // trailer
        return out
    }
}

private extension Data {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
