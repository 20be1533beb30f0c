import Foundation
import LiveQuery
import TestSupport
import Testing

/// An item's lazily read attributes: an `.ict`'s display name and thumbnail
/// from its metadata entry, checked against Python's plistlib reading the
/// same entry; other items' names without their extension.
@Suite struct MetadataItemTests {
    /// DISPLAY NAME and the THUMBNAIL's bytes (hex) of the archive's root object, as plistlib reads them.
    static func metadataFields(of package: String) throws -> (name: String, thumbnail: Data) {
        let script = """
            import plistlib, sys
            archive = plistlib.load(open(sys.argv[1] + "/ctdocument.metadata", "rb"))
            objects = archive["$objects"]
            root = objects[archive["$top"]["DATA"].data]
            print(objects[root["DISPLAY NAME"].data])
            print(objects[root["THUMBNAIL"].data].hex())
            """
        let lines = try output(of: "/usr/bin/env", ["python3", "-c", script, package]).split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "plistlib said \(lines)")
        let hex = Array(lines[1].utf8)
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) }
        return (lines[0], Data(bytes))
    }

    @Test func anICTDocumentsDisplayNameAndThumbnailComeFromItsMetadata() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Astronaut.ict"), toPath: scratch.at("scope/Astronaut.ict"))
        try scratch.write("plain", to: "scope/notes.txt")
        try scratch.write("x", to: "scope/Bare.ict/ctdocument.data")  // No metadata entry.
        let expected = try Self.metadataFields(of: Repository.path("SampleDocs/Astronaut.ict"))
        let (query, _, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        let items = try #require(gathering?.results)
        #expect(names(items) == ["Astronaut.ict", "Bare.ict", "notes.txt"])
        let astronaut = items[0]
        #expect(astronaut.displayName == expected.name)
        #expect(astronaut.value(forAttribute: .displayName) as? String == expected.name)
        #expect(astronaut.thumbnailPNG() == expected.thumbnail)
        #expect(astronaut.thumbnailPNG()?.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))  // PNG signature.
        #expect(items[1].displayName == "Bare" && items[1].thumbnailPNG() == nil)
        #expect(items[2].displayName == "notes" && items[2].thumbnailPNG() == nil)
    }

    /// A `.ptk` photo document's thumbnail comes from its `photo.metadata`
    /// (checked against plistlib's reading); its display name is its file
    /// name without the extension, as the photo app shows it; a note has no thumbnail.
    @Test func aPTKDocumentsThumbnailComesFromItsMetadataEntry() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.makeFolder("scope")
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ptk"), toPath: scratch.at("scope/Coffee.ptk"))
        try scratch.write("Milk", to: "scope/List.icfnote")
        let script = """
            import plistlib, sys
            archive = plistlib.load(open(sys.argv[1] + "/photo.metadata", "rb"))
            objects = archive["$objects"]
            root = objects[archive["$top"]["data"].data]
            print(objects[root["Thumbnail"].data].hex())
            """
        let hex = Array(try output(of: "/usr/bin/env", ["python3", "-c", script, Repository.path("SampleDocs/Coffee.ptk")]).utf8.prefix { $0 != 10 })
        let expected = Data(stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) })
        #expect(expected.count > 8)
        let (query, _, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        let items = try #require(gathering?.results)
        #expect(names(items) == ["Coffee.ptk", "List.icfnote"])
        #expect(items[0].displayName == "Coffee")
        #expect(items[0].thumbnailPNG() == expected)
        #expect(items[1].displayName == "List" && items[1].thumbnailPNG() == nil)
    }

    @Test func everyAttributeHasItsValue() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("hello", to: "scope/notes.txt")
        let (query, _, gathering) = try startedQuery(scratch.at("scope"))
        defer { query.stop() }
        let item = try #require(gathering?.results.first)
        #expect(item.value(forAttribute: .fsName) as? String == "notes.txt")
        #expect(item.value(forAttribute: .path) as? String == scratch.at("scope/notes.txt"))
        #expect((item.value(forAttribute: .url) as? URL)?.lastPathComponent == "notes.txt")
        #expect(item.value(forAttribute: .fsSize) as? Int64 == 5)
        #expect(item.value(forAttribute: .contentType) as? String == "public.plain-text")
        #expect(item.value(forAttribute: .fsContentChangeDate) as? Date == item.contentChangeDate)
        #expect(item.value(forAttribute: .hasUnresolvedConflicts) as? Bool == false)
        #expect(MetadataAttribute.fsName.rawValue == "kMDItemFSName")
        #expect(MetadataAttribute.hasUnresolvedConflicts.rawValue == "NSMetadataUbiquitousItemHasUnresolvedConflictsKey")
    }
}
