import DocumentFormats
import Foundation
import TestSupport
import Testing

/// The `Data` forms of `PNGImage` and `ICTDocumentFile.setPhoto`: the same
/// images and bytes as the `[UInt8]` forms, on the thumbnail of the sample
/// document `Chelsea.ict`, whose size is read from its IHDR here.
struct ICTDocumentDataTests {
    /// The sample's thumbnail, read by the document reader.
    static func thumbnail() throws -> Data {
        let document = try ICTDocumentFile(contentsOf: Repository.root.appendingPathComponent("SampleDocs/Chelsea.ict").path)
        return try #require(try document.metadata().thumbnail)
    }

    /// Width and height from the IHDR chunk (big-endian at bytes 16 and 20), decoded here.
    static func ihdrSize(_ data: Data) -> (Int, Int) {
        let bytes = [UInt8](data)
        func word(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test func imageFromDataMatchesBytes() throws {
        let data = try Self.thumbnail()
        let image = try PNGImage(pngData: data)
        #expect(image == (try PNGImage(pngBytes: [UInt8](data))))
        let (width, height) = Self.ihdrSize(data)
        #expect(image.width == width && image.height == height)
        let size = try PNGImage.size(ofPNGHeader: data)
        #expect(size.width == width && size.height == height)
    }

    @Test func pngDataMatchesBytesAndDecodesBack() throws {
        let image = Fixtures.photo(width: 40, height: 30)
        let data = try image.pngData()
        #expect(data == Data(try image.pngBytes()))
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(Self.ihdrSize(data) == (40, 30))
        #expect(try PNGImage(pngData: data) == image)
    }

    @Test func damagedDataIsRefusedAsBytesAre() throws {
        let truncated = try Self.thumbnail().prefix(20)
        let header = try #require(throws: ICTDocumentError.self) { _ = try PNGImage.size(ofPNGHeader: truncated) }
        #expect(header.code == .damagedImage)
        #expect(header == (try #require(throws: ICTDocumentError.self) { _ = try PNGImage.size(ofPNGHeader: [UInt8](truncated)) }))
        let image = try #require(throws: ICTDocumentError.self) { _ = try PNGImage(pngData: Data("not a png".utf8)) }
        #expect(image.code == .damagedImage)
    }

    @Test func setPhotoFromDataStoresIt() throws {
        let data = try Fixtures.photo(width: 100, height: 80).pngData()
        let document = ICTDocumentFile()
        #expect(try document.setPhoto(pngData: data))
        #expect(try document.data().photo == data)
        #expect(try !document.setPhoto(pngData: data))
        #expect(try document.setPhoto(pngData: nil))
        #expect(try document.data().photo == nil)
        let error = try #require(throws: ICTDocumentError.self) { _ = try document.setPhoto(pngData: Data("not a png".utf8)) }
        #expect(error.code == .damagedImage)
    }
}
