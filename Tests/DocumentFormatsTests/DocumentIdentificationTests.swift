import DocumentFormats
import Foundation
import TestSupport
import Testing

/// `ICTDocumentFormat.isPackage(atPath:)` and `isDocument(atPath:)` on the sample
/// documents and on folders, files and links made here, each named for
/// what docs/ict-format.md section 1 says a document is.
struct DocumentIdentificationTests {
    static let sampleDocs = Repository.root.appendingPathComponent("SampleDocs").path

    @Test(arguments: ["Coffee.ict", "Coffee.ict/", "Coffee.ict//", "Hubble Deep Field.ict", "malformed/missing-entry.ict"])
    func sampleDocumentsAreDocuments(name: String) {
        // missing-entry.ict lacks only its data entry: it still identifies as a document, and opening it reports the entry.
        #expect(ICTDocumentFormat.isPackage(atPath: Self.sampleDocs + "/" + name))
        #expect(ICTDocumentFormat.isDocument(atPath: Self.sampleDocs + "/" + name))
    }

    @Test func otherItemsAreNotDocuments() {
        #expect(!ICTDocumentFormat.isPackage(atPath: Self.sampleDocs))  // a folder not named .ict
        #expect(!ICTDocumentFormat.isPackage(atPath: Self.sampleDocs + "/Info.plist"))
        #expect(!ICTDocumentFormat.isPackage(atPath: Self.sampleDocs + "/Coffee.ict/ctdocument.data"))
        #expect(!ICTDocumentFormat.isDocument(atPath: Self.sampleDocs + "/Nobody.ict"))
        #expect(!ICTDocumentFormat.isDocument(atPath: ""))
    }

    /// The name alone: `.ict` at the end, in any case; nothing on disk is read.
    @Test(arguments: [
        ("Coffee.ict", true), ("Hubble Deep Field.ict", true), ("Upper.ICT", true), ("Mixed.IcT", true), ("Nobody.ict", true),
        ("ict", false), ("Coffee", false), ("Coffee.icts", false), ("Coffee.ict.zip", false), ("Coffee_ict", false), ("", false),
    ])
    func theNameAloneSaysWhetherItIsAPackageName(name: String, expected: Bool) {
        #expect(ICTDocumentFormat.isPackageName(name) == expected)
        #expect(ICTDocumentFormat.isPackageName(Substring(name)) == expected)
    }

    @Test func theNameAndTheMetadataEntryDecide() throws {
        let folder = try ScratchFolder()
        let fileManager = FileManager.default
        // A file named .ict is not a package.
        #expect(fileManager.createFile(atPath: folder.path + "/Flat.ict", contents: Data("bplist00".utf8)))
        #expect(!ICTDocumentFormat.isPackage(atPath: folder.path + "/Flat.ict"))
        // A package without the metadata entry is a package, not a document.
        try fileManager.createDirectory(atPath: folder.path + "/Empty.ict", withIntermediateDirectories: false)
        #expect(ICTDocumentFormat.isPackage(atPath: folder.path + "/Empty.ict"))
        #expect(!ICTDocumentFormat.isDocument(atPath: folder.path + "/Empty.ict"))
        // The extension in any case.
        try fileManager.createDirectory(atPath: folder.path + "/Upper.ICT", withIntermediateDirectories: false)
        #expect(ICTDocumentFormat.isPackage(atPath: folder.path + "/Upper.ICT"))
        #expect(!ICTDocumentFormat.isDocument(atPath: folder.path + "/Upper.ICT"))
        #expect(fileManager.createFile(atPath: folder.path + "/Upper.ICT/ctdocument.metadata", contents: Data()))
        #expect(ICTDocumentFormat.isDocument(atPath: folder.path + "/Upper.ICT"))
        // A folder named like a document without the dot is not one.
        try fileManager.createDirectory(atPath: folder.path + "/ict", withIntermediateDirectories: false)
        #expect(!ICTDocumentFormat.isPackage(atPath: folder.path + "/ict"))
    }

    @Test func linksAreFollowedAndTheLinksNameCounts() throws {
        let folder = try ScratchFolder()
        let coffee = Self.sampleDocs + "/Coffee.ict"
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/Link.ict", withDestinationPath: coffee)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/Link", withDestinationPath: coffee)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/Dangling.ict", withDestinationPath: folder.path + "/none")
        #expect(ICTDocumentFormat.isDocument(atPath: folder.path + "/Link.ict"))
        #expect(!ICTDocumentFormat.isPackage(atPath: folder.path + "/Link"))
        #expect(!ICTDocumentFormat.isPackage(atPath: folder.path + "/Dangling.ict"))
    }
}
