import Testing

@testable import DocumentFormats

struct PNGImageTests {
    @Test func encodesAndDecodesLosslessly() throws {
        let image = Fixtures.photo(width: 33, height: 17)
        let decoded = try PNGImage(pngBytes: try image.pngBytes())
        #expect(decoded == image)
    }

    @Test func keepsAlpha() throws {
        let image = PNGImage(width: 2, height: 1, pixels: [255, 0, 0, 128, 0, 0, 255, 0])
        #expect(try PNGImage(pngBytes: try image.pngBytes()) == image)
    }

    @Test func damagedBytesAreADamagedImageError() throws {
        var bytes = try Fixtures.photo(width: 20, height: 20).pngBytes()
        for index in 60..<bytes.count - 12 { bytes[index] ^= 0x5A }
        #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: bytes) }
        do {
            _ = try PNGImage(pngBytes: bytes)
        } catch {
            #expect(error.code == .damagedImage)
        }
        #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: Array("not a png".utf8)) }
    }

    /// Fuzzing (`png`, a 173-byte input) found a chunk whose declared length
    /// libpng allocated before reading: 2 GB for a `zTXt` chunk. Here: the
    /// signature, a valid 1×1 IHDR (its CRC as libpng wrote it), then a
    /// chunk header declaring 0x7A545874 = 2,052,348,020 bytes at byte
    /// 8 + 25 = 33, and 16 bytes after it.
    @Test func aChunkLongerThanTheFileIsRefusedBeforeLibPNGAllocatesIt() throws {
        let bytes: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]  // signature
            + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0] + [0x1F, 0x15, 0xC4, 0x89]  // 1×1 RGBA
            + [0x7A, 0x54, 0x58, 0x74] + Array("zTXt".utf8)  // 2,052,348,020 bytes declared
            + [UInt8](repeating: 0, count: 16)
        let expected = "not a readable PNG: the zTXt chunk at byte 33 declares 2052348020 bytes of data, but only 16 bytes follow its header"
        let decoded = #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: bytes) }
        #expect(decoded?.code == .damagedImage)
        #expect(decoded?.message == expected)
        // The header alone is still read by the size check, which reads no further.
        #expect(try PNGImage.size(ofPNGHeader: bytes) == (1, 1))
        // A whole valid PNG passes the check: the chunks end exactly at IEND.
        let valid = try PNGImage(width: 1, height: 1, pixels: [0, 0, 0, 255]).pngBytes()
        #expect(try PNGImage(pngBytes: valid).width == 1)
        // Cut inside its IDAT, it is refused by the same check.
        let cut = #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: Array(valid.dropLast(20))) }
        #expect(cut?.message.contains("IDAT chunk at byte") == true, "\(cut?.message ?? "")")
    }

    @Test func pixelLimitStopsADecompressionBombFromItsHeader() throws {
        // A valid 1×1 PNG whose header then claims 100000×100000 pixels (CRC fixed up).
        var bytes = try PNGImage(width: 1, height: 1, pixels: [0, 0, 0, 255]).pngBytes()
        let width: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
        bytes.replaceSubrange(16..<20, with: width)
        bytes.replaceSubrange(20..<24, with: width)
        let crc = crc32(Array(bytes[12..<29]))
        bytes.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(try PNGImage.size(ofPNG: bytes, limits: ImageLimits(thumbnailPixelLimit: .max)) == (100_000, 100_000))
        // The size alone is refused as the image is, so a listing never shows a size that cannot be decoded.
        let sized = #expect(throws: ICTDocumentError.self) { try PNGImage.size(ofPNG: bytes) }
        #expect(sized?.code == .imageTooLarge)
        let fromHeader = #expect(throws: ICTDocumentError.self) { try PNGImage.size(ofPNGHeader: Array(bytes.prefix(PNGImage.headerByteCount))) }
        #expect(fromHeader?.message == "the PNG is 100000×100000 pixels, over the limit of 67108864 (thumbnailPixelLimit)")
        do {
            _ = try PNGImage(pngBytes: bytes)
            Issue.record("a 10-gigapixel image decoded")
        } catch {
            #expect(error.code == .imageTooLarge)
            #expect(error.message.contains("thumbnailPixelLimit"))
        }
    }

    @Test func pixelLimitIsConfigurable() throws {
        let bytes = try Fixtures.photo(width: 100, height: 100).pngBytes()
        #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: bytes, limits: ImageLimits(thumbnailPixelLimit: 9_999)) }
        _ = try PNGImage(pngBytes: bytes, limits: ImageLimits(thumbnailPixelLimit: 10_000))
    }

    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
