#if !canImport(Darwin)
import AppleCompatibility
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Foundation's `NSFileVersion` over real conflict copies, named by hand as
/// Syncthing names them (`NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT`,
/// the device being the first seven characters of the winner's ID).
@Suite(.serialized)
struct NSFileVersionTests {
    /// A folder holding `Note.icfnote` ("mine") and two conflict copies of it, the older first.
    private struct ConflictedNote {
        let folder: TemporaryDirectory
        let url: URL
        let older: URL
        let newer: URL

        init() throws {
            folder = try TemporaryDirectory()
            url = folder.url.appendingPathComponent("Note.icfnote")
            older = folder.url.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote")
            newer = folder.url.appendingPathComponent("Note.sync-conflict-20261206-111111-HIJKLMN.icfnote")
            try Data("mine".utf8).write(to: url)
            try Data("theirs, older".utf8).write(to: older)
            try Data("theirs, newer".utf8).write(to: newer)
        }

        func text(_ url: URL) throws -> String { String(decoding: try Data(contentsOf: url), as: UTF8.self) }
    }

    @Test func conflictCopiesAreTheOtherVersionsOldestFirst() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let current = try #require(NSFileVersion.currentVersionOfItem(at: note.url))
        #expect(!current.isConflict && !current.isResolved)
        #expect(current.url.path == note.url.path)
        #expect(current.localizedNameOfSavingComputer == nil)

        let others = try #require(NSFileVersion.otherVersionsOfItem(at: note.url))
        #expect(others.map(\.url.lastPathComponent) == [note.older.lastPathComponent, note.newer.lastPathComponent])
        #expect(others.map(\.localizedName) == [note.older.lastPathComponent, note.newer.lastPathComponent])
        // The device text of each name, read off it by hand.
        #expect(others.map(\.localizedNameOfSavingComputer) == ["ABCDEFG", "HIJKLMN"])
        #expect(others.allSatisfy { $0.isConflict && !$0.isResolved && $0.hasLocalContents && !$0.isDiscardable })
        // The time the copy's name gives, set as its modification time (2026-12-06 10:10:10 UTC, by python3's calendar.timegm).
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_551_810)], ofItemAtPath: note.older.path)
        let listedAgain = try #require(NSFileVersion.otherVersionsOfItem(at: note.url))
        #expect(listedAgain[0].modificationDate == Date(timeIntervalSince1970: 1_796_551_810))
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url) == others)
    }

    /// The photo app's test `version != NSFileVersion.currentVersionOfItem(at: url)`.
    @Test func versionsAreEqualWhenTheyAreTheSameVersion() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let current = NSFileVersion.currentVersionOfItem(at: note.url)
        #expect(current == NSFileVersion.currentVersionOfItem(at: note.url))
        let others = try #require(NSFileVersion.otherVersionsOfItem(at: note.url))
        #expect(others[0] != current && others[1] != current && others[0] != others[1])
        let again = try #require(NSFileVersion.otherVersionsOfItem(at: note.url))
        #expect(others[0] == again[0] && others[0].hash == again[0].hash)
        #expect(Set(others + again).count == 2)
        // Another document's current version is another version.
        let other = note.folder.url.appendingPathComponent("Other.icfnote")
        try Data("mine".utf8).write(to: other)
        #expect(NSFileVersion.currentVersionOfItem(at: other) != current)
    }

    /// Apple: a version marked resolved is no longer returned by
    /// `unresolvedConflictVersionsOfItem(at:)`, and stays until removed.
    @Test func aVersionMarkedResolvedStaysOnDiskUntilRemoved() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let before = try FolderSnapshot.take(note.folder.url.path)
        let versions = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url))
        versions[0].isResolved = true
        #expect(versions[0].isResolved)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url)?.map(\.url.lastPathComponent) == [note.newer.lastPathComponent])
        // Every version is still there, the resolved one known as such by a new object.
        let others = try #require(NSFileVersion.otherVersionsOfItem(at: note.url))
        #expect(others.map(\.isResolved) == [true, false])
        #expect(try FolderSnapshot.take(note.folder.url.path) == before, "marking resolved changes nothing on disk")

        // Setting it false makes it a conflict again; setting it on the current version does nothing.
        versions[0].isResolved = false
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url)?.count == 2)
        let current = try #require(NSFileVersion.currentVersionOfItem(at: note.url))
        current.isResolved = true
        #expect(!current.isResolved)

        for version in versions { version.isResolved = true }
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url) == [])
        try NSFileVersion.removeOtherVersionsOfItem(at: note.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: note.folder.url.path) == ["Note.icfnote"])
        #expect(try note.text(note.url) == "mine")
        #expect(NSFileVersion.otherVersionsOfItem(at: note.url) == [])
    }

    /// A copy the engine writes again after it was marked (another modification date) is a new conflict.
    @Test func aCopyChangedAfterItWasMarkedIsUnresolvedAgain() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let versions = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url))
        versions[1].isResolved = true
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url)?.count == 1)
        try Data("theirs, edited again".utf8).write(to: note.newer)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_800_000_000)], ofItemAtPath: note.newer.path)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url)?.count == 2)
    }

    @Test func replacingByMovingPutsTheVersionInPlaceAndResolvesIt() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let versions = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url))
        let written = try versions[1].replaceItem(at: note.url, options: .byMoving)
        #expect(written == note.url)
        #expect(try note.text(note.url) == "theirs, newer")
        #expect(!FileManager.default.fileExists(atPath: note.newer.path))
        #expect(versions[1].isResolved)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url)?.map(\.url.lastPathComponent) == [note.older.lastPathComponent])
    }

    @Test func replacingByCopyingLeavesTheVersion() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let versions = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: note.url))
        try versions[0].replaceItem(at: note.url)
        #expect(try note.text(note.url) == "theirs, older")
        #expect(try note.text(note.older) == "theirs, older")
        #expect(!versions[0].isResolved)
        try versions[0].remove()
        #expect(versions[0].isResolved)
        #expect(!FileManager.default.fileExists(atPath: note.older.path))
        #expect(try note.text(note.newer) == "theirs, newer")
    }

    @Test func theCurrentVersionCannotBeRemoved() throws {
        let note = try ConflictedNote()
        defer { note.folder.remove() }
        let before = try FolderSnapshot.take(note.folder.url.path)
        let current = try #require(NSFileVersion.currentVersionOfItem(at: note.url))
        let error = try #require(throws: CocoaError.self) { try current.remove() }
        #expect(error.code == .fileWriteNoPermission)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == note.url.path)
        #expect(try FolderSnapshot.take(note.folder.url.path) == before)
    }

    /// A copy a peer made a FIFO or a link is listed, never moved in: the error names it, and nothing changes.
    @Test(arguments: ["fifo", "link"])
    func aCopyThatIsNoFileIsRefused(kind: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("Note.icfnote")
        try Data("mine".utf8).write(to: url)
        let copy = folder.url.appendingPathComponent("Note.sync-conflict-20261206-101010-ABCDEFG.icfnote")
        if kind == "fifo" {
            #expect(mkfifo(copy.path, 0o644) == 0)
        } else {
            try Data("outside".utf8).write(to: folder.url.appendingPathComponent("outside.txt"))
            try FileManager.default.createSymbolicLink(atPath: copy.path, withDestinationPath: "outside.txt")
        }
        let before = try FolderSnapshot.take(folder.url.path)
        let version = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: url)?.first)
        #expect(version.url.path == copy.path)
        let error = try #require(throws: CocoaError.self) { try version.replaceItem(at: url, options: .byMoving) }
        #expect(error.code == .fileWriteInvalidFileName)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == copy.path)
        #expect(try FolderSnapshot.take(folder.url.path) == before)
    }

    /// A document that is itself a link has no versions beside it: nil, as for a missing one.
    @Test func aDocumentThatIsALinkHasNoVersionsToList() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try Data("mine".utf8).write(to: folder.url.appendingPathComponent("Real.icfnote"))
        let link = folder.url.appendingPathComponent("Note.icfnote")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "Real.icfnote")
        #expect(NSFileVersion.currentVersionOfItem(at: link) != nil)
        #expect(NSFileVersion.otherVersionsOfItem(at: link) == nil)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: link) == nil)
        let error = try #require(throws: CocoaError.self) { try NSFileVersion.removeOtherVersionsOfItem(at: link) }
        #expect(error.code == .fileWriteInvalidFileName)
    }

    /// Syncthing's per-entry copies inside a package make one version of the whole package.
    @Test func entryCopiesInsideAPackageAreOneVersion() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let package = folder.url.appendingPathComponent("Friend.ict")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: false)
        try Data("my data".utf8).write(to: package.appendingPathComponent("ctdocument.data"))
        try Data("metadata".utf8).write(to: package.appendingPathComponent("ctdocument.metadata"))
        try Data("their data".utf8).write(to: package.appendingPathComponent("ctdocument.sync-conflict-20261206-101010-ABCDEFG.data"))

        let versions = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: package))
        #expect(versions.count == 1)
        #expect(versions[0].url.path == package.path)
        #expect(versions[0].localizedName == "Friend.ict")
        #expect(versions[0].localizedNameOfSavingComputer == "ABCDEFG")
        #expect(versions[0] != NSFileVersion.currentVersionOfItem(at: package))
        try versions[0].replaceItem(at: package, options: .byMoving)
        #expect(try Data(contentsOf: package.appendingPathComponent("ctdocument.data")) == Data("their data".utf8))
        // The entries, with no copy left (ICTKit's manifest of a whole package, a hidden entry, may be beside them).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: package.path).filter { $0 != ".ictkit-manifest.plist" }.sorted() == [
                "ctdocument.data", "ctdocument.metadata",
            ])
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: package) == [])
    }
}
#endif
