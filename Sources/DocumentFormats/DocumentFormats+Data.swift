#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Data` forms of the operations that take or return PNG bytes only as
// `[UInt8]`. Each conversion is one copy of the bytes.

extension PNGImage {
    /// Decodes the PNG in `data` with libpng, as `init(pngBytes:limits:)`.
    ///
    /// - Throws: `ICTDocumentError` `.imageTooLarge` when the input or the
    ///   header's width × height is over `limits`, `.damagedImage` with
    ///   libpng's message. Costs the decompression of every pixel.
    public init(pngData data: Data, limits: ImageLimits = .default) throws(ICTDocumentError) {
        try self.init(pngBytes: [UInt8](data), limits: limits)
    }

    /// Only the size of the PNG in `data`, from its first 33 bytes, as `size(ofPNGHeader:)`.
    ///
    /// - Throws: `ICTDocumentError` `.damagedImage` saying which check failed,
    ///   `.imageTooLarge` over the default `ImageLimits`.
    public static func size(ofPNGHeader data: Data) throws(ICTDocumentError) -> (width: Int, height: Int) {
        try size(ofPNGHeader: [UInt8](data.prefix(headerByteCount)))
    }

    /// The image as PNG `Data`, encoded by libpng, as `pngBytes()`.
    ///
    /// - Throws: `ICTDocumentError` `.damagedImage` with libpng's message.
    ///   Costs the compression of every pixel.
    public func pngData() throws(ICTDocumentError) -> Data {
        Data(try pngBytes())
    }
}

extension ICTDocumentFile {
    /// Sets the photo from PNG `data`, as `setPhoto(pngBytes:)`; nil removes
    /// the photo and the thumbnail.
    ///
    /// - Returns: false, changing nothing, when the stored photo has these bytes.
    /// - Throws: `ICTDocumentError` as `setPhoto(pngBytes:)`. Costs decoding
    ///   and resizing the image.
    @discardableResult
    public func setPhoto(pngData data: Data?) throws(ICTDocumentError) -> Bool {
        try setPhoto(pngBytes: data.map { [UInt8]($0) })
    }
}
