import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing
import UbiquitousKeyValueStore

/// A device's store file against Python's plistlib: what the store writes,
/// plistlib reads as the format reference says; what plistlib writes as the
/// reference says, the store reads; each malformed file is refused saying where.
struct KeyValueStoreFileTests {
    private static let device = "syncthing-0123456789abcdef"

    @Test func whatIsWrittenPlistlibReadsAsTheReferenceSays() throws {
        let file = KeyValueStoreFile(
            device: Self.device, initialSyncDone: true,
            entries: [
                "b": KeyValueStoreEntry(value: .integer(PropertyListInteger(7)), time: 1_700_000_000_123, device: Self.device),
                "a": KeyValueStoreEntry(value: nil, time: 1_700_000_000_100, device: "folder-fedcba9876543210"),
            ])
        let bytes = try file.encoded(path: "x")
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let script = """
            import json, plistlib, sys
            top = plistlib.loads(sys.stdin.buffer.read())
            print(json.dumps(top, sort_keys=True))
            """
        let json = try PythonScript.run(script, arguments: [], input: Data(bytes))
        // By hand from docs/kvstore-format.md: the entry of another device names it; a removal has Removed and no Value.
        let expected = """
            {"Device": "\(Self.device)", "Entries": {"a": {"Device": "folder-fedcba9876543210", "Removed": true, "Time": 1700000000100}, \
            "b": {"Time": 1700000000123, "Value": 7}}, "Format": 1, "InitialSyncDone": true}

            """
        #expect(String(decoding: json, as: UTF8.self) == expected)
        let read = try KeyValueStoreFile(decoding: bytes, path: "x")
        #expect(Array(read.entries.keys) == ["a", "b"], "written in key order")
        #expect(read.entries["a"] == file.entries["a"] && read.entries["b"] == file.entries["b"])
        #expect(read.device == file.device && read.initialSyncDone)
    }

    @Test func whatPlistlibWritesIsRead() throws {
        let script = """
            import plistlib, sys
            top = {"Format": 1, "Device": "dev-a", "Entries": {
                "s": {"Time": 5, "Value": "text"}, "gone": {"Time": 6, "Removed": True},
                "x": {"Time": 7, "Value": [1, 2.5], "Device": "dev-b"}}}
            sys.stdout.buffer.write(plistlib.dumps(top, fmt=plistlib.FMT_XML))
            """
        let bytes = [UInt8](try PythonScript.run(script, arguments: []))
        let file = try KeyValueStoreFile(decoding: bytes, path: "dev-a.plist")
        #expect(file.device == "dev-a")
        #expect(file.initialSyncDone == false, "absent: false")
        #expect(file.entries["s"] == KeyValueStoreEntry(value: .string("text"), time: 5, device: "dev-a"))
        #expect(file.entries["gone"] == KeyValueStoreEntry(value: nil, time: 6, device: "dev-a"))
        #expect(file.entries["x"] == KeyValueStoreEntry(value: .array([.integer(PropertyListInteger(1)), .real(2.5)]), time: 7, device: "dev-b"))
    }

    /// Each malformed file (XML, so the break reads plainly) and where the error must say it is.
    static let malformed: [(bytes: String, place: String, words: String)] = [
        ("<plist><array/></plist>", "", "the top is not a dictionary"),
        ("<plist><dict><key>Format</key><integer>2</integer></dict></plist>", "Format", "format 2 is not one this version reads"),
        ("<plist><dict><key>Format</key><integer>1</integer></dict></plist>", "Device", "missing"),
        (
            "<plist><dict><key>Format</key><integer>1</integer><key>Device</key><string>d</string><key>Entries</key><dict>"
                + "<key>k</key><dict><key>Time</key><string>now</string></dict></dict></dict></plist>",
            "Entries.k.Time", "not an integer"
        ),
        (
            "<plist><dict><key>Format</key><integer>1</integer><key>Device</key><string>d</string><key>Entries</key><dict>"
                + "<key>k</key><dict><key>Time</key><integer>1</integer></dict></dict></dict></plist>",
            "Entries.k", "has neither Value nor Removed"
        ),
        ("bplist00\u{0}\u{1}", "", "not a store file"),
    ]

    @Test(arguments: malformed.indices)
    func aMalformedFileIsRefusedSayingWhere(_ index: Int) {
        let (text, place, words) = Self.malformed[index]
        #expect {
            _ = try KeyValueStoreFile(decoding: Array(text.utf8), path: "dev.plist")
        } throws: { error in
            guard let error = error as? KeyValueStoreError else { return false }
            return error.code == .unreadable && error.path == "dev.plist" && error.key == place && error.message.contains(words)
        }
    }

    /// A `FilePath` naming the file in errors is carried byte for byte: `dev` 0xFF `.plist` is named with
    /// U+10FF00 + 0xFF = U+10FFFF in the error's place (written out by hand), not U+FFFD.
    @Test func aFilePathThatIsNotUTF8IsNamedByItsBytes() throws {
        let path = FilePath(platformString: (Array("dev".utf8) + [0xFF] + Array(".plist".utf8)).map { CChar(bitPattern: $0) } + [0])
        #expect {
            _ = try KeyValueStoreFile(decoding: Array("not a plist".utf8), path: path)
        } throws: { error in
            (error as? KeyValueStoreError)?.pathText == "dev\u{10FFFF}.plist"
        }
        let file = KeyValueStoreFile(device: "dev", entries: ["k": KeyValueStoreEntry(value: .string("v"), time: 1, device: "dev")])
        #expect(try KeyValueStoreFile(decoding: try file.encoded(path: path), path: path) == file)
        let warning = KeyValueStoreWarning(path: path, message: "unreadable")
        #expect(warning.path == path)
        #expect(warning.description == "dev\u{10FFFF}.plist: unreadable")
    }

    @Test func theLaterChangeWinsThenTheGreaterDeviceEverywhere() {
        let older = KeyValueStoreEntry(value: .string("old"), time: 10, device: "z")
        let newer = KeyValueStoreEntry(value: nil, time: 11, device: "a")
        #expect(newer.wins(over: older) && !older.wins(over: newer), "a removal is a change: the later wins")
        let tieA = KeyValueStoreEntry(value: .string("x"), time: 10, device: "a")
        let tieB = KeyValueStoreEntry(value: .string("y"), time: 10, device: "b")
        #expect(tieB.wins(over: tieA) && !tieA.wins(over: tieB))
        #expect(!tieA.wins(over: tieA), "nothing wins over itself")
    }
}
