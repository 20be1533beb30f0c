import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

@testable import DocumentFormats

/// `ICTDocumentSummary`: what `ict list` shows, the same as decoding the
/// whole metadata entry, from a few kilobytes of it.
struct ICTDocumentSummaryTests {
    static let sampleDocs = Repository.root.appendingPathComponent("SampleDocs")
    static let samples = ["Astronaut", "Cameraman", "Chelsea", "Coffee", "Hubble Deep Field", "Rocket"]

    @Test(arguments: samples)
    func matchesTheDecodedMetadata(_ name: String) throws {
        let path = Self.sampleDocs.appendingPathComponent("\(name).ict").path
        let summary = try ICTDocumentSummary(ofDocumentAt: path)
        let document = try ICTDocumentFile(contentsOf: path)
        let thumbnail = try #require(try document.metadata().thumbnail)
        let size = try PNGImage.size(ofPNG: thumbnail)
        #expect(summary.displayName == (try document.displayName()))
        #expect(summary.thumbnailByteCount == thumbnail.count)
        #expect(summary.thumbnailSize == ICTDocumentSummary.PixelSize(width: size.width, height: size.height))
        // A ~100 KB thumbnail, and two 4 KB windows read.
        #expect(thumbnail.count > 50_000)
        #expect(summary.bytesRead <= 2 * 4096)
    }

    @Test func opensRelativeToAFolder() throws {
        let folder = open(Self.sampleDocs.path, O_RDONLY | O_DIRECTORY)
        try #require(folder >= 0)
        defer { close(folder) }
        #expect(try ICTDocumentSummary(ofDocumentAt: "Coffee.ict", relativeTo: folder).displayName == "Coffee")
    }

    /// No display name and no thumbnail: the file name, and no size.
    @Test func fallsBackToTheFileName() throws {
        let folder = try ScratchFolder()
        let document = ICTDocumentFile()
        try document.save(to: folder.path + "/Nameless.ict")
        let summary = try ICTDocumentSummary(ofDocumentAt: folder.path + "/Nameless.ict")
        #expect(summary.displayName == "Nameless")
        #expect(summary.thumbnailSize == nil)
        #expect(summary.thumbnailByteCount == nil)
    }

    @Test func reportsTheMalformedSamplesAsTheDocumentDoes() throws {
        let malformed = Self.sampleDocs.appendingPathComponent("malformed")
        let version = #expect(throws: ICTDocumentError.self) {
            try ICTDocumentSummary(ofDocumentAt: malformed.appendingPathComponent("unknown-version.ict").path)
        }
        #expect(version?.code == .unsupportedVersion)
        #expect(version?.entry == "ctdocument.metadata")
        #expect(version?.keyPath == "DATA.VERSION")
        #expect(version?.message.contains("VERSION 2") == true)
        let wrongClass = #expect(throws: ICTDocumentError.self) {
            try ICTDocumentSummary(ofDocumentAt: malformed.appendingPathComponent("wrong-class.ict").path)
        }
        #expect(wrongClass?.code == .wrongClass)
        #expect(wrongClass?.message.contains("CTData") == true)
        // Broken in the data entry only: the summary does not read it.
        #expect(
            try ICTDocumentSummary(ofDocumentAt: malformed.appendingPathComponent("truncated-archive.ict").path).displayName
                == "Malformed Sample")
    }

    @Test func saysWhatIsMissingOrNotAPackage() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadata = path + "/ctdocument.metadata"
        try FileManager.default.moveItem(atPath: metadata, toPath: folder.path + "/moved")
        let missing = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(missing?.code == .missingEntry)
        #expect(missing?.entry == "ctdocument.metadata")
        // A link to a metadata entry outside the package is not followed.
        try FileManager.default.createSymbolicLink(atPath: metadata, withDestinationPath: folder.path + "/moved")
        let link = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(link?.code == .missingEntry)
        #expect(link?.message == "the entry is a symbolic link, not a file; links in a document are not followed")
        let notPackage = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: folder.path + "/moved") }
        #expect(notPackage?.code == .package)
        #expect(notPackage?.message.contains("moved: not a package directory") == true)
    }

    @Test func refusesATruncatedMetadataEntry() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadata = URL(fileURLWithPath: path + "/ctdocument.metadata")
        let bytes = try Data(contentsOf: metadata)
        try bytes.prefix(bytes.count / 2).write(to: metadata)
        let error = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(error?.code == .invalidArchive)
        #expect(error?.entry == "ctdocument.metadata")
    }

    /// A thumbnail whose PNG header is damaged: `.damagedImage` at the key.
    @Test func refusesADamagedThumbnailHeader() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadata = URL(fileURLWithPath: path + "/ctdocument.metadata")
        var bytes = [UInt8](try Data(contentsOf: metadata))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: signature) })
        bytes[start + 19] ^= 0x01  // the width's last byte: the IHDR CRC no longer matches
        try Data(bytes).write(to: metadata)
        let error = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(error?.code == .damagedImage)
        #expect(error?.keyPath == "DATA.THUMBNAIL")
        #expect(error?.message.contains("CRC") == true)
    }

    /// Fields of the wrong type and a `$null` root: typed errors naming the
    /// entry and key, and the entry on disk left as it was.
    @Test(arguments: [
        (
            "DISPLAY NAME", PropertyListValue.integer(PropertyListInteger(7)), ICTDocumentError.Code.wrongType, "DATA.DISPLAY NAME",
            "DISPLAY NAME is not a string"
        ),
        ("THUMBNAIL", .string("not png"), .wrongType, "DATA.THUMBNAIL", "THUMBNAIL is not data"),
        ("VERSION", .string("1"), .wrongType, "DATA.VERSION", "VERSION is not an integer"),
    ])
    func refusesFieldsOfTheWrongType(
        _ key: String, _ value: PropertyListValue, _ code: ICTDocumentError.Code,
        _ keyPath: String, _ message: String
    ) throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadata = URL(fileURLWithPath: path + "/ctdocument.metadata")
        var archive = try KeyedArchiveReader().read(Data(contentsOf: metadata))
        let root = try #require(archive.topObjectIndex(forKey: "DATA"))
        guard case .dictionary(var fields) = archive.objects[root] else { Issue.record("the root is no instance"); return }
        // The wrong value stored as an object of its own, referenced by UID, as an archiver stores objects.
        archive.objects.append(value)
        fields[key] = .uid(UInt64(archive.objects.count - 1))
        archive.objects[root] = .dictionary(fields)
        let bytes = Data(try KeyedArchiveWriter().encode(archive))
        try bytes.write(to: metadata)
        let error = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(error?.code == code)
        #expect(error?.entry == "ctdocument.metadata")
        #expect(error?.keyPath == keyPath)
        #expect(error?.message == message)
        #expect(try Data(contentsOf: metadata) == bytes, "reading changes nothing on disk")
    }

    @Test func refusesANullRoot() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadata = URL(fileURLWithPath: path + "/ctdocument.metadata")
        var archive = try KeyedArchiveReader().read(Data(contentsOf: metadata))
        archive.top["DATA"] = .uid(0)
        try Data(try KeyedArchiveWriter().encode(archive)).write(to: metadata)
        let error = #expect(throws: ICTDocumentError.self) { try ICTDocumentSummary(ofDocumentAt: path) }
        #expect(error?.code == .wrongClass)
        #expect(error?.message == "the root object is $null")
    }

    @Test func readsThePNGHeaderOnly() throws {
        let png = try Fixtures.photo(width: 40, height: 30).pngBytes()
        #expect(try PNGImage.size(ofPNGHeader: Array(png.prefix(PNGImage.headerByteCount))) == (40, 30))
        var badSignature = Array(png.prefix(33))
        badSignature[1] = 0x51
        #expect(throws: ICTDocumentError.self) { try PNGImage.size(ofPNGHeader: badSignature) }
        var zeroWidth = Array(png.prefix(33))
        zeroWidth[16...19] = [0, 0, 0, 0]
        let error = #expect(throws: ICTDocumentError.self) { try PNGImage.size(ofPNGHeader: zeroWidth) }
        #expect(error?.message.contains("CRC") == true)
        #expect(throws: ICTDocumentError.self) { try PNGImage.size(ofPNGHeader: Array(png.prefix(20))) }
    }
}
