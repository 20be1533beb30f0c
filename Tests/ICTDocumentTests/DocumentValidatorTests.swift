import Foundation
import Testing

@testable import ICTDocument

/// What `DocumentValidator` calls an error and what a warning: a document
/// whose entries disagree still reads, so consistency rules give warnings.
struct DocumentValidatorTests {
    /// `image` turned a quarter turn clockwise, as a photo whose EXIF
    /// orientation UIKit applied while resizing, but not to the stored PNG.
    private func rotatedClockwise(_ image: PNGImage) -> PNGImage {
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let source = (y * image.width + x) * 4
                let target = (x * image.height + (image.height - 1 - y)) * 4
                for channel in 0..<4 { pixels[target + channel] = image.pixels[source + channel] }
            }
        }
        return PNGImage(width: image.height, height: image.width, pixels: pixels)
    }

    /// A document of `photo`, whose metadata entry (and so its thumbnail)
    /// is then replaced by that of a document of `thumbnailSource`.
    private func document(photo: PNGImage, thumbnailOf thumbnailSource: PNGImage, in folder: ScratchFolder) throws -> String {
        let path = folder.path + "/Doc.ict", other = folder.path + "/Other.ict"
        for (target, image) in [(path, photo), (other, thumbnailSource)] {
            let document = ICTDocumentFile()
            try document.setDisplayName("Same")
            try document.setPhoto(pngBytes: try image.pngBytes())
            try document.save(to: target)
        }
        try FileManager.default.removeItem(atPath: path + "/ctdocument.metadata")
        try FileManager.default.copyItem(atPath: other + "/ctdocument.metadata", toPath: path + "/ctdocument.metadata")
        return path
    }

    @Test func aThumbnailRotatedAgainstItsPhotoIsAWarning() throws {
        let folder = try ScratchFolder()
        let photo = Fixtures.photo(width: 400, height: 300)
        let path = try document(photo: photo, thumbnailOf: rotatedClockwise(photo), in: folder)
        let findings = DocumentValidator().validate(packageAt: path)
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.entry == "ctdocument.metadata")
        #expect(findings.first?.keyPath == "DATA.THUMBNAIL")
        #expect(findings.first?.message.hasPrefix("THUMBNAIL does not show ctdocument.data PHOTO (PSNR ") == true)
        // The document still opens and lists.
        #expect(try ICTDocumentFile(contentsOf: path).metadata().thumbnail != nil)
    }

    @Test func aStaleThumbnailIsAWarning() throws {
        let folder = try ScratchFolder()
        let photo = Fixtures.photo(width: 300, height: 300)
        let unrelated = PNGImage(width: 300, height: 300, pixels: [UInt8](repeating: 200, count: 300 * 300 * 4))
        let findings = DocumentValidator().validate(packageAt: try document(photo: photo, thumbnailOf: unrelated, in: folder))
        #expect(findings.map(\.severity) == [.warning])
    }

    @Test func aMissingEntryIsStillAnError() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.data")
        let findings = DocumentValidator().validate(packageAt: path)
        #expect(findings.map(\.severity) == [.error])
        #expect(findings.first?.message == "required entry is missing")
    }
}
