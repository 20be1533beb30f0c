import DocumentFormats
import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

/// `DocumentDiscovery.documents(in:recursive:)` on a folder made here with
/// documents, a Syncthing conflict copy, a subfolder, a link to a folder and
/// an unreadable subfolder; the expected lists are written out by hand.
struct DocumentDiscoveryTests {
    static let coffee = Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path
    static let samples = Repository.root.appendingPathComponent("SampleDocs").path

    private func makeFolder() throws -> ScratchFolder {
        let folder = try ScratchFolder()
        let files = FileManager.default
        try files.copyItem(atPath: Self.coffee, toPath: folder.path + "/B.ict")
        try files.copyItem(atPath: Self.coffee, toPath: folder.path + "/B.sync-conflict-20261123-101500-ABCDEF7.ict")
        try files.copyItem(atPath: Self.coffee, toPath: folder.path + "/A.ict")
        try files.createDirectory(atPath: folder.path + "/sub", withIntermediateDirectories: false)
        try files.copyItem(atPath: Self.coffee, toPath: folder.path + "/sub/C.ict")
        try files.createSymbolicLink(atPath: folder.path + "/linked", withDestinationPath: folder.path + "/sub")
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/notes.txt"))
        return folder
    }

    @Test func findsTheDocumentsInNameOrderWithTheirConflictCopies() throws {
        let folder = try makeFolder()
        let found = try DocumentDiscovery.documents(in: folder.path)
        #expect(found.map(\.name) == ["A.ict", "B.ict"])
        #expect(found.map(\.conflictCount) == [0, 1])
        #expect(found.map(\.path) == [folder.path + "/A.ict", folder.path + "/B.ict"])
    }

    @Test func recursiveLooksIntoSubfoldersButNotThroughLinks() throws {
        let folder = try makeFolder()
        let found = try DocumentDiscovery.documents(in: folder.path, recursive: true)
        #expect(found.map(\.path) == [folder.path + "/A.ict", folder.path + "/B.ict", folder.path + "/sub/C.ict"])
    }

    @Test func aFolderThatCannotBeListedSaysWhich() throws {
        let folder = try makeFolder()
        #expect { try DocumentDiscovery.documents(in: folder.path + "/missing") } throws: { error in
            let error = error as? ICTDocumentError
            return error?.code == .package && error?.packageError?.fileSystemPathText == folder.path + "/missing"
                && error?.packageError?.systemErrorNumber == ENOENT
        }
        guard getuid() != 0 else { return }  // root lists any folder
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: folder.path + "/sub")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path + "/sub") }
        var unlisted: [String] = []
        let found = try DocumentDiscovery.documents(in: folder.path, recursive: true) { unlisted.append($0.packageError?.fileSystemPathText ?? "") }
        #expect(found.map(\.name) == ["A.ict", "B.ict"])
        #expect(unlisted == [folder.path + "/sub"])
    }

    @Test func aDocumentNamedByItsPathHasNoFolder() {
        let named = DocumentLocation(folder: "", name: "x/Friend.ict", conflictCount: nil)
        #expect(named.path == "x/Friend.ict")
        #expect(DocumentLocation(folder: "/", name: "Friend.ict", conflictCount: 0).path == "/Friend.ict")
    }

    @Test func discoveryFindsEveryKindAndCountsConflictCopiesOfEach() throws {
        let folder = try ScratchFolder()
        let files = FileManager.default
        try files.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: folder.path + "/A.ict")
        try files.copyItem(atPath: Self.samples + "/Coffee.ptk", toPath: folder.path + "/B.ptk")
        try files.copyItem(atPath: Self.samples + "/Shopping List.icfnote", toPath: folder.path + "/C.icfnote")
        try files.copyItem(atPath: Self.samples + "/Shopping List.icfnote", toPath: folder.path + "/C.sync-conflict-20261124-093015-ABCDEFG.icfnote")
        try files.copyItem(atPath: Self.samples + "/Tutorial Note.dox", toPath: folder.path + "/D.dox")
        try files.createSymbolicLink(atPath: folder.path + "/E.dox", withDestinationPath: folder.path + "/D.dox")
        // Of the wrong shape: not documents.
        try files.createDirectory(atPath: folder.path + "/F.dox", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/G.ptk"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/H.txt"))
        let found = try DocumentDiscovery.documents(in: folder.path)
        #expect(found.map(\.name) == ["A.ict", "B.ptk", "C.icfnote", "D.dox", "E.dox"])
        #expect(found.map(\.kind) == [.ict, .ptk, .icfnote, .dox, .dox])
        #expect(found.map(\.conflictCount) == [0, 0, 1, 0, 0])
    }
}
