#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Limits applied to images read from documents.
public struct ImageLimits: Hashable, Sendable {
    /// The most pixels (width × height) an image may have; checked from the
    /// PNG header before any pixel is decompressed, so a small file claiming
    /// a huge image (a decompression bomb) costs nothing.
    public var thumbnailPixelLimit: Int
    /// The most bytes of PNG input read.
    public var inputByteLimit: Int

    /// Makes limits; the defaults allow a 8192 × 8192 image from 256 MB of PNG.
    public init(thumbnailPixelLimit: Int = 8192 * 8192, inputByteLimit: Int = 256 << 20) {
        self.thumbnailPixelLimit = thumbnailPixelLimit
        self.inputByteLimit = inputByteLimit
    }

    /// The default limits.
    public static let `default` = ImageLimits()
}

/// An image as 8-bit RGBA pixels (not premultiplied), row after row, top first.
public struct PNGImage: Hashable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width × height × 4` bytes: red, green, blue, alpha.
    public let pixels: [UInt8]

    /// Makes an image from its pixels; `pixels` must hold `width × height × 4` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "RGBA pixels of a \(width)×\(height) image")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Decodes the PNG in `bytes` with libpng.
    ///
    /// - Throws: `ICTDocumentError` `.imageTooLarge` when the input or the
    ///   header's width × height is over `limits` (before decompressing),
    ///   `.damagedImage` with libpng's message when the bytes are not a PNG
    ///   or are damaged. Costs the decompression of every pixel.
    public init(pngBytes bytes: [UInt8], limits: ImageLimits = .default) throws(ICTDocumentError) {
        guard bytes.count <= limits.inputByteLimit else {
            throw ICTDocumentError(.imageTooLarge, "the PNG has \(bytes.count) bytes, over the limit of \(limits.inputByteLimit) (inputByteLimit)")
        }
        do {
            let decoding = try PNGDecoding(bytes: bytes)
            let header = decoding.header
            try Self.checkPixelCount(width: header.width, height: header.height, limits: limits)
            self.init(width: header.width, height: header.height, pixels: try decoding.finishReadingRGBA())
        } catch let failure as LibPNGFailure {
            throw ICTDocumentError(.damagedImage, "not a readable PNG: \(failure.message)")
        } catch let error as ICTDocumentError {
            throw error
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    /// `.imageTooLarge` when a `width` × `height` image is over `limits`.
    static func checkPixelCount(width: Int, height: Int, limits: ImageLimits) throws(ICTDocumentError) {
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= limits.thumbnailPixelLimit else {
            throw ICTDocumentError(
                .imageTooLarge, "the PNG is \(width)×\(height) pixels, over the limit of \(limits.thumbnailPixelLimit) (thumbnailPixelLimit)")
        }
    }

    /// Only the size of the PNG in `bytes`, from its header, decompressing nothing.
    ///
    /// Reads `bytes` in place (no copy), so listing many thumbnails costs
    /// only their headers.
    ///
    /// - Throws: `ICTDocumentError` `.damagedImage` when the header is not a
    ///   PNG's, `.imageTooLarge` when its width × height is over `limits`
    ///   (an image `init(pngBytes:limits:)` would refuse).
    public static func size(ofPNG bytes: some ContiguousBytes, limits: ImageLimits = .default) throws(ICTDocumentError) -> (width: Int, height: Int) {
        let header = bytes.withUnsafeBytes { buffer in
            Result { () throws(LibPNGFailure) in try PNGDecoding.header(of: buffer) }
        }
        switch header {
        case .success(let header):
            try checkPixelCount(width: header.width, height: header.height, limits: limits)
            return (header.width, header.height)
        case .failure(let failure):
            throw ICTDocumentError(.damagedImage, "not a readable PNG: \(failure.message)")
        }
    }

    /// The number of leading bytes `size(ofPNGHeader:)` reads: the
    /// signature and the `IHDR` chunk.
    public static let headerByteCount = 33

    /// Only the size of a PNG, from its first 33 bytes (signature and `IHDR`),
    /// checked as far as they go: the signature, the chunk's type, length
    /// and CRC, and a width and height from 1 to 2³¹ − 1.
    ///
    /// For listing many thumbnails without reading them; the rest of the
    /// image is not looked at, so `PNGImage(pngBytes:)` may still fail.
    ///
    /// - Throws: `ICTDocumentError` `.damagedImage` saying which check failed,
    ///   `.imageTooLarge` when width × height is over `limits` (an image
    ///   `init(pngBytes:limits:)` would refuse).
    public static func size(ofPNGHeader bytes: [UInt8], limits: ImageLimits = .default) throws(ICTDocumentError) -> (width: Int, height: Int) {
        func damaged(_ reason: String) -> ICTDocumentError { ICTDocumentError(.damagedImage, "not a readable PNG: \(reason)") }
        guard bytes.count >= headerByteCount else { throw damaged("\(bytes.count) bytes, too short for the signature and IHDR") }
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw damaged("no PNG signature") }
        func word(_ at: Int) -> UInt32 { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        guard word(8) == 13, bytes[12..<16].elementsEqual("IHDR".utf8) else { throw damaged("the first chunk is not a 13-byte IHDR") }
        guard crc32(bytes[12..<29]) == word(29) else { throw damaged("IHDR: CRC error") }
        let width = word(16), height = word(20)
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw damaged("IHDR: invalid size \(width)×\(height)")
        }
        try checkPixelCount(width: Int(width), height: Int(height), limits: limits)
        return (Int(width), Int(height))
    }

    /// The CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320), bit by bit: for a few bytes only.
    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// True when every pixel is opaque.
    public var isOpaque: Bool {
        stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
    }

    /// The image as PNG bytes, encoded by libpng (RGB when opaque, else RGBA).
    ///
    /// - Throws: `ICTDocumentError` `.damagedImage` with libpng's message.
    public func pngBytes() throws(ICTDocumentError) -> [UInt8] {
        do {
            if isOpaque {
                var rgb = [UInt8]()
                rgb.reserveCapacity(width * height * 3)
                for offset in stride(from: 0, to: pixels.count, by: 4) {
                    rgb.append(contentsOf: pixels[offset..<offset + 3])
                }
                return try encodePNG(pixels: rgb, width: width, height: height, hasAlpha: false)
            }
            return try encodePNG(pixels: pixels, width: width, height: height, hasAlpha: true)
        } catch {
            throw ICTDocumentError(.damagedImage, "cannot encode the PNG: \(error.message)")
        }
    }
}
