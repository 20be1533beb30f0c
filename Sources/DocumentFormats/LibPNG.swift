import CLibPNG

// Every libpng call this module makes goes through this file, each behind one
// small internal function. Only libpng's simplified API (png_image_*) is used:
// it reports errors through the png_image struct instead of longjmp, which
// Swift cannot survive.

/// An image header libpng read: its size, before any pixel is decompressed.
struct PNGHeader {
    var width: Int
    var height: Int
}

/// A libpng failure: libpng's own message.
struct LibPNGFailure: Error {
    var message: String
}

/// The chunks of a PNG in memory, checked before libpng sees them.
///
/// libpng allocates a chunk's declared length before it reads the chunk:
/// a 173-byte file whose `zTXt` chunk declared 2 GB made it ask for 2 GB
/// (found by fuzzing). In memory, no chunk can hold more than the bytes
/// after its header, so each declared length is checked against them, from
/// the signature to `IEND`. Input that is not a PNG, or ends inside a
/// chunk header, is left to libpng, which says so in its own words.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func check(_ bytes: UnsafeRawBufferPointer) throws(LibPNGFailure) {
        guard bytes.count >= signature.count, bytes.prefix(signature.count).elementsEqual(signature) else { return }
        var offset = signature.count
        // A chunk: length (4 bytes, big-endian), type (4), data (length), CRC (4).
        while bytes.count - offset >= 8 {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }  // At most 2³² − 1: no overflow in Int.
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let following = bytes.count - offset - 8
            guard length <= following - 4 else {  // The data, then its 4-byte CRC.
                throw LibPNGFailure(
                    message: "the \(type) chunk at byte \(offset) declares \(length) bytes of data, but only \(following) bytes follow its header")
            }
            if type == "IEND" { return }
            offset += 12 + length
        }
    }
}

/// One PNG being decoded: the header first, the pixels on request.
///
/// The corresponding C functions are `png_image_begin_read_from_memory`,
/// `png_image_finish_read` and `png_image_free`.
final class PNGDecoding {
    private var image = png_image()
    /// libpng reads from this copy until `finishReadingRGBA()`, so it must
    /// outlive every call; it is freed with the decoding.
    private let input: UnsafeMutableRawBufferPointer

    /// Reads the header of the PNG in `bytes`; nothing is decompressed yet.
    init(bytes: [UInt8]) throws(LibPNGFailure) {
        input = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
        input.copyBytes(from: bytes)
        image.version = ictkit_png_image_version
        try PNGChunks.check(UnsafeRawBufferPointer(rebasing: input[0..<bytes.count]))
        // On failure, deinit (which runs: every property is set) frees the copy.
        guard png_image_begin_read_from_memory(&image, input.baseAddress, bytes.count) != 0 else {
            throw LibPNGFailure(message: Self.message(of: image))
        }
    }

    deinit {
        png_image_free(&image)
        input.deallocate()
    }

    var header: PNGHeader { PNGHeader(width: Int(image.width), height: Int(image.height)) }

    /// Reads only the header of the PNG in `bytes`, in place: libpng reads
    /// `bytes` only inside this call (the image is freed before it returns),
    /// so nothing is copied.
    static func header(of bytes: UnsafeRawBufferPointer) throws(LibPNGFailure) -> PNGHeader {
        var image = png_image()
        image.version = ictkit_png_image_version
        defer { png_image_free(&image) }
        try PNGChunks.check(bytes)
        guard let start = bytes.baseAddress,
            png_image_begin_read_from_memory(&image, start, bytes.count) != 0
        else { throw LibPNGFailure(message: bytes.isEmpty ? "no bytes" : message(of: image)) }
        return PNGHeader(width: Int(image.width), height: Int(image.height))
    }

    /// Decompresses the pixels as 8-bit RGBA, row after row.
    func finishReadingRGBA() throws(LibPNGFailure) -> [UInt8] {
        image.format = ictkit_png_format_rgba
        let count = Int(image.width) * Int(image.height) * 4
        var pixels = [UInt8](repeating: 0, count: count)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw LibPNGFailure(message: Self.message(of: image)) }
        return pixels
    }

    static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Encodes 8-bit pixels (RGBA, or RGB when `hasAlpha` is false) as a PNG.
///
/// The corresponding C function is `png_image_write_to_memory`, called once
/// for the size and once to write.
func encodePNG(pixels: [UInt8], width: Int, height: Int, hasAlpha: Bool) throws(LibPNGFailure) -> [UInt8] {
    var image = png_image()
    image.version = ictkit_png_image_version
    image.width = UInt32(width)
    image.height = UInt32(height)
    image.format = hasAlpha ? ictkit_png_format_rgba : ictkit_png_format_rgb
    var size = 0
    let sized = pixels.withUnsafeBytes { buffer in
        png_image_write_to_memory(&image, nil, &size, 0, buffer.baseAddress, 0, nil)
    }
    guard sized != 0 else { throw LibPNGFailure(message: PNGDecoding.message(of: image)) }
    var output = [UInt8](repeating: 0, count: size)
    let written = pixels.withUnsafeBytes { buffer in
        output.withUnsafeMutableBytes { out in
            png_image_write_to_memory(&image, out.baseAddress, &size, 0, buffer.baseAddress, 0, nil)
        }
    }
    guard written != 0 else { throw LibPNGFailure(message: PNGDecoding.message(of: image)) }
    return Array(output.prefix(size))
}
