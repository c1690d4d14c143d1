import Foundation

/// An image's format and size in pixels, read from its header, with its bytes.
///
/// What ``ImageDecoder`` makes: Linux has no `UIImage` or `NSImage`, so the bytes are kept for a
/// decoder of your choice, with what the header says.
public struct ImageContent: Sendable, Hashable {
    /// An image format the header reader knows.
    public enum Format: String, Sendable, Hashable {
        case png, jpeg, gif
    }

    /// The format found in the header.
    public let format: Format
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The encoded image.
    public let data: Data

    /// Reads the header of a PNG, JPEG or GIF image; `nil` when `data` is none of them or is cut
    /// short before the size.
    public init?(data: Data) {
        let bytes = [UInt8](data.prefix(64 * 1024))
        guard let (format, width, height) = Self.png(bytes) ?? Self.gif(bytes) ?? Self.jpeg(bytes) else { return nil }
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int {
        b[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func png(_ b: [UInt8]) -> (Format, Int, Int)? {
        // Signature, then the IHDR chunk: length (4), type (4), width (4), height (4).
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard b.count >= 24, Array(b[0..<8]) == signature, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (.png, bigEndian(b, 16, 4), bigEndian(b, 20, 4))
    }

    private static func gif(_ b: [UInt8]) -> (Format, Int, Int)? {
        // "GIF87a" or "GIF89a", then the logical screen width and height, little-endian.
        guard b.count >= 10, Array(b[0..<3]) == Array("GIF".utf8),
              Array(b[3..<6]) == Array("87a".utf8) || Array(b[3..<6]) == Array("89a".utf8) else { return nil }
        return (.gif, Int(b[6]) | Int(b[7]) << 8, Int(b[8]) | Int(b[9]) << 8)
    }

    private static func jpeg(_ b: [UInt8]) -> (Format, Int, Int)? {
        // SOI, then segments until a start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC), whose
        // payload is precision (1), height (2), width (2).
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image or scan before any frame
            let length = bigEndian(b, i + 2, 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard i + 9 <= b.count else { return nil }
                return (.jpeg, bigEndian(b, i + 7, 2), bigEndian(b, i + 5, 2))
            }
            i += 2 + length
        }
        return nil
    }
}

/// Reads an image body: takes `image/*` and makes an ``ImageContent`` with the format and size of a
/// PNG, JPEG or GIF image and its bytes.
///
/// Any other image format fails with ``ContentHandlerError/Code/unparsableContent`` and keeps the
/// bytes. Subclass it and override ``content(from:)-(ImageContent)`` to decode the pixels.
open class ImageDecoder: Accumulator, @unchecked Sendable {
    /// `image/*`.
    open override class var initialAcceptableContentTypes: [String] { ["image/*"] }

    /// Reads the image header, then hands the result to ``content(from:)-(ImageContent)``.
    open override func content(from data: Data) throws -> (any Sendable)? {
        guard let image = ImageContent(data: data) else {
            throw ContentHandlerError(
                .unparsableContent, reason: "the body is not a PNG, JPEG or GIF image", response: response)
        }
        return try content(from: image)
    }

    /// Makes the content from the image read: the ``ImageContent`` itself here.
    open func content(from image: ImageContent) throws -> (any Sendable)? {
        image
    }
}
