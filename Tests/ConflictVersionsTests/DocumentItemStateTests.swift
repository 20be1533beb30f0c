import ConflictVersions
import Foundation
import SystemPackage
import Testing

/// A document's state from its files: normal; in conflict while a sync
/// tool's copy is beside it or beside a package's entry, normal again once
/// the copy is gone; editing disabled when it is read-only (`chmod a-w`,
/// checked by the mode bits too, since the tests may run as root).
struct DocumentItemStateTests {
    @Test func aFileIsNormalThenInConflictThenNormalAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("mine", at: "notes.txt")
        #expect(try DocumentItemState(ofItemAt: directory.appending("notes.txt")) == [])
        #expect(try DocumentItemState(ofItemAt: directory.appending("notes.txt")).description == "normal")
        try directory.write("theirs", at: "notes.sync-conflict-20261125-101500-ABCDEF7.txt")
        #expect(try DocumentItemState(ofItemAt: directory.appending("notes.txt")) == .inConflict)
        try FileManager.default.removeItem(atPath: directory.appending("notes.sync-conflict-20261125-101500-ABCDEF7.txt"))
        #expect(try DocumentItemState(ofItemAt: directory.appending("notes.txt")) == [])
    }

    @Test func aPackageWithAnEntryCopyIsInConflict() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("data", at: "Doc.ict/ctdocument.data")
        try directory.write("other data", at: "Doc.ict/ctdocument.sync-conflict-20261125-101500-ABCDEF7.data")
        #expect(try DocumentItemState(ofItemAt: directory.appending("Doc.ict")) == .inConflict)
    }

    @Test func aReadOnlyFileHasEditingDisabled() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("mine", at: "notes.txt")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory.appending("notes.txt"))
        try directory.write("theirs", at: "notes.sync-conflict-20261125-101500-ABCDEF7.txt")
        let state = try DocumentItemState(ofItemAt: directory.appending("notes.txt"))
        #expect(state == [.inConflict, .editingDisabled])
        #expect(state.names == ["inConflict", "editingDisabled"])
        #expect(state.description == "inConflict, editingDisabled")
    }

    @Test func aMissingDocumentIsNotFound() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect {
            try DocumentItemState(ofItemAt: directory.appending("gone.txt"))
        } throws: { error in
            (error as? DocumentVersionError)?.code == .notFound && (error as? DocumentVersionError)?.path == FilePath(directory.appending("gone.txt"))
        }
    }
}
