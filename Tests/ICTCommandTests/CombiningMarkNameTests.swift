import Foundation
import TestSupport
import Testing

/// Names that start with a combining mark (U+0301): to the file system a
/// name like any other, but to Swift the slash before it and the mark are one
/// `Character`, so a path split by characters lost that slash. `ict` read and
/// wrote such paths in the wrong place or not at all; it now splits by bytes
/// (`PathName`), and `scripts/check-paths.sh` keeps every split there.
struct CombiningMarkNameTests {
    static let samples = Repository.root.path + "/SampleDocs"
    /// `x.plist` with a combining acute accent before it: `/` + U+0301 is one `Character`.
    static let name = "\u{301}x.plist"

    /// `ict plutil -convert` writes beside the file, in its folder (as Apple's plutil does): the
    /// file is replaced by its binary form, which plistlib reads back. (Split by characters, the
    /// folder was not found: "cannot create a temporary file beside it".)
    @Test func plutilConvertsAFileWhoseNameStartsWithACombiningMark() throws {
        let folder = try ScratchFolder.make("mark").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: true)
        let path = folder + "/d/" + Self.name
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>

            """.utf8
        ).write(to: URL(fileURLWithPath: path))

        let run = try ICTRunner.run(["plutil", "-convert", "binary1", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/d") == [Self.name], "nothing beside it")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let decoded = try PythonScript.text(
            "import plistlib, sys, json; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))), end='')", arguments: [path])
        #expect(decoded == #"{"a": 1}"#)
    }

    /// A contact sheet inside a package is refused as one named plainly is, and the
    /// package is left as it was. (Split by characters, the slash before the page's
    /// name was not seen, and the page was not known to be inside the package.)
    @Test func aPageInsideAPackageIsRefusedWhateverItsNameStartsWith() throws {
        let folder = try ScratchFolder.make("mark").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: Self.samples + "/Coffee.ict", toPath: folder + "/Coffee.ict")
        let before = try FolderSnapshot.take(folder)

        let plain = try ICTRunner.run(["list", "--html", folder + "/Coffee.ict/page.html", folder])
        let marked = try ICTRunner.run(["list", "--html", folder + "/Coffee.ict/\u{301}page.html", folder])
        #expect(plain.status == 1)
        #expect(marked.status == plain.status)
        #expect(plain.stderr.contains("Coffee.ict"), "\(plain.stderr)")
        // The same refusal, naming the page each was asked for.
        #expect(marked.stderr == plain.stderr.replacingOccurrences(of: "/page.html", with: "/\u{301}page.html"), "\(marked.stderr)")
        #expect(try FolderSnapshot.take(folder) == before)
    }
}
