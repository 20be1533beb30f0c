import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import DocumentFormats

struct DocumentFormatsTests {
    @Test func openingReadsOnlyTheListingAndEachEntryLazily() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let document = try ICTDocumentFile(contentsOf: path)
        #expect(document.statistics == ICTDocumentFile.Statistics())
        #expect(try document.displayName() == "Ada L")
        let metadataSize = try #require(document.entrySizes.first { $0.name == ICTDocumentFormat.metadataEntryName }?.size)
        #expect(document.statistics.entriesDecoded == [ICTDocumentFormat.metadataEntryName])
        #expect(document.statistics.bytesRead == Int(metadataSize))
        _ = try document.metadata()
        #expect(document.statistics.entriesDecoded == [ICTDocumentFormat.metadataEntryName])
        let data = try document.data()
        #expect(document.statistics.entriesDecoded == [ICTDocumentFormat.metadataEntryName, ICTDocumentFormat.dataEntryName])
        #expect(data.firstName == "Ada" && data.lastName == "Lovelace" && data.displayName == "Ada L")
        #expect(data.favoriteNumber == 7.5)
    }

    @Test func photoIsStoredAtMost560AndTheThumbnailIs280() throws {
        let folder = try ScratchFolder()
        let document = try ICTDocumentFile(contentsOf: try Fixtures.savedDocument(in: folder))
        let photo = try PNGImage(pngBytes: [UInt8](try #require(try document.data().photo)))
        let thumbnail = try PNGImage(pngBytes: [UInt8](try #require(try document.metadata().thumbnail)))
        #expect((photo.width, photo.height) == (560, 560))
        #expect((thumbnail.width, thumbnail.height) == (280, 280))
    }

    @Test func settingAnEqualValueChangesNothing() throws {
        let folder = try ScratchFolder()
        let document = try ICTDocumentFile(contentsOf: try Fixtures.savedDocument(in: folder))
        #expect(try document.setDisplayName("Ada L") == false)
        #expect(try document.setFirstName("Ada") == false)
        #expect(try document.setFavoriteNumber(7.5) == false)
        let photo = try document.data().photo.map { [UInt8]($0) }
        #expect(try document.setPhoto(pngBytes: photo) == false)
        #expect(!document.hasUnsavedChanges)
    }

    @Test func displayNameSetsBothAndTheSaveKeepsThePhotoAndUnknownEntries() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: path + "/notes.txt"))
        let photoBefore = try ICTDocumentFile(contentsOf: path).data().photo
        let notesInode = try Fixtures.inode(path + "/notes.txt")

        let document = try ICTDocumentFile(contentsOf: path)
        #expect(try document.setDisplayName("Countess"))
        #expect(document.hasUnsavedChanges)
        try document.save()

        let reopened = try ICTDocumentFile(contentsOf: path)
        #expect(try reopened.metadata().displayName == "Countess")
        #expect(try reopened.data().displayName == "Countess")
        #expect(try reopened.data().photo == photoBefore)
        #expect(try String(contentsOfFile: path + "/notes.txt", encoding: .utf8) == "kept")
        #expect(try Fixtures.inode(path + "/notes.txt") == notesInode)
    }

    @Test func editingOnlyTheDataLeavesTheMetadataEntryUnwritten() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let metadataInode = try Fixtures.inode(path + "/" + ICTDocumentFormat.metadataEntryName)
        let document = try ICTDocumentFile(contentsOf: path)
        #expect(try document.setFavoriteNumber(42))
        try document.save()
        #expect(try Fixtures.inode(path + "/" + ICTDocumentFormat.metadataEntryName) == metadataInode)
        #expect(try ICTDocumentFile(contentsOf: path).data().favoriteNumber == 42)
    }

    @Test func favoriteNumberIsWrittenAs32BitReal() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let archive = try KeyedArchiveReader().read(try Data(contentsOf: URL(fileURLWithPath: path + "/ctdocument.data")))
        let root = try archive.decodeValue(forTopKey: "DATA")
        guard case .object(let object) = root else { Issue.record("no object"); return }
        #expect(object.classDescription == KeyedArchiveClass(name: "CTData", chain: ["CTData", "NSObject"]))
        #expect(object.fields["FAVORITE_NUMBER"] == .real32(7.5))
        #expect(object.fields["VERSION"] == .integer(1))
        #expect(Array(object.fields.keys) == ["VERSION", "FIRST_NAME", "LAST_NAME", "DISPLAY_NAME", "FAVORITE_NUMBER", "PHOTO"])
    }

    @Test func unknownVersionIsATypedErrorAndNothingIsOverwritten() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        let dataPath = path + "/ctdocument.data"
        var metadata = CTData(version: 2, firstName: "Future")
        metadata.displayName = "Future"
        try Data(KeyedArchiver.archive(metadata, forKey: "DATA")).write(to: URL(fileURLWithPath: dataPath))
        let before = try Data(contentsOf: URL(fileURLWithPath: dataPath))
        let document = try ICTDocumentFile(contentsOf: path)
        do {
            try document.setDisplayName("Overwrite")
            Issue.record("an unknown version was edited")
        } catch {
            #expect(error.code == .unsupportedVersion)
            #expect(error.entry == "ctdocument.data")
            #expect(error.keyPath == "DATA.VERSION")
        }
        #expect(!document.hasUnsavedChanges)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dataPath)) == before)
    }

    @Test func wrongClassAndMissingEntryNameTheEntry() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.data")
        try Data(KeyedArchiver.archive(CTData(), forKey: "DATA")).write(to: URL(fileURLWithPath: path + "/ctdocument.metadata"))
        let document = try ICTDocumentFile(contentsOf: path)
        do {
            _ = try document.metadata()
            Issue.record("a CTData archive decoded as metadata")
        } catch {
            #expect(error.code == .wrongClass)
            #expect(error.entry == "ctdocument.metadata")
            #expect(error.keyPath.hasSuffix("DATA"))
            #expect(error.message.contains("CTData"))
        }
        do {
            _ = try document.data()
        } catch {
            #expect(error.code == .missingEntry)
            #expect(error.entry == "ctdocument.data")
        }
    }

    @Test func newNamesAreFreeCaseInsensitively() throws {
        let folder = try ScratchFolder()
        #expect(try ICTDocumentFile.freeFileName(for: "Friend", in: folder.path) == "Friend.ict")
        try FileManager.default.createDirectory(atPath: folder.path + "/friend.ICT", withIntermediateDirectories: false)
        #expect(try ICTDocumentFile.freeFileName(for: "Friend", in: folder.path) == "Friend 1.ict")
        try FileManager.default.createDirectory(atPath: folder.path + "/FRIEND 1.ict", withIntermediateDirectories: false)
        #expect(try ICTDocumentFile.freeFileName(for: "Friend", in: folder.path) == "Friend 2.ict")
    }

    @Test func aNewDocumentNeverReplacesAnExistingOne() throws {
        let folder = try ScratchFolder()
        let path = try Fixtures.savedDocument(in: folder)
        do {
            try ICTDocumentFile().save(to: path)
            Issue.record("replaced an existing document")
        } catch {
            #expect(error.code == .alreadyExists)
        }
        #expect(try ICTDocumentFile(contentsOf: path).displayName() == "Ada L")
    }

    /// A favourite number no 32-bit real holds (past ±Float.greatestFiniteMagnitude,
    /// 3.4028234663852886e38, by IEEE 754 binary32; infinite; NaN) is refused at
    /// FAVORITE_NUMBER and nothing changes; the largest finite one is stored.
    @Test func aFavoriteNumberNoFloatHoldsIsRefused() throws {
        let folder = try ScratchFolder()
        let document = try ICTDocumentFile(contentsOf: try Fixtures.savedDocument(in: folder))
        for number in [1e40, -1e40, 3.5e38, Double.infinity, -Double.infinity, Double.nan] {
            #expect(throws: ICTDocumentError.self) { try document.setFavoriteNumber(number) }
            do {
                try document.setFavoriteNumber(number)
            } catch {
                #expect(error.code == .unwritableValue)
                #expect(error.entry == ICTDocumentFormat.dataEntryName)
                #expect(error.keyPath == "FAVORITE_NUMBER")
            }
            #expect(!document.hasUnsavedChanges)
            #expect(try document.data().favoriteNumber == 7.5)
        }
        #expect(try document.setFavoriteNumber(3.4028234663852886e38))
        #expect(try document.data().favoriteNumber == 3.4028234663852886e38)
    }
}
