import Foundation
import PackageFormat
import SystemPackage
import Testing

@testable import ConflictVersions

/// Acceptance 1 on disk: conflict sets of every scheme for plain files,
/// packages synced as folders and entry conflicts inside a package; and the
/// NSFileVersion operations (replace, remove) on them.
struct DocumentVersionTests {
    @Test func findsPlainFileConflictsOfEveryTool() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for name in [
            "Notes 1.0.txt", "Notes 1.0.sync-conflict-20261123-101500-ABCDEF7.txt",
            "Notes 1.0 (conflicted copy ada 2026-11-22 093000).txt", "Notes 1.0_conflict-20261121-080000.txt",
            "Notes 1.0 (Büro-PC's conflicted copy 2026-11-20).txt",
            "Notes 1.0 2.txt", "Notes 1.0.txt.sync-conflict-20261123-101500-ABCDEF7", "Other.sync-conflict-20261123-101500-ABCDEF7.txt",
        ] {
            try folder.write(name, at: name)
        }
        let versions = try DocumentVersion.otherVersionsOfItem(at: folder.appending("Notes 1.0.txt"))
        #expect(
            versions.map(\.localizedName) == [
                "Notes 1.0 (Büro-PC's conflicted copy 2026-11-20).txt", "Notes 1.0_conflict-20261121-080000.txt",
                "Notes 1.0 (conflicted copy ada 2026-11-22 093000).txt", "Notes 1.0.sync-conflict-20261123-101500-ABCDEF7.txt",
            ])
        #expect(versions.map(\.conflictName!.tool) == [.dropbox, .nextcloud, .nextcloud, .syncthing])
        #expect(versions.map(\.conflictName!.date.description) == ["2026-11-20", "2026-11-21 08:00:00", "2026-11-22 09:30:00", "2026-11-23 10:15:00"])
        #expect(versions.map(\.localizedNameOfSavingComputer) == ["Büro-PC", nil, "ada", "ABCDEF7"])
        #expect(versions.allSatisfy { $0.isConflict && !$0.isResolved && !$0.isDirectory && $0.modificationDate != nil })
        let current = try DocumentVersion.currentVersionOfItem(at: folder.appending("Notes 1.0.txt"))
        #expect(!current.isConflict)
        #expect(try DocumentVersion.unresolvedConflictVersionsOfItem(at: folder.appending("Notes 1.0.txt")).count == 4)
    }

    @Test func findsPackageCopiesAndEntryConflicts() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current data", at: "Zoë.ict/ctdocument.data")
        try folder.write("current metadata", at: "Zoë.ict/ctdocument.metadata")
        // Two entry copies of one conflict (one device, one time), one of another.
        try folder.write("A data", at: "Zoë.ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.data")
        try folder.write("A metadata", at: "Zoë.ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.metadata")
        try folder.write("B data", at: "Zoë.ict/ctdocument (conflicted copy 2026-11-24 120000).data")
        // A whole-package copy beside it.
        try folder.write("C data", at: "Zoë.sync-conflict-20261122-090000-QRSTUV2.ict/ctdocument.data")
        try folder.write("C metadata", at: "Zoë.sync-conflict-20261122-090000-QRSTUV2.ict/ctdocument.metadata")
        let document = folder.appending("Zoë.ict")
        let versions = try DocumentVersion.otherVersionsOfItem(at: document)
        #expect(versions.count == 3)
        #expect(versions[0].path == FilePath(folder.appending("Zoë.sync-conflict-20261122-090000-QRSTUV2.ict")))
        #expect(versions[0].isDirectory && versions[0].entrySwaps.isEmpty)
        #expect(versions[1].path == FilePath(document))
        #expect(versions[1].localizedNameOfSavingComputer == "ABCDEF7")
        #expect(
            versions[1].entrySwaps == [
                .init(entryPathText: "ctdocument.data", conflictEntryPathText: "ctdocument.sync-conflict-20261123-101500-ABCDEF7.data"),
                .init(entryPathText: "ctdocument.metadata", conflictEntryPathText: "ctdocument.sync-conflict-20261123-101500-ABCDEF7.metadata"),
            ])
        #expect(versions[2].conflictName?.tool == .nextcloud)
        #expect(versions[2].conflictName?.date.description == "2026-11-24 12:00:00")
        #expect(versions[2].entrySwaps.map(\.entryPath) == [FilePath("ctdocument.data")])

        // The entry version as a package: the copies in place of the entries, the other copies still there.
        let package = try versions[1].packageWrapper()
        #expect(String(decoding: try package.child(named: "ctdocument.data")!.contents(), as: UTF8.self) == "A data")
        #expect(String(decoding: try package.child(named: "ctdocument.metadata")!.contents(), as: UTF8.self) == "A metadata")
    }

    @Test func replacingWithAnEntryVersionSwapsItsEntriesIn() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current data", at: "F.ict/ctdocument.data")
        try folder.write("current metadata", at: "F.ict/ctdocument.metadata")
        try folder.write("A data", at: "F.ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.data")
        try folder.write("B data", at: "F.ict/ctdocument (conflicted copy 2026-11-24 120000).data")
        let document = folder.appending("F.ict")
        let version = try DocumentVersion.otherVersionsOfItem(at: document)[0]
        try version.replaceItem(at: document, options: .byMoving)
        #expect(version.isResolved)
        #expect(try folder.read("F.ict/ctdocument.data") == "A data")
        #expect(try folder.read("F.ict/ctdocument.metadata") == "current metadata")
        #expect(try folder.names("F.ict") == ["ctdocument (conflicted copy 2026-11-24 120000).data", "ctdocument.data", "ctdocument.metadata"])
        try DocumentVersion.removeOtherVersionsOfItem(at: document)
        #expect(try folder.names("F.ict") == ["ctdocument.data", "ctdocument.metadata"])
        #expect(try folder.read("F.ict/ctdocument.data") == "A data")
    }

    @Test func replacingAPlainFileKeepsOrMovesTheVersion() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current", at: "a b.txt")
        try folder.write("theirs", at: "a b.sync-conflict-20261123-101500-ABCDEF7.txt")
        try folder.write("unrelated", at: "c.txt")
        let document = folder.appending("a b.txt")
        let version = try DocumentVersion.otherVersionsOfItem(at: document)[0]
        try version.replaceItem(at: document)
        #expect(try folder.read("a b.txt") == "theirs")
        #expect(try folder.names() == ["a b.sync-conflict-20261123-101500-ABCDEF7.txt", "a b.txt", "c.txt"])
        try version.replaceItem(at: document, options: .byMoving)
        #expect(try folder.names() == ["a b.txt", "c.txt"])
        #expect(version.isResolved)
    }

    @Test func replacingAPackageWithACopyAndRemovingTheRestLeavesTheCurrentAlone() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current", at: "F.ict/ctdocument.data")
        try folder.write("entry copy", at: "F.ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.data")
        try folder.write("sibling", at: "F (Ada's conflicted copy 2026-11-20).ict/ctdocument.data")
        try folder.write("other", at: "F.sync-conflict-20261121-101500-ABCDEF7.ict/ctdocument.data")
        let document = folder.appending("F.ict")
        let versions = try DocumentVersion.otherVersionsOfItem(at: document)
        #expect(versions.map(\.conflictName!.tool) == [.dropbox, .syncthing, .syncthing])
        try versions[0].replaceItem(at: document, options: .byMoving)
        #expect(try folder.names("F.ict") == ["ctdocument.data"])
        #expect(try folder.read("F.ict/ctdocument.data") == "sibling")
        try DocumentVersion.removeOtherVersionsOfItem(at: document)
        #expect(try folder.names() == ["F.ict"])
        #expect(try folder.read("F.ict/ctdocument.data") == "sibling")
    }

    @Test func refusesAVersionOfAnotherKind() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current", at: "F.ict/ctdocument.data")
        try folder.write("a file", at: "F.sync-conflict-20261123-101500-ABCDEF7.ict")
        let document = folder.appending("F.ict")
        let version = try DocumentVersion.otherVersionsOfItem(at: document)[0]
        #expect(throws: DocumentVersionError.self) { try version.replaceItem(at: document) }
        do {
            try version.replaceItem(at: document)
        } catch {
            #expect(error.code == .kindMismatch)
        }
        #expect(try folder.read("F.ict/ctdocument.data") == "current")
        #expect(try folder.read("F.sync-conflict-20261123-101500-ABCDEF7.ict") == "a file")
    }

    @Test func fingerprintChangesWhenAVersionChanges() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current", at: "F.ict/ctdocument.data")
        try folder.write("theirs", at: "F.sync-conflict-20261123-101500-ABCDEF7.ict/ctdocument.data")
        let document = folder.appending("F.ict")
        let before = try VersionFingerprint.ofItem(at: document)
        #expect(try VersionFingerprint.ofItem(at: document) == before)
        #expect(before.count == 16)
        try folder.write("theirs, changed", at: "F.sync-conflict-20261123-101500-ABCDEF7.ict/ctdocument.data")
        #expect(try VersionFingerprint.ofItem(at: document) != before)
    }

    @Test func findsTheVersionsOfAWholeFolderFromOneListing() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("a", at: "A.ict/ctdocument.data")
        try folder.write("a2", at: "A.ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.data")
        try folder.write("b", at: "B.ict/ctdocument.data")
        try folder.write("b2", at: "B (conflicted copy 2026-11-23 101500).ict/ctdocument.data")
        try folder.write("c", at: "C.ict/ctdocument.data")
        try folder.write("orphan", at: "D.sync-conflict-20261123-101500-ABCDEF7.ict/ctdocument.data")
        let all = try DocumentVersion.otherVersionsOfItems(inFolder: folder.path)
        #expect(all.keys.sorted() == ["A.ict", "B.ict"])
        for name in all.keys {
            let one = try DocumentVersion.otherVersionsOfItem(at: folder.appending(name))
            #expect(all[name]!.map(\.path) == one.map(\.path))
            #expect(all[name]!.map(\.entrySwaps) == one.map(\.entrySwaps))
            #expect(all[name]!.map(\.conflictName) == one.map(\.conflictName))
        }
    }

    @Test func missingDocumentIsNotFound() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        do {
            _ = try DocumentVersion.otherVersionsOfItem(at: folder.appending("none.ict"))
            Issue.record("no error")
        } catch {
            #expect(error.code == .notFound)
        }
    }
}
