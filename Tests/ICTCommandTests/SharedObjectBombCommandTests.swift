import Foundation
import TestSupport
import Testing

/// Issue 38, item 5: small binary property lists whose shared objects expand
/// to gigabytes when written out. Every command that reads one refuses it by
/// the limit's name (`maximumExpandedSize`) and its place, with exit status
/// 1, nothing on standard output, and the folder exactly as it was: no
/// output file, no temporary file, the input unchanged (an in-place edit too).
struct SharedObjectBombCommandTests {
    /// A hostile file, what it is, and where the refusal says the count goes over.
    struct Bomb: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: Data
        /// `byte N` of the container whose count first passes 2 GiB, as the
        /// message says it, and its key path, if any.
        let place: String
        let keyPath: String?
        var testDescription: String { name }
    }

    static let bombs: [Bomb] = [
        // The issue's 66 KB file: 64 × 64 × 1024 references to one 64 KB data
        // object, 256 GiB written out. Object 1 (byte 8 + 6 + 64 × 2) passes
        // 2 GiB at its 33rd reference to the 64 MiB array below it.
        Bomb(
            name: "data",
            bytes: BinaryPropertyListBytes.nestedSharing(fanOuts: [64, 64, 1024], leaf: BinaryPropertyListBytes.dataObject(count: 65536)),
            place: "byte 142: error: ", keyPath: "[0]"),
        // The issue's 1.2 KB file: 8^7 × 4 (8,388,608) references to one 1 KB
        // string, 8.6 GB of JSON; the top array is the first over.
        Bomb(
            name: "string",
            bytes: BinaryPropertyListBytes.nestedSharing(
                fanOuts: [8, 8, 8, 8, 8, 8, 8, 4], leaf: BinaryPropertyListBytes.asciiStringObject(count: 1024)),
            place: "byte 8: error: ", keyPath: nil),
        // A UTF-16 string (4 KB in the file) a million times over.
        Bomb(
            name: "utf16",
            bytes: BinaryPropertyListBytes.nestedSharing(fanOuts: [1000, 1000], leaf: BinaryPropertyListBytes.utf16StringObject(units: 2048)),
            place: "byte 8: error: ", keyPath: nil),
        // A dictionary whose 1000 values are one array of 1000 references to a 4 KB string.
        Bomb(
            name: "dictionary",
            bytes: BinaryPropertyListBytes.dictionaryOfOneSharedArray(
                keyCount: 1000, fanOut: 1000, leaf: BinaryPropertyListBytes.asciiStringObject(count: 4096)),
            place: "byte 8: error: ", keyPath: nil),
        // One dictionary reached from 1000 places: {"k": [the 4 KB string × 1000]}.
        Bomb(name: "shared dictionary", bytes: sharedDictionary, place: "byte 8: error: ", keyPath: nil),
    ]

    /// Object 0 the top array of 1000 references to object 1, the dictionary
    /// {"k" (object 2): object 3}; object 3 an array of 1000 references to
    /// object 4, a string of 4096 "a"s. 2-byte references, 2-byte offsets.
    static var sharedDictionary: Data {
        let thousand: [UInt8] = [0xAF, 0x11, 0x03, 0xE8]  // Array marker, length 1000 as a 2-byte integer.
        return BinaryPropertyListBytes.file(
            objects: [
                thousand + Array(repeating: [0, 1], count: 1000).flatMap { $0 },
                [0xD1, 0, 2, 0, 3],
                [0x51, 0x6B],
                thousand + Array(repeating: [0, 4], count: 1000).flatMap { $0 },
                BinaryPropertyListBytes.asciiStringObject(count: 4096),
            ], offsetSize: 2, referenceSize: 2)
    }

    /// Each command a user would try next, `FILE` the bomb and `OUT` a new file in the folder.
    static let commands: [[String]] = [
        ["validate", "FILE"],
        ["convert", "FILE", "--format", "binary1", "-o", "OUT"],
        ["convert", "FILE", "--format", "xml1", "-o", "OUT"],
        ["convert", "FILE", "--format", "json", "-o", "OUT"],
        ["convert", "FILE", "--format", "json"],
        ["inspect", "FILE"],
        ["get", "FILE", ""],
        ["set", "FILE", "x", "-string", "y"],
        ["insert", "FILE", "x", "-string", "y"],
        ["remove", "FILE", "x"],
        ["diff", "FILE", "FILE"],
        ["plutil", "-p", "FILE"],
        ["plutil", "-lint", "FILE"],
        ["plutil", "-convert", "json", "FILE", "-o", "OUT"],
        ["plutil", "-convert", "xml1", "FILE"],
    ]

    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-bombs").path
    }

    /// Every item in the folder (`FolderSnapshot`).
    private func snapshot() throws -> [String: String] { try FolderSnapshot.take(folder) }

    @Test(arguments: bombs)
    func everyCommandRefusesTheBombByNameWithNothingWritten(_ bomb: Bomb) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/bomb.plist"
        try bomb.bytes.write(to: URL(fileURLWithPath: file))
        let before = try snapshot()
        for command in Self.commands {
            let arguments = command.map { $0 == "FILE" ? file : $0 == "OUT" ? folder + "/out" : $0 }
            let run = try ICTRunner.run(arguments)
            let what = "\(bomb.name): ict \(command.joined(separator: " "))"
            #expect(run.status == 1, "\(what)")
            #expect(run.stdout.isEmpty, "\(what)")
            #expect(run.stderr.contains("more than 2147483648 bytes of strings and data"), "\(what): \(run.stderr)")
            #expect(run.stderr.contains("(the maximumExpandedSize limit)"), "\(what)")
            #expect(run.stderr.hasPrefix(file + ":"), "\(what): \(run.stderr)")
            // plutil's forms put the place after "Property List error: " or in parentheses.
            let place = command[0] == "plutil" ? bomb.place.replacingOccurrences(of: " error: ", with: " ") : bomb.place
            #expect(run.stderr.contains(place), "\(what): \(run.stderr)")
            if let keyPath = bomb.keyPath { #expect(run.stderr.contains("(at \(keyPath))"), "\(what)") }
            #expect(try snapshot() == before, "\(what)")
        }
    }

    @Test func validatesJSONReportNamesTheLimitAndThePlace() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/bomb.plist"
        try Self.bombs[0].bytes.write(to: URL(fileURLWithPath: file))
        let run = try ICTRunner.run(["validate", "--json", file])
        #expect(run.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let problem = try #require((report["problems"] as? [[String: Any]])?.first)
        #expect(problem["byte"] as? Int == 142)
        #expect(problem["keyPath"] as? String == "[0]")
        #expect((problem["message"] as? String)?.contains("maximumExpandedSize") == true)
    }

    /// The same shapes, small: each shared object written at every place it
    /// is reached, as Python's plistlib reads the file.
    @Test(arguments: [
        BinaryPropertyListBytes.nestedSharing(fanOuts: [3, 4], leaf: BinaryPropertyListBytes.asciiStringObject(count: 10)),
        BinaryPropertyListBytes.nestedSharing(fanOuts: [5], leaf: BinaryPropertyListBytes.utf16StringObject(units: 3)),
        BinaryPropertyListBytes.dictionaryOfOneSharedArray(keyCount: 3, fanOut: 2, leaf: BinaryPropertyListBytes.asciiStringObject(count: 20)),
    ])
    func aSmallSharedFileIsWrittenOutAsPlistlibReadsIt(_ bytes: Data) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/shared.plist", out = folder + "/out.json"
        try bytes.write(to: URL(fileURLWithPath: file))
        let run = try ICTRunner.run(["convert", file, "--format", "json", "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        let check = try ProgramRunner.run(
            "python3",
            [
                "-c",
                "import json, plistlib, sys; print(plistlib.load(open(sys.argv[1], 'rb')) == json.load(open(sys.argv[2])))",
                file, out,
            ])
        #expect(check.stdout == "True\n", "\(check.stderr)")
    }
    /// A keyed archive shares objects by UID as a matter of course: reading,
    /// validating and converting it (UIDs kept) writes each object once and
    /// is accepted; the tree `inspect` and `diff` show writes a string at
    /// every reference to it, so those count it at each, and refuse this
    /// 106 KB archive whose 40,000 references reach one 64 KB string.
    @Test func anArchiveIsRefusedOnlyWhereItsSharedStringWouldBeShownAtEachReference() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/archive.plist", out = folder + "/out.json"
        let bytes = BinaryPropertyListBytes.archiveOfOneSharedString(references: 40_000, length: 65536)
        try bytes.write(to: URL(fileURLWithPath: file))
        let before = try snapshot()
        for command in [["inspect", file], ["inspect", "--json", file], ["inspect", "--expand", file], ["diff", file, file]] {
            let run = try ICTRunner.run(command)
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr.hasPrefix(file + ":"), "\(command): \(run.stderr)")
            #expect(run.stderr.contains("(the maximumExpandedSize limit)"), "\(command): \(run.stderr)")
            #expect(run.stderr.contains("$top.root"), "\(command): \(run.stderr)")
            #expect(command[1] == "--json" || run.stdout.isEmpty, "\(command)")
            #expect(try snapshot() == before, "\(command)")
        }
        #expect(try ICTRunner.run(["validate", file]).status == 0)
        let converted = try ICTRunner.run(["convert", file, "--format", "json", "-o", out])
        #expect(converted.status == 0, "\(converted.stderr)")
        // The archive's JSON form keeps the UIDs: about 23 bytes per reference, the string once.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
        #expect(size < 2_000_000)
    }
}
