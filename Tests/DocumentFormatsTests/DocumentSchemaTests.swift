import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import DocumentFormats

/// The validation rules come from schema files, not code.
struct DocumentSchemaTests {
    @Test func builtInSchemaIsTheFileInSchemas() throws {
        let file = try String(contentsOf: Repository.root.appendingPathComponent("Schemas/ict-document.schema.plist"), encoding: .utf8)
        #expect(file == ictDocumentSchemaText)
        let schema = DocumentSchema.ictDocument
        #expect(schema.entries.map(\.name) == [ICTDocumentFormat.metadataEntryName, ICTDocumentFormat.dataEntryName])
        #expect(
            schema.entry(named: ICTDocumentFormat.dataEntryName)?.keys.map(\.key) == [
                "VERSION", "FIRST_NAME", "LAST_NAME", "DISPLAY_NAME", "FAVORITE_NUMBER", "PHOTO",
            ])
    }

    /// A made-up `.ptk` photo package: `photo.data` (a `PTPhoto` with `IMAGE`
    /// and `CAPTION`, `REVISION` 3) and `photo.thumb` (a `PTThumb`).
    static let photoKitSchema = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>name</key><string>.ptk photo</string>
          <key>packageExtension</key><string>ptk</string>
          <key>entries</key><array>
            <dict><key>name</key><string>photo.data</string><key>required</key><true/>
              <key>rootKey</key><string>root</string><key>className</key><string>PTPhoto</string>
              <key>versionKey</key><string>REVISION</string><key>versions</key><array><integer>3</integer></array>
              <key>keys</key><array>
                <dict><key>key</key><string>IMAGE</string><key>type</key><string>png</string><key>required</key><true/></dict>
                <dict><key>key</key><string>CAPTION</string><key>type</key><string>string</string></dict>
              </array></dict>
            <dict><key>name</key><string>photo.thumb</string><key>required</key><false/>
              <key>rootKey</key><string>root</string><key>className</key><string>PTThumb</string>
              <key>keys</key><array/></dict>
          </array>
        </dict></plist>
        """

    struct Photo: KeyedArchiveEncodable {
        var revision: Int
        var image: Data?
        var caption: String?
        var archivedClassChain: [String] { ["PTPhoto", "NSObject"] }
        func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
            encoder.encode(revision, forKey: "REVISION")
            try encoder.encode(image, forKey: "IMAGE")
            try encoder.encode(caption, forKey: "CAPTION")
        }
    }

    @Test func anotherFormatIsCheckedByWritingItsSchema() throws {
        let schema = try DocumentSchema(propertyListText: Self.photoKitSchema)
        let folder = try ScratchFolder()
        let good = folder.path + "/good.ptk"
        let bad = folder.path + "/bad.ptk"
        for path in [good, bad] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        let png = Data(try Fixtures.photo(width: 8, height: 8).pngBytes())
        try Data(KeyedArchiver.archive(Photo(revision: 3, image: png, caption: "Hi"), forKey: "root")).write(to: URL(fileURLWithPath: good + "/photo.data"))
        try Data(KeyedArchiver.archive(Photo(revision: 4, image: nil, caption: nil), forKey: "root")).write(to: URL(fileURLWithPath: bad + "/photo.data"))
        #expect(DocumentValidator(schema: schema).validate(packageAt: good) == [])
        #expect(
            DocumentValidator(schema: schema).validate(packageAt: bad).map(\.description)
                == ["photo.data: unsupported REVISION 4 (supported: 3) (at root.REVISION)"])
        try Data(KeyedArchiver.archive(Photo(revision: 3, image: nil, caption: nil), forKey: "root")).write(to: URL(fileURLWithPath: bad + "/photo.data"))
        #expect(
            DocumentValidator(schema: schema).validate(packageAt: bad).map(\.description)
                == ["photo.data: required key IMAGE is missing (at root.IMAGE)"])
        // The .ict schema rejects the same package: its entries are not there.
        #expect(DocumentValidator().validate(packageAt: good).count == 2)
    }

    @Test func aBrokenSchemaSaysWhere() {
        #expect(throws: ICTDocumentError(.invalidSchema, keyPath: "entries", "an array is needed")) {
            try DocumentSchema(propertyListText: "<plist><dict><key>name</key><string>x</string><key>packageExtension</key><string>x</string></dict></plist>")
        }
    }
}
