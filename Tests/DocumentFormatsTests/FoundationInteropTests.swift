import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

@testable import DocumentFormats

/// Acceptance 1: swift-corelibs-foundation's keyed archiver and ours agree on both entries.
struct FoundationInteropTests {
    @Test func foundationDecodesBothEntriesWeWriteFieldForField() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let ours = try ICTDocumentFile(contentsOf: path)

        let dataUnarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(contentsOf: URL(fileURLWithPath: path + "/ctdocument.data")))
        dataUnarchiver.requiresSecureCoding = false
        dataUnarchiver.setClass(FoundationCTData.self, forClassName: "CTData")
        let data = try #require(dataUnarchiver.decodeObject(forKey: "DATA") as? FoundationCTData)
        #expect(data.version == 1)
        #expect(data.firstName == "Ada" && data.lastName == "Lovelace" && data.displayName == "Ada L")
        #expect(data.favoriteNumber?.floatValue == 7.5)
        #expect(data.photo == (try ours.data().photo))

        let metadataUnarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(contentsOf: URL(fileURLWithPath: path + "/ctdocument.metadata")))
        metadataUnarchiver.requiresSecureCoding = false
        metadataUnarchiver.setClass(FoundationCTMetadata.self, forClassName: "CTMetadata")
        let metadata = try #require(metadataUnarchiver.decodeObject(forKey: "DATA") as? FoundationCTMetadata)
        #expect(metadata.version == 1)
        #expect(metadata.displayName == "Ada L")
        #expect(metadata.thumbnail == (try ours.metadata().thumbnail))
    }

    /// On Linux, NSKeyedArchiver names a class by `NSStringFromClass`, which
    /// is the Swift-qualified `Module.Class` (only `Foundation.` is dropped);
    /// `setClassName(_:for:)` (instance and class method) and
    /// `@_originallyDefinedIn(module: "Foundation")` do not change that, so no
    /// Swift class can make Linux's archiver write `CTData` itself. The archive
    /// Foundation writes is taken as it is — its objects, keys, `encodeInt:`
    /// integer, `numberWithFloat:` real, strings and data — and only its
    /// `$classname` strings are renamed to the app's, as Darwin's archiver
    /// would write them with `@objc(CTData)`.
    @Test func archivesFoundationWritesOpenInOurs() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/Foundation.ict"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let photo = Data(try Fixtures.photo(width: 300, height: 300).pngBytes())
        let thumbnail = Data(try ICTDocumentFile.thumbnail(of: Fixtures.photo(width: 300, height: 300)).pngBytes())
        let data = FoundationCTData()
        (data.version, data.firstName, data.lastName, data.displayName) = (1, "Grace", "Hopper", "Amazing Grace")
        data.favoriteNumber = NSNumber(value: Float(1.25))
        data.photo = photo
        let metadata = FoundationCTMetadata()
        (metadata.version, metadata.displayName, metadata.thumbnail) = (1, "Amazing Grace", thumbnail)
        try Self.archive(data, renaming: "CTData").write(to: URL(fileURLWithPath: path + "/ctdocument.data"))
        try Self.archive(metadata, renaming: "CTMetadata").write(to: URL(fileURLWithPath: path + "/ctdocument.metadata"))

        let document = try ICTDocumentFile(contentsOf: path)
        #expect(try document.metadata() == CTMetadata(version: 1, thumbnail: thumbnail, displayName: "Amazing Grace"))
        #expect(
            try document.data()
                == CTData(
                    version: 1, firstName: "Grace", lastName: "Hopper", displayName: "Amazing Grace",
                    favoriteNumber: 1.25, photo: photo))
        #expect(DocumentValidator().validate(packageAt: path) == [])
    }

    /// Foundation's archive of `object` under `DATA`, its class renamed from the Swift-qualified name.
    static func archive(_ object: NSObject, renaming name: String) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(object, forKey: "DATA")
        archiver.finishEncoding()
        let swiftName = NSStringFromClass(type(of: object))
        let archive = try KeyedArchiveReader().read(archiver.encodedData)
        let renamed = KeyedArchiveObjectGraph(
            top: archive.top,
            objects: archive.objects.map { object in
                guard case .dictionary(var fields) = object, fields["$classname"] == .string(swiftName) else { return object }
                fields["$classname"] = .string(name)
                fields["$classes"] = [.string(name), "NSObject"]
                return .dictionary(fields)
            })
        return Data(try KeyedArchiveWriter().encode(renamed))
    }
}

/// The app's `CTData`, Foundation side (top level: Foundation needs that).
final class FoundationCTData: NSObject, NSCoding {
    var version: Int32 = 0
    var firstName: String?
    var lastName: String?
    var displayName: String?
    var favoriteNumber: NSNumber?
    var photo: Data?
    override init() {}
    init?(coder: NSCoder) {
        version = coder.decodeInt32(forKey: "VERSION")
        firstName = coder.decodeObject(forKey: "FIRST_NAME") as? String
        lastName = coder.decodeObject(forKey: "LAST_NAME") as? String
        displayName = coder.decodeObject(forKey: "DISPLAY_NAME") as? String
        favoriteNumber = coder.decodeObject(forKey: "FAVORITE_NUMBER") as? NSNumber
        photo = coder.decodeObject(forKey: "PHOTO") as? Data
    }
    func encode(with coder: NSCoder) {
        coder.encode(version, forKey: "VERSION")
        coder.encode(firstName.map { NSString(string: $0) }, forKey: "FIRST_NAME")
        coder.encode(lastName.map { NSString(string: $0) }, forKey: "LAST_NAME")
        coder.encode(displayName.map { NSString(string: $0) }, forKey: "DISPLAY_NAME")
        coder.encode(favoriteNumber, forKey: "FAVORITE_NUMBER")
        coder.encode(photo.map { NSData(data: $0) }, forKey: "PHOTO")
    }
}

/// The app's `CTMetadata`, Foundation side.
final class FoundationCTMetadata: NSObject, NSCoding {
    var version: Int32 = 0
    var thumbnail: Data?
    var displayName: String?
    override init() {}
    init?(coder: NSCoder) {
        version = coder.decodeInt32(forKey: "VERSION")
        thumbnail = coder.decodeObject(forKey: "THUMBNAIL") as? Data
        displayName = coder.decodeObject(forKey: "DISPLAY NAME") as? String
    }
    func encode(with coder: NSCoder) {
        coder.encode(version, forKey: "VERSION")
        coder.encode(thumbnail.map { NSData(data: $0) }, forKey: "THUMBNAIL")
        coder.encode(displayName.map { NSString(string: $0) }, forKey: "DISPLAY NAME")
    }
}
