import Foundation
import TestSupport
import Testing

/// Small things a user trips over: a mistyped command, `help` of no command,
/// and messages that said a thing twice, wrongly or in the wrong place.
/// Each test runs the built `ict` and checks the exit status and the exact
/// message, and that the run changed nothing on disk it should not have.
struct WordingCommandTests {
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-wording").path
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every file below the scratch folder with its bytes.
    private func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return files
    }

    @Test func aMistypedCommandSuggestsTheNearestOne() throws {
        let plist = try write("<plist><true/></plist>", "a.plist")
        let before = try snapshot()
        let inspect = try ICTRunner.run(["inpsect", plist])
        #expect(inspect.status == 64)
        #expect(inspect.stderr == "ict: error: unknown command 'inpsect'; did you mean 'inspect'? (see 'ict --help')\n")
        #expect(inspect.stdout == "")
        let convert = try ICTRunner.run(["convrt", plist, "--format", "json"])
        #expect(convert.status == 64)
        #expect(convert.stderr == "ict: error: unknown command 'convrt'; did you mean 'convert'? (see 'ict --help')\n")
        let nested = try ICTRunner.run(["types", "shw", "public.data"])
        #expect(nested.status == 64)
        #expect(nested.stderr == "ict: error: unknown command 'types shw'; did you mean 'types show'? (see 'ict types --help')\n")
        let far = try ICTRunner.run(["zzzzzzzz", plist])
        #expect(far.status == 64)
        #expect(far.stderr.hasPrefix("ict: error: unknown command 'zzzzzzzz'; the commands are inspect, convert, validate, "))
        #expect(try snapshot() == before)
    }

    @Test func helpOfACommandThatIsNotOneIsAUsageError() throws {
        let run = try ICTRunner.run(["help", "nonexistent"])
        #expect(run.status == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("ict: error: unknown command 'nonexistent'; the commands are inspect, convert, "))
        #expect(!run.stderr.contains(", help"), "help is not offered as a command to get help on")
        let near = try ICTRunner.run(["help", "lsit"])
        #expect(near.status == 64)
        #expect(near.stderr == "ict: error: unknown command 'lsit'; did you mean 'list'? (see 'ict --help')\n")
        let real = try ICTRunner.run(["help", "inspect"])
        #expect(real.status == 0)
        #expect(real.stdout.contains("USAGE: ict inspect"))
    }

    @Test func aFailedWriteSaysCannotWriteOnce() throws {
        let plist = try write("<plist><dict><key>a</key><string>x</string></dict></plist>", "a.plist")
        let before = try snapshot()
        let get = try ICTRunner.run(["get", plist, "a", "-o", "/dev/full"])
        #expect(get.status == 1)
        #expect(get.stderr == "/dev/full: error: cannot write: No space left on device\n")
        #expect(try snapshot() == before)
    }

    @Test func aZipHoldingOneNameTwiceSaysSo() throws {
        let zip = folder + "/Twice.ict.zip"
        try PythonZip.create(zip, entries: [("Twice.ict/a.txt", .file, "one"), ("Twice.ict/a.txt", .file, "two")])
        let before = try snapshot()
        let run = try ICTRunner.run(["convert", zip, "--format", "package"])
        #expect(run.status == 1)
        #expect(run.stderr == "\(zip):Twice.ict/a.txt: error: the zip holds two entries named \"Twice.ict/a.txt\"\n")
        #expect(try snapshot() == before)
        let byCase = folder + "/Case.ict.zip"
        try PythonZip.create(byCase, entries: [("Case.ict/a.txt", .file, "one"), ("Case.ict/A.txt", .file, "two")])
        let caseRun = try ICTRunner.run(["convert", byCase, "--format", "package"])
        #expect(caseRun.status == 1)
        #expect(caseRun.stderr.contains("\"A.txt\" differs only by case from the existing child \"a.txt\""))
    }

    @Test func aShortenedKeyPathHasNoStrayDot() throws {
        // 20 dictionaries deep, each under the key "k", then a bad integer.
        let depth = 20
        let text =
            "<plist>" + String(repeating: "<dict><key>k</key>", count: depth) + "<integer>x</integer>"
            + String(repeating: "</dict>", count: depth) + "</plist>"
        let plist = try write(text, "deep.plist")
        let run = try ICTRunner.run(["inspect", plist])
        #expect(run.status == 1)
        #expect(run.stderr.hasSuffix(" (at k.k.k.k.k.k…(8 more steps)…k.k.k.k.k.k)\n"), "\(run.stderr)")
    }

    @Test func plutilDoesNotNameAnOptionItLacks() throws {
        // A sparse file over the 2 GiB input limit: no disk is used, and nothing is read.
        let big = folder + "/big.plist"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        let run = try ICTRunner.run(["plutil", "-lint", big])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("--max-input-size"))
        #expect(run.stderr == "\(big): (The operation could not be completed. The file is larger than 2147483648 bytes, the most plutil reads.)\n")
        let ict = try ICTRunner.run(["validate", big])
        #expect(ict.status == 1)
        #expect(ict.stderr.contains("(--max-input-size)"), "ict names its own option")
    }

    @Test func anEntityDeclarationIsReportedWhereItStands() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist [
              <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <plist version="1.0"><string>&xxe;</string></plist>

            """
        let plist = try write(text, "xxe.plist")
        let before = try snapshot()
        let run = try ICTRunner.run(["inspect", plist])
        #expect(run.status == 1)
        #expect(run.stderr == "\(plist):3:3: error: entity declarations/references are not supported\n")
        #expect(try snapshot() == before)
    }

    @Test func duplicateKeysKeepTheLastValueAndValidateWarnsNamingBothLines() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<string>first</string>
            \t<key>b</key>
            \t<dict>
            \t\t<key>c</key>
            \t\t<integer>1</integer>
            \t\t<key>c</key>
            \t\t<integer>2</integer>
            \t</dict>
            \t<key>a</key>
            \t<string>last</string>
            </dict>
            </plist>

            """
        let plist = try write(text, "dup.plist")
        let before = try snapshot()
        // The value kept is the last, as CoreFoundation and plistlib keep it.
        let get = try ICTRunner.run(["get", plist, "a"])
        #expect(get.status == 0)
        #expect(get.stdout == "last\n")
        #expect(try ICTRunner.run(["get", plist, "b.c"]).stdout == "2\n")
        let validate = try ICTRunner.run(["validate", plist])
        #expect(validate.status == 0, "a warning: the file reads")
        #expect(
            validate.stderr == """
                \(plist):11:1: warning: duplicate key "c" at lines 9 and 11 of one dictionary; the last value is kept, as Apple's readers keep it (at b.c)
                \(plist):14:1: warning: duplicate key "a" at lines 5 and 14 of one dictionary; the last value is kept, as Apple's readers keep it (at a)

                """)
        #expect(try ICTRunner.run(["validate", "--strict", plist]).status == 1)
        #expect(try snapshot() == before)
    }

    @Test func listRefusesAThumbnailThatValidateRefuses() throws {
        let document = folder + "/Big.ict"
        try FileManager.default.copyItem(atPath: DocumentCommandTests.sampleDocs.appendingPathComponent("Coffee.ict").path, toPath: document)
        // The thumbnail's IHDR claims 2³¹ − 1 × 2³¹ − 1 pixels, its CRC recomputed: the header reads, the image could never be decoded.
        let metadata = document + "/ctdocument.metadata"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: metadata)))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let png = try #require((0..<(bytes.count - 33)).first { Array(bytes[$0..<($0 + 8)]) == signature })
        bytes.replaceSubrange((png + 16)..<(png + 24), with: [0x7F, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF])
        let crc = Self.crc32(bytes[(png + 12)..<(png + 29)])
        bytes.replaceSubrange((png + 29)..<(png + 33), with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        try Data(bytes).write(to: URL(fileURLWithPath: metadata))
        let before = try snapshot()
        let list = try ICTRunner.run(["list", folder])
        #expect(list.status == 1)
        #expect(!list.stdout.contains("2147483647"), "\(list.stdout)")
        #expect(
            list.stderr
                == "\(document):ctdocument.metadata: error: the PNG is 2147483647×2147483647 pixels, over the limit of 67108864 (thumbnailPixelLimit) (at DATA.THUMBNAIL)\n"
        )
        #expect(try ICTRunner.run(["validate", document]).status == 1)
        #expect(try snapshot() == before)
    }

    /// The CRC-32 of PNG chunks (zlib's), bit by bit.
    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
