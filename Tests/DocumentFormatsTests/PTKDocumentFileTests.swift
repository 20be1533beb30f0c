import DocumentFormats
import Foundation
import TestSupport
import Testing

/// `PTKDocumentFile` and the `.ptk` schema on the samples Python's plistlib
/// wrote (scripts/make-ptk-samples.sh). Expected sizes are read from the
/// PNGs' IHDR by hand here (bytes 16–23, big-endian width and height) and
/// agree with ImageMagick's `identify`: 145×145 and 320×320.
struct PTKDocumentFileTests {
    static let samples = Repository.root.appendingPathComponent("SampleDocs").path
    static let malformed = samples + "/malformed-ptk"

    /// The width and height in a PNG's IHDR chunk, read by hand.
    static func ihdrSize(_ bytes: Data) -> [Int] {
        let bytes = [UInt8](bytes)
        func word(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return [word(16), word(20)]
    }

    @Test func theSampleReadsEntryByEntry() throws {
        let document = try PTKDocumentFile(contentsOf: Self.samples + "/Coffee.ptk")
        #expect(document.displayName == "Coffee")
        let metadata = try document.metadata()
        #expect(document.statistics.entriesDecoded == ["photo.metadata"])
        #expect(metadata.version == 1)
        let thumbnail = try #require(metadata.thumbnail)
        #expect(Self.ihdrSize(thumbnail) == [145, 145])
        let size = try PNGImage.size(ofPNG: thumbnail)
        #expect(size.width == 145 && size.height == 145)
        let data = try document.data()
        let photo = try #require(data.photo)
        #expect(Self.ihdrSize(photo) == [320, 320])
        // The photo is Coffee.ict's, byte for byte (the script copied it).
        let ict = try ICTDocumentFile(contentsOf: Self.samples + "/Coffee.ict").data()
        #expect(photo == ict.photo)
        #expect(DocumentValidator(schema: .ptkDocument).validate(packageAt: Self.samples + "/Coffee.ptk").isEmpty)
    }

    @Test func aMissingMetadataEntryIsAnErrorNamingIt() throws {
        let document = try PTKDocumentFile(contentsOf: Self.malformed + "/missing-metadata.ptk")
        let error = #expect(throws: ICTDocumentError.self) { _ = try document.metadata() }
        #expect(error?.code == .missingEntry)
        #expect(error?.entry == "photo.metadata")
        let findings = DocumentValidator(schema: .ptkDocument).validate(packageAt: Self.malformed + "/missing-metadata.ptk")
        #expect(findings.map(\.entry) == ["photo.metadata"])
        #expect(findings.first?.message == "required entry is missing")
    }

    @Test func aWrongClassIsAnErrorNamingTheEntryAndKey() throws {
        let document = try PTKDocumentFile(contentsOf: Self.malformed + "/wrong-class.ptk")
        let error = #expect(throws: ICTDocumentError.self) { _ = try document.metadata() }
        #expect(error?.code == .wrongClass)
        #expect(error?.entry == "photo.metadata")
        let findings = DocumentValidator(schema: .ptkDocument).validate(packageAt: Self.malformed + "/wrong-class.ptk")
        #expect(findings.count == 1)
        #expect(findings.first?.entry == "photo.metadata")
        #expect(findings.first?.keyPath == "data")
        #expect(findings.first?.message == "the root object is of class PTKData, expected PTKMetadata")
    }

    @Test func aDamagedThumbnailIsAnErrorAtItsKey() throws {
        let findings = DocumentValidator(schema: .ptkDocument).validate(packageAt: Self.malformed + "/damaged-thumbnail.ptk")
        #expect(findings.count == 1)
        #expect(findings.first?.entry == "photo.metadata")
        #expect(findings.first?.keyPath == "data.Thumbnail")
        // The header is whole (the script kept 100 bytes): its size still reads, the pixels do not.
        let metadata = try PTKDocumentFile(contentsOf: Self.malformed + "/damaged-thumbnail.ptk").metadata()
        let thumbnail = try #require(metadata.thumbnail)
        #expect(thumbnail.count == 100)
        #expect(throws: ICTDocumentError.self) { _ = try PNGImage(pngBytes: [UInt8](thumbnail)) }
    }

    @Test func aNewDocumentGetsAThumbnailCroppedFromTheMiddleAndReadsBack() throws {
        let folder = try ScratchFolder()
        let document = PTKDocumentFile()
        // 300×200: the middle 200×200 square, scaled to 145×145.
        let photo = try Fixtures.photo(width: 300, height: 200).pngBytes()
        #expect(try document.setPhoto(pngBytes: photo))
        #expect(try !document.setPhoto(pngBytes: photo))
        try document.save(to: folder.path + "/New.ptk")
        let reopened = try PTKDocumentFile(contentsOf: folder.path + "/New.ptk")
        #expect(try reopened.data().photo.map([UInt8].init) == photo)
        let thumbnail = try PNGImage(pngBytes: [UInt8](try #require(try reopened.metadata().thumbnail)))
        #expect(thumbnail.width == 145 && thumbnail.height == 145)
        // The crop's left edge is the photo's x = 50: its red (x * 255 / 299) is 42, not 0 as at the photo's edge.
        #expect(thumbnail.pixels[0] > 20)
        #expect(DocumentValidator(schema: .ptkDocument).validate(packageAt: folder.path + "/New.ptk").isEmpty)
        #expect { try PTKDocumentFile().save(to: folder.path + "/New.ptk") } throws: { ($0 as? ICTDocumentError)?.code == .alreadyExists }
    }

    @Test func theJSONFormHasOnlyTheVersionAndImages() throws {
        let form = try PTKDocumentFile(contentsOf: Self.samples + "/Coffee.ptk").jsonForm(imageFileBase: "out")
        #expect(form.form.version == 1)
        #expect(form.form.firstName == nil && form.form.displayName == nil && form.form.favoriteNumber == nil)
        #expect(form.form.photo == .file("out.photo.png"))
        #expect(form.form.thumbnail == .file("out.thumbnail.png"))
        #expect(form.imageFiles.map(\.name) == ["out.photo.png", "out.thumbnail.png"])
    }

    @Test func settingThePhotoKeepsTheUnknownKeysOfBothEntries() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/Coffee.ptk"
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ptk", toPath: path)
        let entries = [PTKDocumentFormat.dataEntryName, PTKDocumentFormat.metadataEntryName]
        var before: [String: String] = [:]
        for entry in entries {
            try UnknownArchiveKeys.add(toEntryAt: path + "/" + entry, topKey: PTKDocumentFormat.topKey)
            before[entry] = try UnknownArchiveKeys.resolved(inEntryAt: path + "/" + entry, topKey: PTKDocumentFormat.topKey)
        }
        let document = try PTKDocumentFile(contentsOf: path)
        #expect(Set(try document.data().unknownFields.keys) == Set(UnknownArchiveKeys.keys))
        #expect(try document.setPhoto(pngBytes: try Fixtures.photo(width: 200, height: 100).pngBytes()))
        try document.save()
        for entry in entries {
            #expect(try UnknownArchiveKeys.resolved(inEntryAt: path + "/" + entry, topKey: PTKDocumentFormat.topKey) == before[entry], "\(entry)")
        }
        #expect(try PTKDocumentFile(contentsOf: path).data().photo.map { Self.ihdrSize($0) } == [200, 100])
    }
}
