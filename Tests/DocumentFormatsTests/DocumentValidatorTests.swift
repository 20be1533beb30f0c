import Foundation
import PackageFormat
import TestSupport
import Testing

@testable import DocumentFormats

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
        // Saved as a program writing such a document would save it: whole, with a manifest of these entries.
        try PackageWrapper(readingFrom: path).save(to: path)
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
        // The manifest the save wrote lists it too: the package is partial.
        #expect(findings.map(\.severity) == [.error, .error])
        #expect(findings.map(\.entry) == ["ctdocument.data", "ctdocument.data"])
        #expect(findings.first?.message.hasPrefix("missing: the package's manifest lists it") == true)
        #expect(findings.last?.message == "required entry is missing")
    }

    /// Built by hand as a sync engine leaves a package: the other device's
    /// metadata in place of this save's (mixed), an entry the manifest does
    /// not list, a conflict copy (a warning), a manifest that is garbage.
    @Test func aMixedPackageIsAnErrorPerEntryNamingIt() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let other = folder.path + "/Other.ict"
        let otherDocument = ICTDocumentFile()
        try otherDocument.setDisplayName("Someone else")
        try otherDocument.save(to: other)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.metadata")
        try FileManager.default.copyItem(atPath: other + "/ctdocument.metadata", toPath: path + "/ctdocument.metadata")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/extra.txt"))
        try FileManager.default.copyItem(
            atPath: other + "/ctdocument.data", toPath: path + "/ctdocument.sync-conflict-20261206-101500-ABCDEF7.data")
        var findings = DocumentValidator().validate(packageAt: path)
        // Then the schema's own warning: the other document's metadata names another person.
        #expect(findings.map(\.entry) == ["ctdocument.metadata", "extra.txt", "ctdocument.sync-conflict-20261206-101500-ABCDEF7.data", "ctdocument.metadata"])
        #expect(findings.map(\.severity) == [.error, .error, .warning, .warning])
        #expect(findings.first?.message.hasPrefix("not the entry the package's manifest lists") == true)

        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path + "/.ictkit-manifest.plist"))
        findings = DocumentValidator().validate(packageAt: path)
        #expect(findings.first?.entry == ".ictkit-manifest.plist")
        #expect(findings.first?.message.hasPrefix("the package's manifest cannot be read: not a binary property list") == true)
    }
}
