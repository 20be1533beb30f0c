import Testing

@testable import ICTDocument

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
            #expect(error.kind == .damagedImage)
        }
        #expect(throws: ICTDocumentError.self) { try PNGImage(pngBytes: Array("not a png".utf8)) }
    }

    @Test func pixelLimitStopsADecompressionBombFromItsHeader() throws {
        // A valid 1×1 PNG whose header then claims 100000×100000 pixels (CRC fixed up).
        var bytes = try PNGImage(width: 1, height: 1, pixels: [0, 0, 0, 255]).pngBytes()
        let width: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
        bytes.replaceSubrange(16..<20, with: width)
        bytes.replaceSubrange(20..<24, with: width)
        let crc = crc32(Array(bytes[12..<29]))
        bytes.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(try PNGImage.size(ofPNG: bytes) == (100_000, 100_000))
        do {
            _ = try PNGImage(pngBytes: bytes)
            Issue.record("a 10-gigapixel image decoded")
        } catch {
            #expect(error.kind == .imageTooLarge)
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
