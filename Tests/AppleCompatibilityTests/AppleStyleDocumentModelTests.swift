import AppleCompatibility
import Foundation
import TestSupport
import Testing

/// Runs `AppleStyleDocumentModel.swift`, code written against Apple's API,
/// on real packages and Info.plists. Expected values come from the files
/// (their bytes, `MANIFEST.md`'s checksums, the Info.plists' declarations)
/// and Apple's documentation.
struct AppleStyleDocumentModelTests {
    // MARK: FileWrapper: read a package, change one file, write it linking the rest

    @Test(.interopCorpus)
    func editsOneFileOfAnRTFDAndLinksTheUnchangedAttachment() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A copy, so that the corpus is never written.
        let original = directory.url.appendingPathComponent("README.rtfd")
        try FileManager.default.copyItem(at: InteropCorpus.url("packages/PSTreeGraph/README.rtfd"), to: original)

        let document = try PackageDocument(contentsOf: original)
        #expect(document.fileNames == ["TXT.rtf", "horizontal.png"])
        let rtf = try #require(document.contents(ofFile: "TXT.rtf"))
        // MANIFEST.md: TXT.rtf is 591 bytes.
        #expect(rtf.count == 591)
        #expect(String(decoding: rtf.prefix(5), as: UTF8.self) == "{\\rtf")

        let edited = Data(String(decoding: rtf, as: UTF8.self).replacingOccurrences(of: "}", with: "\\par edited}").utf8)
        document.setContents(edited, ofFile: "TXT.rtf")
        let saved = directory.url.appendingPathComponent("README-saved.rtfd")
        try document.write(to: saved, originalContentsURL: original)

        // The attachment was not copied: the saved package holds the original's very inode.
        let png = try fileNumberAndLinks(original.appendingPathComponent("horizontal.png"))
        let savedPNG = try fileNumberAndLinks(saved.appendingPathComponent("horizontal.png"))
        #expect(savedPNG.fileNumber == png.fileNumber)
        #expect(savedPNG.links == 2)
        // MANIFEST.md: horizontal.png is 41994 bytes with sha256 502e697d46ca32c4…
        #expect(try sha256Prefix(of: saved.appendingPathComponent("horizontal.png")) == "502e697d46ca32c4")
        // The changed file was written anew, and the original keeps its bytes.
        #expect(
            try fileNumberAndLinks(saved.appendingPathComponent("TXT.rtf")).fileNumber
                != fileNumberAndLinks(original.appendingPathComponent("TXT.rtf")).fileNumber)
        #expect(try Data(contentsOf: saved.appendingPathComponent("TXT.rtf")) == edited)
        #expect(try Data(contentsOf: original.appendingPathComponent("TXT.rtf")) == rtf)
        // Beside the entries, only the manifest every package save writes (hidden, not an entry).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: saved.path).sorted() == [".ictkit-manifest.plist", "TXT.rtf", "horizontal.png"])
    }

    @Test func editsTheMetadataOfASampleICTDocumentAndLinksItsData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = directory.url.appendingPathComponent("Rocket.ict")
        try FileManager.default.copyItem(at: sampleDocs.appendingPathComponent("Rocket.ict"), to: original)
        let dataBefore = try fileNumberAndLinks(original.appendingPathComponent("ctdocument.data"))

        let document = try PackageDocument(contentsOf: original)
        #expect(document.fileNames == ["ctdocument.data", "ctdocument.metadata"])
        // The files on disk: 110482 and 79796 bytes (ls -l).
        #expect(document.contents(ofFile: "ctdocument.data")?.count == 110_482)
        let metadata = try #require(document.contents(ofFile: "ctdocument.metadata"))
        #expect(metadata.count == 79_796)
        document.setContents(metadata + Data([0x0A]), ofFile: "ctdocument.metadata")

        // Saved over itself, as a document's Save does: the original is also the place written.
        try document.write(to: original, originalContentsURL: original)
        let dataAfter = try fileNumberAndLinks(original.appendingPathComponent("ctdocument.data"))
        #expect(dataAfter.fileNumber == dataBefore.fileNumber)
        #expect(dataAfter.links == 1)
        #expect(try Data(contentsOf: original.appendingPathComponent("ctdocument.metadata")).count == 79_797)
        // With .withNameUpdating the children's filenames are the names written.
        #expect(document.fileWrapper.fileWrappers?["ctdocument.metadata"]?.filename == "ctdocument.metadata")
    }

    @Test func aFlatFileIsNotOpenedAsAPackageDocument() throws {
        let error = #expect(throws: CocoaError.self) {
            try PackageDocument(contentsOf: sampleDocs.appendingPathComponent("Info.plist"))
        }
        #expect(error?.code == .fileReadCorruptFile)
        #expect(throws: CocoaError.self) {
            try PackageDocument(contentsOf: sampleDocs.appendingPathComponent("Missing.ict"))
        }
    }

    // MARK: UTType: identify by extension and MIME type, conformance

    @Test func identifiesFilesByExtension() throws {
        // Apple's documentation of the constants: .png is public.png, an image; .rtfd is com.apple.rtfd, a package.
        #expect(DocumentTypes.type(of: URL(fileURLWithPath: "/tmp/a.png")) == .png)
        #expect(DocumentTypes.type(of: URL(fileURLWithPath: "/tmp/a.PNG"))?.identifier == "public.png")
        #expect(DocumentTypes.isPackage(URL(fileURLWithPath: "/tmp/README.rtfd")))
        #expect(!DocumentTypes.isPackage(URL(fileURLWithPath: "/tmp/a.png")))
        // No type declares the extension: a dynamic type, and no package.
        let unknown = try #require(DocumentTypes.type(of: URL(fileURLWithPath: "/tmp/a.zzqx")))
        #expect(unknown.isDynamic)
        #expect(!unknown.isDeclared)
        #expect(!DocumentTypes.isPackage(URL(fileURLWithPath: "/tmp/a.zzqx")))
        // Apple's default `conformingTo: .data` finds no package type for a package's extension.
        #expect(UTType(filenameExtension: "rtfd") != .rtfd)
        #expect(UTType(filenameExtension: "rtfd", conformingTo: .package) == .rtfd)
    }

    @Test func identifiesDataByMIMEType() {
        #expect(DocumentTypes.isImage(mimeType: "image/png"))
        #expect(DocumentTypes.isImage(mimeType: "image/jpeg"))
        #expect(!DocumentTypes.isImage(mimeType: "text/plain"))
        #expect(!DocumentTypes.isImage(mimeType: ""))
        // public.jpeg's preferred extension is "jpeg"; com.adobe.pdf's is "pdf" (Apple's declarations).
        #expect(DocumentTypes.fileName("photo", mimeType: "image/jpeg") == "photo.jpeg")
        #expect(DocumentTypes.fileName("paper", mimeType: "application/pdf") == "paper.pdf")
        #expect(DocumentTypes.fileName("blob", mimeType: "application/x-zzqx-unknown") == "blob")
    }

    // MARK: UTType: declared types from an Info.plist

    #if !canImport(UniformTypeIdentifiers)
    @Test(.interopCorpus)
    func declaredTypesComeFromARegisteredInfoPlist() throws {
        try UTType.registerDeclarations(fromInfoPlistAt: InteropCorpus.url("uti-apps/Sequel-Ace/Info.plist"))
        // Sequel-Ace's Info.plist: com.sequel-ace.sequel-ace.spfs, "Sequel Ace Session", extension spfs, conforms to com.apple.package.
        let session = DocumentTypes.sessionPackage
        #expect(session.isDeclared)
        #expect(session.localizedDescription == "Sequel Ace Session")
        #expect(session.preferredFilenameExtension == "spfs")
        #expect(DocumentTypes.type(of: URL(fileURLWithPath: "/tmp/Work.spfs")) == session)
        #expect(DocumentTypes.isPackage(URL(fileURLWithPath: "/tmp/Work.spfs")))
        // com.sequel-ace.sequel-ace.sabundle lists saBundle then sabundle.
        let bundle = try #require(UTType(filenameExtension: "saBundle", conformingTo: .package))
        #expect(bundle.identifier == "com.sequel-ace.sequel-ace.sabundle")
        #expect(bundle.tags[.filenameExtension] == ["saBundle", "sabundle"])
        #expect(bundle.supertypes.contains(.package))
        // com.sequel-ace.sequel-ace.spf conforms to public.plain-text, so to public.text, and is no package.
        let connection = try #require(UTType(filenameExtension: "spf"))
        #expect(connection.conforms(to: .text))
        #expect(!connection.conforms(to: .package))
        #expect(DocumentTypes.readableTypes.contains(session))
    }
    #endif
}
