import DocumentFormats
import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import CTDocumentPort

/// Reads any entry of a `.ict` document with Foundation's `NSKeyedUnarchiver`
/// (swift-corelibs-foundation on Linux): the oracle standing in for the
/// original app's reader. Registered for both `CTData` and `CTMetadata`, it
/// keeps every field of the format (docs/ict-format.md sections 2 and 3).
final class FoundationEntry: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    static let keys = ["VERSION", "FIRST_NAME", "LAST_NAME", "DISPLAY_NAME", "FAVORITE_NUMBER", "PHOTO", "THUMBNAIL", "DISPLAY NAME"]
    var fields: [String: Any] = [:]

    required init?(coder: NSCoder) {
        for key in Self.keys where coder.containsValue(forKey: key) {
            fields[key] =
                key == "VERSION"
                ? coder.decodeInteger(forKey: key)
                : coder.decodeObject(of: [NSString.self, NSData.self, NSNumber.self], forKey: key)
        }
        super.init()
    }

    func encode(with coder: NSCoder) {}

    /// The fields of the object under `DATA` of the archive at `url`.
    static func read(_ url: URL, archivedAs className: String) throws -> [String: Any] {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: try Data(contentsOf: url))
        unarchiver.setClass(FoundationEntry.self, forClassName: className)
        let entry = unarchiver.decodeObject(of: FoundationEntry.self, forKey: "DATA")
        if let error = unarchiver.error { throw error }
        return try #require(entry).fields
    }
}

/// The original app's `CTData`/`CTMetadata` coder port (Examples/CTDocumentPort,
/// Apple-platform code with only its import changed) on the real documents
/// in SampleDocs/. Expected values are what python3's plistlib reads from the
/// same files; the documents the port writes are checked by plistlib, by the
/// DocumentFormats module's validator and by its reader.
@Suite struct CTDocumentPortTests {
    @Test func readsEverySampleDocumentAsPlistlibDoes() throws {
        let documents = Fixtures.sampleDocuments
        #expect(documents.count == 6, "SampleDocs/ holds six documents")
        let expected = try Fixtures.plistlibFields(of: documents)
        for url in documents {
            let fields = try #require(expected[url.path])
            let (data, metadata) = try CTDocumentFiles.read(documentAt: url)
            #expect(data.firstName == fields.data["FIRST_NAME"] as? String)
            #expect(data.lastName == fields.data["LAST_NAME"] as? String)
            #expect(data.displayName == fields.data["DISPLAY_NAME"] as? String)
            #expect(data.favoriteNumber?.doubleValue == fields.data["FAVORITE_NUMBER"] as? Double)
            let photo = try #require(PlistlibDocument.bytes(fields.data["PHOTO"]))
            #expect(data.photo == photo)
            #expect(metadata.displayName == fields.metadata["DISPLAY NAME"] as? String)
            #expect(metadata.thumbnail == PlistlibDocument.bytes(fields.metadata["THUMBNAIL"]))
            #expect(data.firstName != nil && metadata.thumbnail != nil, "every sample has a name and a thumbnail")
        }
    }

    @Test func writesDocumentsTheValidatorAcceptsAndOtherReadersReadBack() throws {
        let folder = try ScratchFolder()
        let originals = Fixtures.sampleDocuments
        let before = try Fixtures.plistlibFields(of: originals)
        for url in originals {
            let report = try CTDocumentPortMain.port(documentAt: url, into: folder.url)
            let original = try #require(before[url.path])
            let newName = try #require(original.data["DISPLAY_NAME"] as? String) + " (ported)"
            #expect(report.contains("renamed to \"\(newName)\""))
            let written = folder.url.appendingPathComponent(newName + ".ict")

            #expect(DocumentValidator().validate(packageAt: written.path).isEmpty, "ict validate accepts \(written.lastPathComponent)")

            let after = try #require(try Fixtures.plistlibFields(of: [written])[written.path])
            #expect(after.data["DISPLAY_NAME"] as? String == newName)
            #expect(after.metadata["DISPLAY NAME"] as? String == newName)
            for key in ["VERSION", "FIRST_NAME", "LAST_NAME", "FAVORITE_NUMBER"] {
                #expect("\(after.data[key] ?? "absent")" == "\(original.data[key] ?? "absent")", "\(key) unchanged")
            }
            #expect(PlistlibDocument.bytes(after.data["PHOTO"]) == PlistlibDocument.bytes(original.data["PHOTO"]))
            #expect(PlistlibDocument.bytes(after.metadata["THUMBNAIL"]) == PlistlibDocument.bytes(original.metadata["THUMBNAIL"]))
            #expect(after.classes == original.classes, "$classes as the original app wrote them")

            let document = try ICTDocumentFile(contentsOf: written.path)
            #expect(try document.metadata().displayName == newName)
            #expect(try document.data().displayName == newName)
            #expect(try document.data().favoriteNumber == original.data["FAVORITE_NUMBER"] as? Double)
        }
    }

    @Test func foundationReadsTheDocumentsThePortWrites() throws {
        let folder = try ScratchFolder()
        let originals = Fixtures.sampleDocuments
        let before = try Fixtures.plistlibFields(of: originals)
        for url in originals {
            _ = try CTDocumentPortMain.port(documentAt: url, into: folder.url)
            let original = try #require(before[url.path])
            let newName = try #require(original.data["DISPLAY_NAME"] as? String) + " (ported)"
            let written = folder.url.appendingPathComponent(newName + ".ict")
            let data = try FoundationEntry.read(written.appendingPathComponent("ctdocument.data"), archivedAs: "CTData")
            let metadata = try FoundationEntry.read(written.appendingPathComponent("ctdocument.metadata"), archivedAs: "CTMetadata")
            #expect(data["VERSION"] as? Int == 1 && metadata["VERSION"] as? Int == 1)
            #expect(data["FIRST_NAME"] as? String == original.data["FIRST_NAME"] as? String)
            #expect(data["LAST_NAME"] as? String == original.data["LAST_NAME"] as? String)
            #expect(data["DISPLAY_NAME"] as? String == newName && metadata["DISPLAY NAME"] as? String == newName)
            #expect((data["FAVORITE_NUMBER"] as? NSNumber)?.doubleValue == original.data["FAVORITE_NUMBER"] as? Double)
            #expect(data["PHOTO"] as? Data == PlistlibDocument.bytes(original.data["PHOTO"]))
            #expect(metadata["THUMBNAIL"] as? Data == PlistlibDocument.bytes(original.metadata["THUMBNAIL"]))
        }
    }

    @Test func unknownVersionIsReportedNotEmptied() throws {
        // SampleDocs/malformed/README.md: the metadata's VERSION is 2.
        let url = Repository.root.appendingPathComponent("SampleDocs/malformed/unknown-version.ict")
        let error = try #require(throws: CTDocumentError.self) { try CTDocumentFiles.read(documentAt: url) }
        #expect("\(error)" == "ctdocument.metadata: unsupported VERSION 2 (supported: 1)")
    }

    @Test func missingKeyDecodesAsNil() throws {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("ctdocument.data")
        try Fixtures.makeArchive("first-name-missing", at: url)
        let data = try CTDocumentFiles.decode(CTDocumentPort.CTData.self, archivedAs: "CTData", from: url)
        #expect(data.firstName == nil)
        #expect(data.lastName == "Lovelace")
        #expect(data.photo == nil && data.favoriteNumber == nil)
    }
}

#if !canImport(Darwin)
/// Bad input whose errors are `KeyedArchiveError`s with key paths: on Apple
/// platforms the same port runs on Foundation, which reports them as `NSError`s.
extension CTDocumentPortTests {
    @Test func documentWhoseMetadataIsACTDataIsAnErrorAtItsKeyPath() throws {
        // SampleDocs/malformed/README.md: the metadata entry holds a CTData archive.
        let url = Repository.root.appendingPathComponent("SampleDocs/malformed/wrong-class.ict")
        let error = try #require(throws: KeyedArchiveError.self) { try CTDocumentFiles.read(documentAt: url) }
        #expect(error.code == .disallowedClass)
        #expect("\(error.keyPath)" == "$top.DATA")
        #expect(error.message.contains("CTData") && error.message.contains("CTMetadata"))
    }

    @Test func truncatedArchiveIsAPropertyListError() throws {
        // SampleDocs/malformed/README.md: the data entry was cut to half its bytes.
        let url = Repository.root.appendingPathComponent("SampleDocs/malformed/truncated-archive.ict")
        let error = try #require(throws: KeyedArchiveError.self) { try CTDocumentFiles.read(documentAt: url) }
        guard error.code.propertyListCode != nil else {
            Issue.record("expected a property-list error, got \(error)")
            return
        }
    }

    @Test func fieldOfTheWrongClassNamesItsKeyPath() throws {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("ctdocument.data")
        try Fixtures.makeArchive("first-name-is-data", at: url)
        let error = try #require(throws: KeyedArchiveError.self) {
            try CTDocumentFiles.decode(CTDocumentPort.CTData.self, archivedAs: "CTData", from: url)
        }
        #expect(error.code == .disallowedClass)
        #expect("\(error.keyPath)" == "$top.DATA.FIRST_NAME")
        #expect(error.message.contains("NSData") && error.message.contains("NSString"))
    }

    @Test func objectOfAClassNobodyAllowedNamesItsKeyPath() throws {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("ctdocument.data")
        try Fixtures.makeArchive("photo-is-evil", at: url)
        let error = try #require(throws: KeyedArchiveError.self) {
            try CTDocumentFiles.decode(CTDocumentPort.CTData.self, archivedAs: "CTData", from: url)
        }
        #expect(error.code == .disallowedClass)
        #expect("\(error.keyPath)" == "$top.DATA.PHOTO")
        #expect(error.message.contains("EvilPayload"))
    }

    @Test func versionOfTheWrongTypeNamesItsKeyPath() throws {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("ctdocument.data")
        try Fixtures.makeArchive("version-is-string", at: url)
        let error = try #require(throws: KeyedArchiveError.self) {
            try CTDocumentFiles.decode(CTDocumentPort.CTData.self, archivedAs: "CTData", from: url)
        }
        #expect(error.code == .invalidObject)
        #expect("\(error.keyPath)" == "$top.DATA.VERSION")
    }
}
#endif
