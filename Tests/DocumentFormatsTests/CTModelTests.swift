import DocumentFormats
import Foundation
import TestSupport
import Testing

/// `CTData` and `CTMetadata` keep the keys they do not know (issue 38 item
/// 4), through `ICTDocumentFile`'s setters and `save()`: the library path,
/// not only `ict set`. The keys are added, and read back after the save, by
/// Python's `plistlib` (`UnknownArchiveKeys`); what is expected after is
/// what `plistlib` read before.
struct CTModelTests {
    static let rocket = Repository.root.appendingPathComponent("SampleDocs/Rocket.ict").path
    static let entries = [ICTDocumentFormat.dataEntryName, ICTDocumentFormat.metadataEntryName]

    /// Each setter of `ICTDocumentFile`, by name.
    static let setters: [String: @Sendable (ICTDocumentFile) throws -> Void] = [
        "first name": { try $0.setFirstName("Bob") },
        "last name": { try $0.setLastName("Smith") },
        "display name": { try $0.setDisplayName("Someone else") },
        "favourite number": { try $0.setFavoriteNumber(12.5) },
        "photo": { try $0.setPhoto(pngBytes: try Fixtures.photo(width: 600, height: 600).pngBytes()) },
        "no photo": { try $0.setPhoto(pngBytes: nil) },
    ]

    /// A copy of Rocket.ict with `UnknownArchiveKeys` added to both entries, and what plistlib reads of them.
    static func documentWithUnknownKeys(in folder: ScratchFolder) throws -> (path: String, before: [String: String]) {
        let path = folder.path + "/Rocket.ict"
        try FileManager.default.copyItem(atPath: rocket, toPath: path)
        var before: [String: String] = [:]
        for entry in entries {
            try UnknownArchiveKeys.add(toEntryAt: path + "/" + entry, topKey: ICTDocumentFormat.topKey)
            before[entry] = try UnknownArchiveKeys.resolved(inEntryAt: path + "/" + entry, topKey: ICTDocumentFormat.topKey)
        }
        return (path, before)
    }

    @Test(arguments: setters.keys.sorted())
    func everySetterKeepsTheUnknownKeysOfBothEntriesOnSave(_ setter: String) throws {
        let folder = try ScratchFolder()
        let (path, before) = try Self.documentWithUnknownKeys(in: folder)
        let document = try ICTDocumentFile(contentsOf: path)
        #expect(Set(try document.data().unknownFields.keys) == Set(UnknownArchiveKeys.keys))
        #expect(Set(try document.metadata().unknownFields.keys) == Set(UnknownArchiveKeys.keys))
        let edit = try #require(Self.setters[setter])
        try edit(document)
        #expect(document.hasUnsavedChanges)
        try document.save()
        for entry in Self.entries {
            #expect(try UnknownArchiveKeys.resolved(inEntryAt: path + "/" + entry, topKey: ICTDocumentFormat.topKey) == before[entry], "\(entry)")
        }
        // Saved elsewhere too, and read again by a new document: the same keys.
        try document.save(to: folder.path + "/Copy.ict")
        for entry in Self.entries {
            #expect(try UnknownArchiveKeys.resolved(inEntryAt: folder.path + "/Copy.ict/" + entry, topKey: ICTDocumentFormat.topKey) == before[entry])
        }
        #expect(try ICTDocumentFile(contentsOf: folder.path + "/Copy.ict").data().unknownFields == document.data().unknownFields)
    }

    @Test func theSetFieldIsChangedAndTheKnownKeysAreNotKeptTwice() throws {
        let folder = try ScratchFolder()
        let (path, _) = try Self.documentWithUnknownKeys(in: folder)
        let document = try ICTDocumentFile(contentsOf: path)
        try document.setDisplayName("Bob")
        try document.save()
        let known = ["DISPLAY_NAME", "FIRST_NAME", "VERSION"]
        #expect(
            try UnknownArchiveKeys.resolved(inEntryAt: path + "/ctdocument.data", topKey: "DATA", keys: known)
                == #"{"$same object": [], "DISPLAY_NAME": {"string": "Bob"}, "FIRST_NAME": {"string": "Falcon"}, "VERSION": {"integer": 1}}"# + "\n")
        let kept = try ICTDocumentFile(contentsOf: path).data().unknownFields.keys
        #expect(CTData.knownKeys.isDisjoint(with: kept))
    }

    @Test func aNewDocumentAndTheSamplesHaveNoUnknownKeys() throws {
        #expect(CTData().unknownFields.isEmpty && CTMetadata().unknownFields.isEmpty)
        let sample = try ICTDocumentFile(contentsOf: Self.rocket)
        #expect(try sample.data().unknownFields.isEmpty && sample.metadata().unknownFields.isEmpty)
    }
}
