import ConflictVersions
import Foundation
import SystemPackage
import Testing

/// Issue 20, links: a conflict version that is a symbolic link — a copy
/// beside the document, or an entry copy inside a package — is found and
/// marked, and refused by every operation that would move or copy it into
/// the document's place; what it points to is never touched.
struct DocumentVersionLinkTests {
    @Test func aCopyThatIsALinkIsMarkedAndRefused() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("mine", at: "work/Notes.txt")
        try folder.write("elsewhere", at: "outside.txt")
        let copy = folder.appending("work/Notes.sync-conflict-20261123-101500-ABCDEF7.txt")
        try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: "../outside.txt")
        let document = folder.appending("work/Notes.txt")

        let versions = try DocumentVersion.otherVersionsOfItem(at: document)
        let version = try #require(versions.first)
        #expect(versions.count == 1)
        #expect(version.isSymbolicLink)
        #expect(!version.isDirectory)
        #expect(version.symbolicLinkError?.code == .symbolicLink)
        #expect(version.symbolicLinkError?.code.description == "symbolicLink")
        #expect(version.symbolicLinkError?.path == FilePath(copy))
        #expect(try DocumentVersion.currentVersionOfItem(at: document).symbolicLinkError == nil)

        for options: DocumentVersion.ReplacingOptions in [[], .byMoving] {
            let error = #expect(throws: DocumentVersionError.self) { try version.replaceItem(at: document, options: options) }
            #expect(error?.code == .symbolicLink)
            #expect(
                error?.message
                    == "the version is a symbolic link (to \"../outside.txt\"); a link is never moved or copied into the document's place, where later edits would write through it"
            )
        }
        #expect(throws: DocumentVersionError.self) { _ = try version.packageWrapper() }
        #expect(try folder.read("work/Notes.txt") == "mine")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: copy) == "../outside.txt")

        // Removing the version removes the link alone.
        try version.remove()
        #expect(try folder.names("work") == ["Notes.txt"])
        #expect(try folder.read("outside.txt") == "elsewhere")
    }

    @Test func aCopyThatBecameALinkSinceItWasListedIsRefused() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("mine", at: "work/Notes.txt")
        try folder.write("theirs", at: "work/Notes.sync-conflict-20261123-101500-ABCDEF7.txt")
        try folder.write("elsewhere", at: "outside.txt")
        let document = folder.appending("work/Notes.txt")
        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: document).first)
        #expect(!version.isSymbolicLink)
        let copy = folder.appending("work/Notes.sync-conflict-20261123-101500-ABCDEF7.txt")
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: "../outside.txt")
        for options: DocumentVersion.ReplacingOptions in [[], .byMoving] {
            let error = #expect(throws: DocumentVersionError.self) { try version.replaceItem(at: document, options: options) }
            #expect(error?.code == .symbolicLink)
        }
        #expect(try folder.read("work/Notes.txt") == "mine")
        #expect(try folder.read("outside.txt") == "elsewhere")
    }

    @Test func aLinkWhereTheCopyIsWrittenBesideIsReplacedNotWrittenThrough() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("mine", at: "work/Notes.txt")
        try folder.write("theirs", at: "work/Notes.sync-conflict-20261123-101500-ABCDEF7.txt")
        try folder.write("elsewhere", at: "outside.txt")
        // The name replaceItem wrote the copy under before its temporaries were named by
        // `TemporaryItem` (now a random part makes the name unforeseeable): a link there is left alone.
        let beside = folder.appending("work/.Notes.txt.ict-replacing-\(getpid())")
        try FileManager.default.createSymbolicLink(atPath: beside, withDestinationPath: "../outside.txt")
        let document = folder.appending("work/Notes.txt")
        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: document).first)
        try version.replaceItem(at: document)
        #expect(try folder.read("work/Notes.txt") == "theirs")
        #expect(try folder.read("outside.txt") == "elsewhere")
        #expect(try folder.names("work") == [".Notes.txt.ict-replacing-\(getpid())", "Notes.sync-conflict-20261123-101500-ABCDEF7.txt", "Notes.txt"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: beside) == "../outside.txt")
        var status = stat()
        #expect(lstat(document, &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
    }

    @Test func aDocumentThatIsALinkIsRefused() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("mine", at: "real/Notes.txt")
        try folder.write("theirs", at: "real/Notes.sync-conflict-20261123-101500-ABCDEF7.txt")
        try FileManager.default.createDirectory(atPath: folder.appending("work"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appending("work/Notes.txt"), withDestinationPath: "../real/Notes.txt")
        try folder.write("theirs too", at: "work/Notes.sync-conflict-20261124-101500-ABCDEF7.txt")
        let link = folder.appending("work/Notes.txt")
        let error = #expect(throws: DocumentVersionError.self) { _ = try DocumentVersion.otherVersionsOfItem(at: link) }
        #expect(error?.code == .symbolicLink)
        #expect(
            error?.description
                == "\(link): the document is a symbolic link (to \"../real/Notes.txt\"); its versions are beside the item it points to, named after it: name that item instead"
        )
        // A version found for the item itself is not moved over a link put in its place.
        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: folder.appending("real/Notes.txt")).first)
        #expect(throws: DocumentVersionError.self) { try version.replaceItem(at: link, options: .byMoving) }
        #expect(try folder.read("real/Notes.txt") == "mine")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../real/Notes.txt")
        #expect(try folder.names("real") == ["Notes.sync-conflict-20261123-101500-ABCDEF7.txt", "Notes.txt"])
    }

    @Test func anEntryCopyThatIsALinkIsMarkedAndRefusedWithoutACrash() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("current data", at: "Doc.ict/ctdocument.data")
        try folder.write("outside data", at: "outside.data")
        let entry = "ctdocument.sync-conflict-20261123-101500-ABCDEF7.data"
        try FileManager.default.createSymbolicLink(atPath: folder.appending("Doc.ict/" + entry), withDestinationPath: "../outside.data")
        let document = folder.appending("Doc.ict")

        let version = try #require(try DocumentVersion.otherVersionsOfItem(at: document).first)
        #expect(version.entrySwaps.map(\.isSymbolicLink) == [true])
        #expect(version.isSymbolicLink)
        let listed = try #require(version.symbolicLinkError)
        #expect(listed.code == .symbolicLink)
        #expect(listed.path == FilePath(document))
        #expect(listed.entry == entry)
        #expect(listed.message.hasPrefix("the entry copy is a symbolic link (to \"../outside.data\"); "))
        for moving in [false, true] {
            let error = #expect(throws: DocumentVersionError.self) { _ = try version.packageWrapper(movingEntries: moving) }
            #expect(error?.code == .symbolicLink)
        }
        let error = #expect(throws: DocumentVersionError.self) { try version.replaceItem(at: document, options: .byMoving) }
        #expect(error?.code == .symbolicLink)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data", entry])
        #expect(try folder.read("Doc.ict/ctdocument.data") == "current data")

        try DocumentVersion.removeOtherVersionsOfItem(at: document)
        #expect(try folder.names("Doc.ict") == ["ctdocument.data"])
        #expect(try folder.read("outside.data") == "outside data")
    }
}
