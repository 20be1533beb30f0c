import Foundation
import TestSupport
import Testing
import UniformTypes

/// What `ContentSniffer` says of real files (their kinds as
/// /work/shared/interop/MANIFEST.md and `file(1)` give them), of archives
/// python3's zipfile writes, and of cut and empty input.
struct ContentSnifferTests {

    /// A file of the corpus and the type its MANIFEST kind names.
    static let corpusFiles: [(path: String, type: String)] = [
        ("bplist/bpylist2/dict_small.plist", "com.apple.binary-property-list"),  // MANIFEST: bplist
        ("bplist/cpython-plistlib/TESTDATA_FMT_BINARY.bplist", "com.apple.binary-property-list"),  // bplist, written by Cocoa
        ("keyedarchive/bpylist2/data_archive.plist", "com.apple.binary-property-list"),  // an NSKeyedArchiver bplist
        ("packages/TextEdit-sample-nibs/Edit.nib/keyedobjects.nib", "com.apple.binary-property-list"),  // bplist
        ("xmlplist/cpython-plistlib/TESTDATA_FMT_XML.plist", "com.apple.xml-property-list"),  // xml, written by Cocoa
        ("packages/Sequel-Ace/Toggle JSON Format.saBundle/command.plist", "com.apple.xml-property-list"),  // xml
        ("packages/PSTreeGraph/README.rtfd/horizontal.png", "public.png"),  // MANIFEST: png
        ("packages/PSTreeGraph/README.rtfd/TXT.rtf", "public.data"),  // file(1): text/rtf, but byte 588 (0xAC) is not UTF-8
        ("packages/TextEdit-sample-nibs/Edit.nib/designable.nib", "public.utf8-plain-text"),  // XML, but an Interface Builder <archive>
        ("packages/r0ketlcdql/Read Me.rtfd/Pasted Graphic.tiff", "public.data"),  // file(1): image/tiff
        (
            "realworld/CocoaPods-Xcodeproj/spec/fixtures/Sample Project/Extensions/Extensions/Assets.xcassets/AppIcon.appiconset/Contents.json",
            "public.json"
        ),
    ]

    @Test(.interopCorpus, arguments: corpusFiles)
    func recognisesCorpusFiles(file: (path: String, type: String)) throws {
        let path = InteropCorpus.url(file.path).path
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: path) == file.type)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(ContentSniffer.typeIdentifier(ofLeadingBytes: bytes, isWholeContent: true) == file.type)
    }

    @Test func recognisesTheSampleDocumentsEntriesAndTheirFolder() throws {
        let coffee = Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: coffee) == "public.directory")
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: coffee + "/ctdocument.data") == "com.apple.binary-property-list")
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: coffee + "/ctdocument.metadata") == "com.apple.binary-property-list")
        let info = Repository.root.appendingPathComponent("SampleDocs/Info.plist").path
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: info) == "com.apple.xml-property-list")
    }

    /// Zip archives as python3's zipfile writes them: one with an entry
    /// (`PK\3\4`), and an empty one (only the end record, `PK\5\6`).
    @Test func recognisesZipArchivesWrittenByPython() throws {
        let folder = try Scratch()
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('Doc.ict/ctdocument.data', b'bplist00')
            with zipfile.ZipFile(sys.argv[2], 'w') as z: pass
            """
        let process = try Process.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", "-c", script, folder.path + "/one.zip", folder.path + "/empty.zip"])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: folder.path + "/one.zip") == "public.zip-archive")
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: folder.path + "/empty.zip") == "public.zip-archive")
    }

    @Test func followsLinksAndGivesNilForWhatIsNotAFileOrFolder() throws {
        let folder = try Scratch()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path)
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: folder.path + "/link") == "public.directory")
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: folder.path + "/missing") == nil)
        #expect(mkfifo(folder.path + "/fifo", 0o600) == 0)
        #expect(ContentSniffer.typeIdentifier(ofItemAtPath: folder.path + "/fifo") == nil)
    }

    /// Hand-made leading bytes: the magic numbers, and what cut or empty input is.
    @Test(
        arguments: [
            ([UInt8](), true, "public.utf8-plain-text"),  // no bytes: text without a character
            (Array("bplist0".utf8), true, "com.apple.binary-property-list"),  // the magic is enough
            (Array("bplist".utf8), true, "public.utf8-plain-text"),  // the magic cut short is just text
            ([0x89, 0x50, 0x4E, 0x47], false, "public.data"),  // half a PNG signature: 0x89 is not UTF-8
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], false, "public.png"),
            ([0x50, 0x4B, 0x03, 0x04], false, "public.zip-archive"),
            ([0x50, 0x4B, 0x05, 0x06], true, "public.zip-archive"),
            ([0x50, 0x4B, 0x03], true, "public.utf8-plain-text"),  // "PK" and a control character: text
            ([0xEF, 0xBB, 0xBF] + Array(" \n<plist version=\"1.0\">".utf8), false, "com.apple.xml-property-list"),  // mark and white space skipped
            (Array("<?xml version=\"1.0\"?>\n<!DOCTYPE plist SYSTEM \"x\">".utf8), false, "com.apple.xml-property-list"),
            (Array("<?xml version=\"1.0\"?>\n<html>".utf8), true, "public.utf8-plain-text"),  // XML, not a property list
            (Array("\n  [1, 2]".utf8), true, "public.json"),
            (Array("{\"a\": \"caf".utf8) + [0xC3], false, "public.json"),  // an é cut in half at the end of a prefix
            (Array("caf".utf8) + [0xC3], true, "public.data"),  // … but not at the end of the whole content
            (Array("a\u{0}b".utf8), true, "public.data"),  // a NUL byte
        ] as [([UInt8], Bool, String)])
    func recognisesLeadingBytes(bytes: [UInt8], isWholeContent: Bool, type: String) {
        #expect(ContentSniffer.typeIdentifier(ofLeadingBytes: bytes, isWholeContent: isWholeContent) == type)
    }

    /// Only the first `prefixLength` bytes count: `<plist` after them is not seen,
    /// and a longer input is a cut one whatever the caller says.
    @Test func looksOnlyAtThePrefix() {
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: ContentSniffer.prefixLength)
        #expect(
            ContentSniffer.typeIdentifier(ofLeadingBytes: Array("<?xml?>".utf8) + padding + Array("<plist>".utf8), isWholeContent: true)
                == "public.utf8-plain-text")
        let cutInACharacter = [UInt8](repeating: UInt8(ascii: "a"), count: ContentSniffer.prefixLength - 1) + [0xC3, 0xA9]
        #expect(ContentSniffer.typeIdentifier(ofLeadingBytes: cutInACharacter, isWholeContent: true) == "public.utf8-plain-text")
    }

    /// A scratch folder removed when the value goes away.
    final class Scratch {
        let path: String
        init() throws { path = try ScratchFolder.make("sniff").path }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }
}
