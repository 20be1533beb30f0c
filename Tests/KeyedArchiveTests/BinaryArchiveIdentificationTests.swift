import Foundation
import KeyedArchive
import SystemPackage
import TestSupport
import Testing

/// `KeyedArchiveObjectGraph.isBinaryArchive(at:)` on archives other tools wrote (the
/// interop corpus) and on binary property lists laid out by hand from
/// Apple's format description (CFBinaryPList.c: the `bplist00` header, the
/// objects, a table of 1-byte offsets, the 32-byte trailer), each checked
/// with Python's plistlib when written here.
struct BinaryArchiveIdentificationTests {
    static func corpusFile(_ name: String) -> String {
        Fixtures.sharedInteropRoot.appendingPathComponent("keyedarchive/" + name).path
    }

    /// Writes `bytes` to a new temporary file and returns its path.
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = ScratchFolder.filePath("binary-archive", extension: "plist")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The 32-byte trailer: 6 unused bytes, 1-byte offsets and references,
    /// then the object count, the top object (0) and the offset table's offset.
    static func trailer(objectCount: UInt8, offsetTableOffset: UInt8) -> [UInt8] {
        [UInt8](repeating: 0, count: 6) + [1, 1] + [UInt8](repeating: 0, count: 7) + [objectCount] + [UInt8](repeating: 0, count: 8)
            + [UInt8](repeating: 0, count: 7) + [offsetTableOffset]
    }

    @Test(arguments: [
        "cpython-plistlib/TESTDATA_KEYED_ARCHIVE.bplist",  // written by Cocoa through PyObjC
        "rust-plist/binary_NSKeyedArchiver.plist",
        "swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist",  // written by Foundation on macOS
        "bpylist2/invalid_type_archive.plist",  // $archiver is "NSArchiver": still a string
    ])
    func binaryArchivesAreArchives(name: String) {
        #expect(KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(Self.corpusFile(name))))
    }

    @Test func anXMLArchiveIsNotABinaryOne() {
        // The same $archiver, $objects and $top, in the XML form.
        #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(Self.corpusFile("swift-corelibs-foundation/NSKeyedUnarchiver-ArrayTest.plist"))))
    }

    @Test func aNonStringArchiverIsNotAnArchive() throws {
        // {"$archiver": 1}: a dictionary (0xD1, key 1, value 2) at 8, the
        // ASCII string "$archiver" (0x59) at 11, the integer 1 (0x10 0x01) at 21;
        // the offset table at 23.
        let objects: [UInt8] = [0xD1, 0x01, 0x02, 0x59] + Array("$archiver".utf8) + [0x10, 0x01]
        let bytes = Array("bplist00".utf8) + objects + [8, 11, 21] + Self.trailer(objectCount: 3, offsetTableOffset: 23)
        #expect(bytes.count == 58)
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(path)))
    }

    @Test func aTopArrayIsNotAnArchive() throws {
        // []: an empty array (0xA0) at 8; the offset table at 9.
        let bytes = Array("bplist00".utf8) + [0xA0] + [8] + Self.trailer(objectCount: 1, offsetTableOffset: 9)
        #expect(bytes.count == 42)
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(path)))
    }

    @Test func unreadableOrOtherFilesAreNotArchives() throws {
        #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath("/nonexistent/archive.plist")))
        try ScratchFolder.with("BinaryArchiveIdentificationTests") { folder in
            #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(folder.path)))  // a directory
        }
        let path = try Self.temporaryFile(Array("{\"$archiver\": \"NSKeyedArchiver\"}".utf8))  // JSON, not binary
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(!KeyedArchiveObjectGraph.isBinaryArchive(at: FilePath(path)))
    }
}
