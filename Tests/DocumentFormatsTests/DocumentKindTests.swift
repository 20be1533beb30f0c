import DocumentFormats
import Foundation
import TestSupport
import Testing

/// `DocumentKind`: told from a name, from an item on disk (a package kind
/// only as a folder, a text kind only as a file).
struct DocumentKindTests {
    static let samples = Repository.root.appendingPathComponent("SampleDocs").path

    @Test(arguments: [
        ("Coffee.ict", DocumentKind.ict), ("Photo.PTK", .ptk), ("notes/Shopping List.icfnote", .icfnote), ("Tutorial Note.dox", .dox),
        ("Coffee.ict/", .ict),
    ])
    func aNameSaysItsKind(name: String, kind: DocumentKind) {
        #expect(DocumentKind.of(name: name) == kind)
    }

    @Test(arguments: ["notes.txt", "ict", "Coffee.ict.zip", "a.dox/b", ""])
    func otherNamesHaveNoKind(name: String) {
        #expect(DocumentKind.of(name: name) == nil)
    }

    @Test func theKindsAreTwoPackagesAndTwoTextFiles() {
        #expect(DocumentKind.allCases.filter(\.isPackage) == [.ict, .ptk])
        #expect(DocumentKind.allCases.filter(\.isText) == [.icfnote, .dox])
        // The photo app's own identifier (PhotoKeeper-Info.plist), the .ict app's (the format reference, section 8).
        #expect(DocumentKind.ptk.typeIdentifier == "com.razeware.PhotoKeeper.doc")
        #expect(DocumentKind.ict.typeIdentifier == "com.appmosphereinc.icloudtest.doc")
    }

    @Test func theDisplayNameIsTheFileNameWithoutTheExtension() {
        #expect(DocumentKind.icfnote.fileDisplayName(ofPath: "a/Shopping List.icfnote") == "Shopping List")
        #expect(DocumentKind.ptk.fileDisplayName(ofPath: "Coffee.PTK") == "Coffee")
        #expect(DocumentKind.dox.fileDisplayName(ofPath: ".dox") == ".dox")
    }

    @Test func anItemIsOfAKindOnlyInThatKindsShape() throws {
        let folder = try ScratchFolder()
        let files = FileManager.default
        try files.createDirectory(atPath: folder.path + "/folder.icfnote", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/file.ptk"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "/note.dox"))
        try files.createSymbolicLink(atPath: folder.path + "/link.dox", withDestinationPath: folder.path + "/note.dox")
        #expect(DocumentKind.of(itemAtPath: folder.path + "/folder.icfnote") == nil)
        #expect(DocumentKind.of(itemAtPath: folder.path + "/file.ptk") == nil)
        #expect(DocumentKind.of(itemAtPath: folder.path + "/note.dox") == .dox)
        #expect(DocumentKind.of(itemAtPath: folder.path + "/link.dox") == .dox)
        #expect(DocumentKind.of(itemAtPath: Self.samples + "/Coffee.ptk") == .ptk)
        #expect(DocumentKind.of(itemAtPath: folder.path + "/missing.dox") == nil)
    }
}
