import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// The `Data` forms of `KeyedUnarchiver`, `KeyedArchiver` and
/// `KeyedArchiveWriter`: the same archives and bytes as the `[UInt8]` forms,
/// checked against the corpus MANIFEST and CPython plistlib.
@Suite
struct KeyedArchiveDataTests {
    /// bpylist2's simple archive; its MANIFEST row states crap.Foo title "yo", count 42.
    static let simpleArchive = "keyedarchive/bpylist2/simple_archive.plist"

    /// What CPython's plistlib finds in `data`: `$archiver` and the object `$top.root` refers to, as text.
    static func plistlibRoot(of data: Data) throws -> String {
        let file = URL(fileURLWithPath: ScratchFolder.filePath("archive-data", extension: "plist"))
        defer { try? FileManager.default.removeItem(at: file) }
        try data.write(to: file)
        let script = """
            import plistlib, sys
            d = plistlib.load(open(sys.argv[1], 'rb'))
            o = d['$objects']
            sys.stdout.write(d['$archiver'] + ' ' + repr(o[d['$top']['root'].data]))
            """
        return try PythonScript.text(script, arguments: [file.path])
    }

    @Test func unarchiverFromDataMatchesBytesAndManifest() throws {
        let data = try Fixtures.interopBytes(Self.simpleArchive)
        let byData = try KeyedUnarchiver(data: data)
        #expect(byData.archive == (try KeyedUnarchiver(bytes: Array(data))).archive)
        #expect(try Self.rootFields(byData) == "crap.Foo yo 42")
    }

    /// The root object's class, `title` and `count`, as text.
    static func rootFields(_ unarchiver: KeyedUnarchiver) throws -> String? {
        try unarchiver.topLevelDecoder().decodeObject(forKey: "root") { (root: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> String in
            "\(root.className) \(try root.decodeObject(of: String.self, forKey: "title") ?? "-") \(try root.decodeInt(forKey: "count"))"
        }
    }

    @Test func unarchiverFromDataRejectsWhatBytesReject() throws {
        let junk = Data("not an archive".utf8)
        let byData = try #require(throws: KeyedArchiveError.self) { _ = try KeyedUnarchiver(data: junk) }
        let byBytes = try #require(throws: KeyedArchiveError.self) { _ = try KeyedUnarchiver(bytes: Array(junk)) }
        #expect(byData == byBytes)
    }

    @Test func writerEncodedDataMatchesBytesAndPlistlibReadsIt() throws {
        let archive = try KeyedArchiveReader().read(try Fixtures.interopBytes(Self.simpleArchive))
        for format in [KeyedArchiveWriter.Format.binary, .xml] {
            let data = try KeyedArchiveWriter(format: format).encodedData(archive)
            #expect(data == Data(try KeyedArchiveWriter(format: format).encode(archive)))
            // Written in the writer's own object order, so compared by what it decodes to.
            #expect(try Self.rootFields(KeyedUnarchiver(data: data)) == "crap.Foo yo 42")
        }
        let binary = try KeyedArchiveWriter().encodedData(archive)
        #expect(try Self.plistlibRoot(of: binary).hasPrefix("NSKeyedArchiver {"))
    }

    @Test func archiverDataMatchesBytesAndPlistlibReadsIt() throws {
        var archiver = KeyedArchiver()
        try archiver.encodeTopLevelObject("Ünïcode copy")
        let data = try archiver.encodedArchiveData()
        #expect(data == Data(try archiver.encodedArchive()))
        #expect(try KeyedArchiver.archivedData("Ünïcode copy") == data)
        #expect(try Self.plistlibRoot(of: data) == "NSKeyedArchiver 'Ünïcode copy'")
    }

    @Test func writerRefusesABrokenArchiveAsBytesDo() throws {
        let broken = KeyedArchiveObjectGraph(top: ["root": .uid(5)], objects: [.string("$null")])
        let byData = try #require(throws: KeyedArchiveError.self) { _ = try KeyedArchiveWriter().encodedData(broken) }
        let byBytes = try #require(throws: KeyedArchiveError.self) { _ = try KeyedArchiveWriter().encode(broken) }
        #expect(byData == byBytes)
    }
}
